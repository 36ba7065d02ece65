"""Every code block of README.md and docs/**/*.md runs.

* ```python blocks of a page run in order in one namespace, in a fresh
  temporary folder (so a block may use files an earlier block wrote); a
  block written as a ``>>>`` session is checked as a doctest;
* in ```bash blocks, every ``kanon-graph ...`` command runs in-process
  (``kanon_graph.cli.main``) in that same folder and must exit with 0;
  other commands (``pip``, ``python -m pytest``, ``dot``) are not run here;
* a ```python block whose first line is ``# file: NAME.py`` is the content of
  a file: it is written to NAME.py (and not run), for later blocks to import
  or to pass to ``kanon-graph --plugin``;
* ```text / ```console blocks are output and are not run.

A page whose Python code reads ``KANON_GRAPH_DATA`` skips when that variable
is unset, like the data tests; a page that uses Dask skips when the optional
extra is not installed.
"""

import doctest
import importlib
import importlib.util
import os
import pkgutil
import re
import shlex
import sys
from pathlib import Path

import pytest

import kanon_graph as kg
from kanon_graph.cli import main

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").glob("**/*.md"))
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.M | re.S)


def code_blocks(page):
    """``[(language, code, line)]`` of the fenced blocks of a Markdown page."""
    text = page.read_text(encoding="utf-8")
    return [(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start()) + 1)
            for m in FENCE.finditer(text)]


def cli_commands(code):
    """The ``kanon-graph`` commands of a shell block (continuations and ``&&`` split)."""
    joined = re.sub(r"\\\n\s*", " ", code)
    for line in joined.splitlines():
        for part in line.split("&&"):
            part = part.strip()
            if part.startswith("kanon-graph "):
                yield shlex.split(part)[1:]


@pytest.fixture
def restore_registries(tmp_path):
    algorithms = dict(kg.registry._ALGORITHMS)
    metrics = dict(kg.metrics._registry._METRICS)
    yield
    for name, module in list(sys.modules.items()):  # modules a page wrote, e.g. plugins
        if str(getattr(module, "__file__", None) or "").startswith(str(tmp_path)):
            del sys.modules[name]
    kg.registry._ALGORITHMS.clear()
    kg.registry._ALGORITHMS.update(algorithms)
    kg.metrics._registry._METRICS.clear()
    kg.metrics._registry._METRICS.update(metrics)


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
def test_page_code_runs(page, tmp_path, monkeypatch, capsys, restore_registries):
    blocks = code_blocks(page)
    python = "\n".join(code for lang, code, _ in blocks if lang == "python")
    if "KANON_GRAPH_DATA" in python and not os.environ.get("KANON_GRAPH_DATA"):
        pytest.skip("KANON_GRAPH_DATA is not set; this page reads the shared data")
    if ("import dask" in python or "--engine dask" in page.read_text()) \
            and not kg.scale.dask_available():
        pytest.skip("the optional Dask extra is not installed (pip install "
                    "\"kanon_graph[dask]\"); this page uses it")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace = {"__name__": "__docs__"}
    for lang, code, line in blocks:
        where = f"{page.name}, block at line {line}"
        first = code.lstrip().splitlines()[0] if code.strip() else ""
        if lang == "python" and first.startswith("# file:"):
            (tmp_path / first.split(":", 1)[1].strip()).write_text(code, encoding="utf-8")
        elif lang == "python" and code.lstrip().startswith(">>>"):
            test = doctest.DocTestParser().get_doctest(code, namespace, where, str(page), line)
            runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS
                                           | doctest.NORMALIZE_WHITESPACE)
            report = []
            runner.run(test, out=report.append)
            assert runner.failures == 0, f"{where}:\n" + "".join(report)
        elif lang == "python":
            exec(compile(code, where, "exec"), namespace)
        elif lang in ("bash", "sh", "shell"):
            for argv in cli_commands(code):
                code_ = main(argv)
                _, err = capsys.readouterr()
                assert code_ == 0, f"{where}: kanon-graph {' '.join(argv)} -> {code_}: {err}"


def test_api_page_is_up_to_date():
    """docs/api.md is what docs/make_api.py renders from the current docstrings."""
    spec = importlib.util.spec_from_file_location("make_api", ROOT / "docs" / "make_api.py")
    make_api = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_api)
    committed = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert make_api.render() == committed, "docs/api.md is stale: run python docs/make_api.py"


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
    shown = {Path(t).name for page in PAGES
             for t in re.findall(r"!\[[^\]]*\]\((img/[^)]+)\)", page.read_text())}
    assert shown and shown <= set(make_pictures.PICTURES)
    for path in make_pictures.main(tmp_path):
        assert path.read_bytes()[:4] == b"\x89PNG"
        committed = ROOT / "docs" / "img" / path.name
        assert committed.exists() and committed.stat().st_size < 100_000
