"""The package ships its type hints (PEP 561) and mypy checks the public modules."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

import kanon_graph

tomllib = pytest.importorskip("tomllib")  # Python 3.11+

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def test_py_typed_marker_is_in_the_package_folder():
    assert (Path(kanon_graph.__file__).parent / "py.typed").is_file()


def test_pyproject_ships_the_marker_as_package_data():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]["kanon_graph"]
    assert "py.typed" in data


def test_mypy_checks_the_public_modules():
    files = set(PYPROJECT["tool"]["mypy"]["files"])
    public = {"kanon_graph/api.py", "kanon_graph/result.py", "kanon_graph/schema.py",
              "kanon_graph/registry.py", "kanon_graph/metrics/evaluate.py", "kanon_graph/io",
              "kanon_graph/hierarchy"}
    assert public <= files
    for name in files:
        assert (ROOT / name).exists(), name
    assert "mypy" in " ".join(PYPROJECT["project"]["optional-dependencies"]["typing"])


@pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                    reason="mypy is not installed (pip install -e '.[typing]'; .ci/run runs it)")
def test_public_modules_pass_mypy():
    run = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True,
                         text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_public_modules_must_be_fully_typed():
    """Every function of the public modules is annotated (mypy's disallow_untyped_defs)."""
    strict = [o for o in PYPROJECT["tool"]["mypy"].get("overrides", [])
              if o.get("disallow_untyped_defs")]
    modules = {m for o in strict for m in o["module"]}
    wanted = {"kanon_graph.api", "kanon_graph.result", "kanon_graph.schema",
              "kanon_graph.registry", "kanon_graph.metrics.evaluate", "kanon_graph.io.*",
              "kanon_graph.hierarchy.*"}
    assert wanted <= modules
