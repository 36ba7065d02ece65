"""The streamed command line forgoes numba (issue 47, CLI peak memory).

numba's import, CPU target and LLVM hold about 125 MiB of a process however
small the kernel: more than the streamed 1M-row census's whole search. The
streamed search runs inside :func:`kanon_graph._jit.numpy_only`, where the
lattice's frequency engine keeps its sets packed and rolls them up by numpy.
Behaviour, not memory figures: numba and its kernels are never imported, the
release is the in-memory one byte for byte, and the numpy roll-up gives the
compiled roll-up's groups and counts.
"""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

import kanon_graph as kg
from kanon_graph import _jit
from kanon_graph.lattice import FrequencyEngine
from kanon_graph.lattice._numpy_rollup import group_keys, rollup_keys
from kanon_graph.lattice._rollup_kernels import _hash_keys, packed_layout, rollup_packed_layout

ROOT = Path(__file__).resolve().parents[1]
CENSUS_QIS = ",".join(kg.datasets.census_schema().quasi_identifiers)


@pytest.fixture(scope="module")
def census(tmp_path_factory):
    folder = tmp_path_factory.mktemp("census")
    kg.datasets.make_census(3000, seed=2).to_csv(folder / "census.csv", index=False)
    (folder / "h").mkdir()
    for name, hierarchy in kg.datasets.census_schema().hierarchies.items():
        kg.write_hierarchy(hierarchy, folder / "h" / f"census_hierarchy_{name}.csv")
    return folder


def _cli_in_a_fresh_process(*argv):
    """Run the CLI in a new interpreter; its exit code and the heavy modules it imported."""
    code = textwrap.dedent("""
        import json, sys
        from kanon_graph.cli import main
        code = main(sys.argv[1:])
        print(json.dumps([code, sorted(m for m in ("numba", "llvmlite") if m in sys.modules)]))
    """)
    out = subprocess.run([sys.executable, "-c", code, *map(str, argv)], capture_output=True,
                         text=True, cwd=ROOT, check=True)
    return json.loads(out.stdout.splitlines()[-1])


@pytest.mark.parametrize("algorithm", ["optimal", "incognito"])
def test_the_streamed_global_search_never_imports_numba(census, tmp_path, algorithm):
    argv = ["anonymize", census / "census.csv", "--qi", CENSUS_QIS, "--hierarchies",
            census / "h", "-k", "5", "--algorithm", algorithm, "--order-seed", "3", "-q"]
    code, heavy = _cli_in_a_fresh_process(*argv, "-o", tmp_path / "on.csv", "--stream", "on",
                                          "--chunk-rows", "700")
    assert code == 0 and heavy == []
    # the in-memory run (numba allowed) writes the same bytes
    code, _ = _cli_in_a_fresh_process(*argv, "-o", tmp_path / "off.csv", "--stream", "off")
    assert code == 0
    assert (tmp_path / "on.csv").read_bytes() == (tmp_path / "off.csv").read_bytes()


def test_numpy_only_turns_compiling_off_for_its_block_and_engines_made_in_it():
    before = _jit.compiling()
    with _jit.numpy_only():
        assert not _jit.compiling()
        with _jit.numpy_only():                         # nested blocks
            assert not _jit.compiling()
        assert not _jit.compiling()
        data = kg.encode(kg.datasets.paper_003_table(), kg.datasets.paper_003_schema())
        assert FrequencyEngine(data).compiled is False
    assert _jit.compiling() == before == _jit.HAVE_NUMBA


def test_a_kernel_not_compiled_runs_as_python_inside_numpy_only():
    kernel = _jit.njit(cache=False)(lambda x: x + 1)    # no declared work: would compile
    with _jit.numpy_only():
        assert kernel(1) == 2
    assert not kernel.compiled


def _random_packed(rng, widths, m):
    """``m`` distinct packed keys of attributes ``widths`` bits wide, and counts."""
    shifts, masks = packed_layout(widths)
    codes = [rng.integers(0, 1 << w, size=4 * m) if w else np.zeros(4 * m, dtype=np.int64)
             for w in widths]
    keys = np.zeros(4 * m, dtype=np.int64)
    for code, shift in zip(codes, shifts):
        keys |= code.astype(np.int64) << int(shift)
    keys = rng.permutation(np.unique(keys))[:m]
    return keys, rng.integers(1, 9, size=len(keys)).astype(np.int64), shifts, masks


@pytest.mark.parametrize("seed", range(6))
def test_the_numpy_roll_up_gives_the_compiled_roll_ups_groups_and_counts(seed):
    rng = np.random.default_rng(seed)
    widths = [int(w) for w in rng.integers(0, 7, size=int(rng.integers(1, 6)))]
    keys, counts, shifts, masks = _random_packed(rng, widths, int(rng.integers(1, 3000)))
    # each attribute mapped to a coarser code (or kept), as a roll-up to a more general node
    maps = [None if rng.random() < 0.3 else
            np.sort(rng.integers(0, max(1 << w, 1), size=1 << w)) // 2 for w in widths]
    target = [max(int(m.max()), 0).bit_length() if m is not None else w
              for m, w in zip(maps, widths)]
    target_shifts, _ = packed_layout(target)
    flat, offsets = np.zeros(0, dtype=np.int64), []
    for m in maps:
        offsets.append(-1 if m is None else len(flat))
        flat = flat if m is None else np.concatenate([flat, m.astype(np.int64)])
    want_keys, want_counts, _ = rollup_packed_layout(
        keys, counts, shifts, masks, flat, np.asarray(offsets, dtype=np.int64), target_shifts,
        sum(target))
    got_keys, got_counts = rollup_keys(keys, counts, shifts, masks, maps, target_shifts)
    order = np.argsort(want_keys)
    assert np.array_equal(got_keys, want_keys[order])
    assert np.array_equal(got_counts, want_counts[order])
    assert np.all(np.diff(got_keys) > 0)


@pytest.mark.parametrize("seed", range(4))
def test_numpy_grouping_gives_the_compiled_hash_groups(seed):
    rng = np.random.default_rng(seed)
    key = rng.integers(0, int(rng.integers(1, 5000)), size=int(rng.integers(1, 20000)))
    weights = rng.integers(1, 5, size=len(key)).astype(np.int64)
    want_keys, want_counts, _ = _hash_keys(key.astype(np.int64), weights,
                                           max(int(2 * len(key) - 1).bit_length(), 4), -1)
    got_keys, got_counts = group_keys(key, weights)
    order = np.argsort(want_keys)
    assert np.array_equal(got_keys, want_keys[order])
    assert np.array_equal(got_counts, want_counts[order])
