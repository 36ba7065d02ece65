"""Where the streamed command line's memory goes (issue 32, item 4).

Usage::

    python benchmarks/profile_stream_memory.py [--n 1000000] [--dir /tmp/kg_memory]

Runs, in this process, the steps of ``kanon-graph anonymize --stream on
--algorithm optimal -k 5`` on the CSV of ``make_census(n, seed=0)`` (written
once by ``bench_memory.py``'s ``prepare``), and prints after each step the
resident set and its peak so far (``VmRSS``, ``VmHWM``) and the peak of the
memory Python and numpy allocated during the step (``tracemalloc``; native
memory such as numba's compiled code is not in it):

* the imports, a warm-up search on 2,000 rows (the streamed search forgoes
  numba, :func:`kanon_graph._jit.numpy_only`; the line says whether numba
  was imported anyway), the count of the tuples (pass 1);
* each step of the pipeline on the counted tuples (encode, plan, the
  algorithm, the release, the check of the cells, the result);
* the write (pass 2).

tracemalloc slows the run; its peaks are the step's own.
"""

from __future__ import annotations

import argparse
import os
import sys
import tracemalloc
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_memory  # noqa: E402


def status():
    with open("/proc/self/status") as handle:
        fields = dict(line.split(":", 1) for line in handle)
    return (f"resident {int(fields['VmRSS'].split()[0]) / 1024:7.1f} MiB, peak so far "
            f"{int(fields['VmHWM'].split()[0]) / 1024:7.1f} MiB")


def traced():
    peak = tracemalloc.get_traced_memory()[1] if tracemalloc.is_tracing() else 0
    tracemalloc.reset_peak() if tracemalloc.is_tracing() else None
    return f"traced peak {peak / 2**20:7.1f} MiB"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--dir", type=Path, default=Path("/tmp/kg_memory"))
    args = parser.parse_args(argv)
    path, hierarchies, qis = bench_memory.prepare(args.n, args.dir)
    small, _, _ = bench_memory.prepare(2000, args.dir)
    print(f"# load average before: {bench_memory.load()}")
    print(f"{'start':<22} {status()}")
    warnings.simplefilter("ignore")
    import kanon_graph.pipeline.run as pipeline
    from kanon_graph.cli import build_parser
    from kanon_graph.cli._common import Progress, give_back_free_memory
    from kanon_graph.cli._stream import count_tuples, run_counted
    from kanon_graph.cli._stream_write import write_release

    print(f"{'imports':<22} {status()}")

    def command(source, out):
        return build_parser("anonymize").parse_args(["anonymize", str(source), "--qi", ",".join(qis),
                                   "--hierarchies", str(hierarchies), "-k", "5",
                                   "--algorithm", "optimal", "-o", str(out),
                                   "--stream", "on", "-q"])

    quiet = Progress(True)
    warm = command(small, args.dir / "profile_small.csv")
    run_counted(count_tuples(warm, quiet), warm, quiet)
    give_back_free_memory()
    print(f"{'warm-up, 2,000 rows':<22} {status()}; numba imported: {'numba' in sys.modules}")
    for name in ("encode_input", "plan_run", "run_algorithm_step", "release_partition",
                 "verify_cells", "result_of"):
        def step(*a, _function=getattr(pipeline, name), _name=name, **k):
            traced()
            out = _function(*a, **k)
            print(f"  {_name:<20} {status()}, {traced()}")
            return out
        setattr(pipeline, name, step)
    run = command(path, args.dir / "profile_release.csv")
    tracemalloc.start()
    counted = count_tuples(run, quiet)
    print(f"{'count (pass 1)':<22} {status()}, {traced()}; {len(counted.tuples):,} tuples")
    give_back_free_memory()
    result = run_counted(counted, run, quiet)
    print(f"{'search':<22} {status()}")
    give_back_free_memory()
    write_release(result, counted, run, quiet)
    print(f"{'write (pass 2)':<22} {status()}, {traced()}")
    os.remove(args.dir / "profile_release.csv")
    print(f"# load average after: {bench_memory.load()}")


if __name__ == "__main__":
    main()
