"""Issue 48 item 5: ``hierarchy suggest`` says what it drafted and draws it."""

import re

import numpy as np
import pandas as pd
import pytest

from kanon_graph.cli import main
from kanon_graph.hierarchy import read_hierarchy


def _table(n=600, seed=3):
    rng = np.random.default_rng(seed)
    jobs = [f"job {chr(97 + i // 6)}{chr(97 + i % 6)}" for i in range(12)]
    return pd.DataFrame({"age": rng.integers(18, 90, n), "job": rng.choice(jobs, n),
                         "sex": rng.choice(["F", "M"], n)})


def _levels(printed, column):
    lines = printed.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith(column + " "))
    return lines[at], lines[at + 1]


def test_suggest_prints_kind_levels_and_the_rows_each_level_groups(tmp_path, capsys):
    table = _table()
    table.to_csv(tmp_path / "t.csv", index=False)
    assert main(["hierarchy", "suggest", str(tmp_path / "t.csv"), "--qi", "age,job,sex",
                 "-o", str(tmp_path / "h")]) == 0
    printed = capsys.readouterr().out
    for column in ("age", "job", "sex"):
        head, levels = _levels(printed, column)
        h = read_hierarchy(tmp_path / "h" / f"{column}.csv")
        shares = re.findall(r"level (\d+): (\d+) nodes?, ([\d.]+)% of rows grouped", levels)
        assert [int(s[0]) for s in shares] == list(range(1, h.height + 1))
        # the share each level groups, recomputed from the written file and the data
        for level, nodes, share in shares:
            level = int(level)
            labels = table[column].astype(str).map(lambda v: h.generalize(v, level))
            values_per_node = table.groupby(labels)[column].nunique()
            grouped = labels.map(values_per_node).gt(1).mean()
            assert abs(float(share) - 100 * grouped) < 0.06
            assert int(nodes) == labels.nunique()
        assert float(shares[-1][2]) == 100.0            # '*' groups every row
    assert "  numeric" in _levels(printed, "age")[0]
    assert "  categorical, 12 values: groups" in _levels(printed, "job")[0]


def test_suggest_pictures_writes_one_png_per_draft(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    _table().to_csv(tmp_path / "t.csv", index=False)
    assert main(["hierarchy", "suggest", str(tmp_path / "t.csv"), "--qi", "age,job,sex",
                 "-o", str(tmp_path / "h"), "--pictures", str(tmp_path / "pics")]) == 0
    assert "drew 3 picture(s)" in capsys.readouterr().out
    for column in ("age", "job", "sex"):
        data = (tmp_path / "pics" / f"{column}.png").read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 2000


def test_suggest_pictures_into_a_file_is_a_one_line_error(tmp_path, capsys):
    _table(50).to_csv(tmp_path / "t.csv", index=False)
    (tmp_path / "taken").write_text("x")
    code = main(["hierarchy", "suggest", str(tmp_path / "t.csv"), "--qi", "age,sex",
                 "-o", str(tmp_path / "h"), "--pictures", str(tmp_path / "taken")])
    err = capsys.readouterr().err
    assert code != 0 and "--pictures" in err and "Traceback" not in err
