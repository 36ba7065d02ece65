"""``benchmarks/compare.py --only local --quick``: issue 12's table of local recoders.

Runs the script as a user would (a subprocess on a 3,000-row Adult sample,
k = 5 and 10) and checks what it writes: a row per variant and k with finite
measures, ARX's constant rows, and the Loss-against-k figure.
"""

import csv
import math
import subprocess
import sys
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "benchmarks"
sys.path.insert(0, str(BENCH))
from compare_local import ARX_LABEL, VARIANTS, parse_skip  # noqa: E402


def _run(*argv, data=None, cwd=None):
    env_data = ["--data", str(data)] if data else []
    return subprocess.run([sys.executable, str(BENCH / "compare.py"), *env_data, *argv],
                          capture_output=True, text=True, timeout=1200, cwd=cwd)


@pytest.fixture(scope="module")
def quick(adult_dir, tmp_path_factory):
    out = tmp_path_factory.mktemp("local")
    done = _run("--quick", "--only", "local", "--out", str(out), data=adult_dir.parent)
    assert done.returncode == 0, done.stderr[-2000:]
    with open(out / "local.csv", newline="") as fh:
        return out, list(csv.DictReader(fh)), done.stdout


def test_quick_csv_has_a_measured_row_per_variant_and_k(quick):
    _, rows, _ = quick
    got = {(r["algorithm"], int(r["k"])) for r in rows}
    want = {(label, k) for label, _, _ in VARIANTS for k in (5, 10)}
    assert want <= got
    for r in rows:
        if r["algorithm"] == ARX_LABEL:
            continue
        assert r["error"] == "", r
        assert int(r["rows"]) == 3000
        loss = float(r["loss_mean"])
        assert 0.0 <= loss <= 1.0 and float(r["seconds"]) > 0, r
        assert float(r["cpu_seconds"]) > 0
        assert 0.0 <= float(r["gcp"]) <= 1.0
        assert float(r["discernibility"]) >= 3000 * int(r["k"])  # every class has >= k rows


def test_quick_loss_grows_from_k5_to_k10_for_the_greedy_clusterers(quick):
    _, rows, _ = quick
    loss = {(r["algorithm"], int(r["k"])): float(r["loss_mean"]) for r in rows
            if r["algorithm"] != ARX_LABEL}
    for label in ("bottom-up", "k-member"):
        assert loss[label, 10] >= loss[label, 5]


def test_quick_arx_reference_rows(quick):
    _, rows, stdout = quick
    arx = {int(r["k"]): r for r in rows if r["algorithm"] == ARX_LABEL}
    assert set(arx) == {5, 10}
    # one formula: ARX's release scored as ours; its own 1 - granularity kept apart
    assert float(arx[5]["loss_mean"]) == pytest.approx(0.0569)
    assert float(arx[10]["loss_mean"]) == pytest.approx(0.0790)
    assert float(arx[5]["arx_granularity"]) == pytest.approx(0.0623)
    assert float(arx[5]["seconds"]) == pytest.approx(2.69)
    assert f"| {ARX_LABEL} | 0.0569 | 2.69 |" in stdout
    assert "ARX's own 1 - granularity of it, a different measure: k=5: 0.0623" in stdout
    assert "| mst split=paper |" in stdout


def test_quick_png_is_written(quick):
    out, _, _ = quick
    png = out / "local_loss.png"
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert png.stat().st_size > 5000


def test_parse_skip_reads_labels_and_ks():
    assert parse_skip("k-member:20,50; mst split=paper:50") == {
        "k-member": {20, 50}, "mst split=paper": {50}}
    assert parse_skip("") == {}


@pytest.mark.parametrize("text", ["kmember:5", "k-member", "k-member:five"])
def test_bad_skip_is_one_line_error_naming_the_option(text):
    with pytest.raises(ValueError, match="--local-skip"):
        parse_skip(text)


def test_bad_skip_on_the_command_line_exits_before_loading_data(tmp_path):
    done = _run("--only", "local", "--local-skip", "nope:5", "--out", str(tmp_path),
                data=tmp_path)
    assert done.returncode == 2
    assert "--local-skip" in done.stderr and "Traceback" not in done.stderr


def test_skipped_runs_still_get_a_row(adult_table, adult_schema):
    from compare_local import local_rows

    sample = adult_table.sample(300, random_state=0)
    skip = {label: {5} for label, _, _ in VARIANTS if label != "mondrian"}
    rows = local_rows(sample, adult_schema, [5, 10], skip)
    by = {(r["algorithm"], r["k"]): r for r in rows}
    for label, _, _ in VARIANTS:
        assert (label, 5) in by and (label, 10) in by
        if label != "mondrian":
            assert by[label, 5]["error"] == "skipped by --local-skip"
            assert "loss_mean" not in by[label, 5]
        assert by[label, 10]["error"] == ""
    assert by["mondrian", 5]["error"] == ""
