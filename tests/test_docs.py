"""Every code block of README.md and docs/**/*.md runs, each page in its own fresh process.

* Each page runs in a new interpreter (``tests/doc_page_runner.py``, which
  says how each kind of block is run) in its own empty temporary folder, so a
  page works only if its own imports suffice, as for a reader; the pages run
  side by side to keep the wall-clock time down.
* Shell blocks: every ``kanon-graph ...`` command runs (as its own process).
  The other commands install packages or run the suite, so they are checked
  here instead of run (``test_shell_commands_are_the_ones_ci_runs``): a
  ``pip install -e .`` / ``pip install -e ".[extras]"`` must name extras that
  pyproject.toml defines, and any other command must be one that ``.ci/run``
  runs, word for word.

A page whose Python code reads ``KANON_GRAPH_DATA`` skips when that variable
is unset, like the data tests; a page that uses Dask skips when the optional
extra is not installed.
"""

import importlib
import importlib.util
import json
import os
import pkgutil
import re
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

import kanon_graph as kg

from doc_page_runner import code_blocks, shell_commands

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("**/*.md"))
RUNNER = Path(__file__).resolve().with_name("doc_page_runner.py")


def _needs_data(page):
    python = "\n".join(code for lang, code, _ in code_blocks(page) if lang == "python")
    return "KANON_GRAPH_DATA" in python and not os.environ.get("KANON_GRAPH_DATA")


@pytest.fixture(scope="module")
def page_runs(tmp_path_factory):
    """``{page: (folder, CompletedProcess)}``: every page run in a fresh process."""
    env = dict(os.environ, MPLBACKEND="Agg")

    def run(page):
        folder = tmp_path_factory.mktemp(page.stem)
        done = subprocess.run([sys.executable, str(RUNNER), str(page)], cwd=folder, env=env,
                              capture_output=True, text=True, timeout=600)
        return page, (folder, done)

    todo = [p for p in PAGES if not _needs_data(p)]
    with ThreadPoolExecutor(max_workers=max(2, min(8, os.cpu_count() or 2))) as pool:
        return dict(pool.map(run, todo))


def test_pages_exist_and_have_code():
    names = {p.relative_to(ROOT).as_posix() for p in PAGES}
    for page in ("README.md", "docs/getting-started.md", "docs/concepts.md",
                 "docs/hierarchies.md", "docs/metrics.md", "docs/privacy.md", "docs/cli.md",
                 "docs/extending.md"):
        assert page in names
        assert any(lang in ("python", "bash") for lang, _, _ in code_blocks(ROOT / page)), page


def test_docs_links_point_at_existing_files():
    for page in PAGES:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if "://" in target or target.startswith("mailto:"):
                continue
            assert (page.parent / target).exists(), f"{page.name}: broken link {target}"


def _package_algorithms():
    """Every algorithm registered by a module of the package (all modules imported)."""
    for module in pkgutil.walk_packages(kg.__path__, "kanon_graph."):
        importlib.import_module(module.name)
    return sorted(n for n in kg.algorithms()
                  if kg.registry.get_algorithm(n).function.__module__.startswith("kanon_graph."))


def test_readme_lists_exactly_the_registered_algorithms():
    text = (ROOT / "README.md").read_text()
    section = text.split("## Algorithms")[1].split("\n## ")[0]
    listed = re.findall(r"^\| `([^`]+)` \|", section, re.M)
    assert sorted(listed) == _package_algorithms()
    for name in listed:
        info = kg.registry.get_algorithm(name)
        assert f"| `{name}` | {info.recoding} |" in section


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_code_runs(page, page_runs):
    if _needs_data(page):
        pytest.skip("KANON_GRAPH_DATA is not set; this page reads the shared data")
    if ("import dask" in page.read_text() or "--engine dask" in page.read_text()) \
            and not kg.scale.dask_available():
        pytest.skip("the optional Dask extra is not installed (pip install "
                    "\"kanon_graph[dask]\"); this page uses it")
    _, done = page_runs[page]
    assert done.returncode == 0, done.stderr[-4000:]


def _cli_outputs(folder):
    """``[(argv, stdout)]`` of the ``kanon-graph`` commands a page ran, in order."""
    outs = sorted((folder / ".cli").glob("*.out"), key=lambda p: int(p.stem))
    return [(json.loads(p.with_suffix(".args").read_text()), p.read_text()) for p in outs]


def test_hierarchy_page_cli_shows_what_python_shows(page_runs):
    """hierarchies.md: "the same from the command line" prints the tree the page shows."""
    page = ROOT / "docs" / "hierarchies.md"
    blocks = code_blocks(page)
    python = next(i for i, (lang, code, _) in enumerate(blocks)
                  if lang == "python" and "print(hierarchy_text(location))" in code)
    shown = next(code for lang, code, _ in blocks[python:] if lang == "text")
    folder, done = page_runs[page]
    assert done.returncode == 0, done.stderr[-4000:]
    printed = dict((tuple(argv), out) for argv, out in _cli_outputs(folder))
    out = printed[("hierarchy", "show", "location.csv")]
    assert shown.strip() in out, out
    assert out.count("MAGVal") == 3


def _extras():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return set(pyproject["project"]["optional-dependencies"])


def test_shell_commands_are_the_ones_ci_runs():
    ci = (ROOT / ".ci" / "run").read_text()
    checked = 0
    for page in PAGES:
        for lang, code, line in code_blocks(page):
            if lang not in ("bash", "sh", "shell"):
                continue
            for command in shell_commands(code):
                where = f"{page.name}, block at line {line}: {command!r}"
                if command.startswith("kanon-graph "):
                    continue                               # run by test_page_code_runs
                install = re.fullmatch(r'pip install -e (\.|"\.\[([\w,-]+)\]")', command)
                if install:
                    extras = set((install.group(2) or "").split(",")) - {""}
                    assert extras <= _extras(), f"{where}: no such extra in pyproject.toml"
                else:
                    assert command in ci, f"{where} is neither run by the test nor by .ci/run"
                checked += 1
    assert checked >= 2


def test_pages_write_one_install_form():
    """Every ``pip install`` a page mentions is the checkout's ``pip install -e ...`` form."""
    for page in PAGES:
        for mention in re.findall(r"pip install [^`\n]*", page.read_text()):
            assert re.match(r'pip install -e (\.|"\.\[[\w,-]+\]")', mention), \
                f"{page.name}: {mention!r}"
            for extra in re.findall(r"\[([\w,-]+)\]", mention):
                assert set(extra.split(",")) <= _extras(), f"{page.name}: {mention!r}"


def test_readme_may_suppress_column_is_the_declared_capability():
    # the README said "with boundaries" where `kanon-graph algorithms` says "yes"
    section = (ROOT / "README.md").read_text().split("## Algorithms")[1].split("\n## ")[0]
    rows = re.findall(r"^\| `([^`]+)` \| \w+ \| \w+ \| ([^|]+) \|", section, re.M)
    assert rows
    for name, suppress in rows:
        declared = kg.registry.get_algorithm(name).supports_suppression
        assert suppress.strip() == ("yes" if declared else "no"), name


def test_algorithm_index_names_every_registered_algorithm_and_page():
    text = (ROOT / "docs" / "algorithms" / "index.md").read_text()
    for name in _package_algorithms():
        assert f"`{name}`" in text, f"docs/algorithms/index.md does not mention {name}"
    for page in (ROOT / "docs" / "algorithms").glob("*.md"):
        if page.name != "index.md":
            assert f"]({page.name})" in text, f"index.md does not link {page.name}"


def test_metrics_page_lists_every_registered_metric():
    text = (ROOT / "docs" / "metrics.md").read_text()
    listed = re.findall(r"^\| `([^`]+)` \|", text, re.M)
    assert sorted(listed) == sorted(kg.metrics.metrics())
    for name, info in kg.metrics.metrics().items():  # the declared capabilities, as registered
        row = re.search(rf"^\| `{name}` \|.*\| (lower|higher) \| (yes|no) \|$", text, re.M)
        assert row, f"metrics.md: row of {name} lacks 'better' and 'monotone' columns"
        assert row.group(1) == ("lower" if info.lower_is_better else "higher"), name
        assert row.group(2) == ("yes" if info.monotone else "no"), name


def test_doc_pictures_are_drawn_by_make_pictures(tmp_path):
    """Every picture a page shows is committed and is one make_pictures.py draws."""
    spec = importlib.util.spec_from_file_location("make_pictures",
                                                  ROOT / "docs" / "make_pictures.py")
    make_pictures = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_pictures)
    shown = {t.removeprefix("img/") for page in PAGES       # explore/... keeps its folder
             for t in re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", page.read_text())}
    assert shown and shown <= set(make_pictures.PICTURES) | set(make_pictures.SCREENSHOTS)
    for name in make_pictures.SCREENSHOTS:    # taken in a browser by tests/report_cases.py
        committed = ROOT / "docs" / "img" / name
        assert committed.read_bytes()[:4] == b"\x89PNG" and committed.stat().st_size < 150_000
    for path in make_pictures.main(tmp_path):
        assert path.read_bytes()[:4] == b"\x89PNG"
        committed = ROOT / "docs" / "img" / path.name
        assert committed.exists() and committed.stat().st_size < 100_000


def _reference_modules():
    """``{module name: page}`` of the ``::: module`` directives of docs/reference/."""
    found = {}
    for page in sorted((ROOT / "docs" / "reference").glob("*.md")):
        for name in re.findall(r"^::: ([\w.]+)\s*$", page.read_text(), re.M):
            found[name] = page
    return found


def test_every_public_module_has_a_reference_page():
    """mkdocstrings renders each ``__all__``; every public package must be on a page."""
    public = {"kanon_graph"} | {f"kanon_graph.{m.name}" for m in pkgutil.iter_modules(kg.__path__)
                                if m.ispkg and not m.name.startswith("_") and m.name != "cli"}
    pages = _reference_modules()
    assert public <= set(pages), f"no reference page for {sorted(public - set(pages))}"
    index = (ROOT / "docs" / "reference" / "index.md").read_text()
    for name, page in pages.items():
        assert f"]({page.name})" in index, f"reference/index.md does not link {page.name}"


def test_every_public_name_has_a_docstring():
    """Each name a reference page renders (its module's ``__all__``) is documented."""
    import inspect

    for module_name in _reference_modules():
        module = importlib.import_module(module_name)
        assert hasattr(module, "__all__"), f"{module_name} has no __all__ to render"
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj) or inspect.ismodule(obj):
                doc = obj.__doc__ or ""
                assert doc.strip(), f"{module_name}.{name} has no docstring"


def test_mkdocs_config_builds_the_docs_folder_strictly():
    import yaml

    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    assert config["docs_dir"] == "docs" and config["strict"] is True
    handler = config["plugins"][1]["mkdocstrings"]["handlers"]["python"]["options"]
    assert handler["docstring_style"] == "numpy"
    assert "mkdocs build --strict" in (ROOT / ".ci" / "run").read_text()


def test_ci_runs_the_readme_test_command_before_any_extra():
    """A fresh clone's `pip install -e ".[test]" && python -m pytest -q` is CI's first step."""
    readme = (ROOT / "README.md").read_text()
    command = 'pip install -e ".[test]" && python -m pytest -q'
    assert command in readme
    ci = (ROOT / ".ci" / "run").read_text()
    before = ci[:ci.index(command)]
    installs = [line.strip() for line in before.splitlines()
                if "pip install" in line and not line.lstrip().startswith("#")]
    assert installs == ["python -m pip install --quiet --upgrade pip"], installs
    after = ci[ci.index(command):]
    assert "python -m pytest -q -m dask" in after and "python -m pytest -q -m slow" in after


def test_register_walk_shows_what_its_commands_print(page_runs):
    """getting-started.md's register walk: each output shown is in some command's real output."""
    page = ROOT / "docs" / "getting-started.md"
    text = page.read_text()
    start = text.count("\n", 0, text.index("## A register exported from a spreadsheet"))
    end = text.count("\n", 0, text.index("## The walk-through: a clinic"))
    folder, done = page_runs[page]
    assert done.returncode == 0, done.stderr[-4000:]
    printed = [out for _, out in _cli_outputs(folder)] + [done.stdout]
    shown = [code for lang, code, line in code_blocks(page)
             if lang == "text" and start < line < end]
    assert len(shown) >= 7
    for block in shown:
        lines = [x for x in block.splitlines()
                 if x != "..." and not x.startswith("kanon-graph: warning:")]
        assert any(all(x in out for x in lines) for out in printed), block
