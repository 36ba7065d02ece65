"""The house rule on size (the project's brief): no module over 400 lines, the facade
(``kanon_graph/api.py``) at most 250 (issue 46 item 12: it had grown to 258)."""

from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "kanon_graph"


def _lines(path):
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_facade_is_at_most_250_lines():
    assert _lines(PACKAGE / "api.py") <= 250


def test_no_module_is_over_400_lines():
    over = {str(p.relative_to(PACKAGE)): _lines(p) for p in PACKAGE.rglob("*.py")
            if _lines(p) > 400}
    assert not over
