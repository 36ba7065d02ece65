"""``kanon-graph demo`` and ``kanon-graph algorithms``."""

from __future__ import annotations

from ..auto.choice import auto_text
from ..api import anonymize
from ..registry import algorithms, get_algorithm
from ._common import frame_text, metric_lines


def register(commands):
    demo = commands.add_parser("demo", help="anonymize the built-in synthetic census table",
                               description="Anonymize the built-in synthetic census table "
                               "and print the released table, its classes and its loss.")
    demo.add_argument("-k", type=int, default=5, help="k of k-anonymity (default 5)")
    demo.add_argument("-n", type=int, default=2000, help="number of rows (default 2000)")
    demo.add_argument("--seed", type=int, default=0, help="seed of the synthetic table")
    demo.add_argument("--algorithm", default="auto", help="a registered algorithm, or auto "
                      "(default; see 'anonymize --help')")
    demo.add_argument("--rows", type=int, default=8, help="rows of each table to print")
    demo.set_defaults(handler=run_demo)
    listing = commands.add_parser("algorithms", help="list the registered algorithms",
                                  description="List the registered algorithms and what "
                                  "they declare.")
    listing.set_defaults(handler=run_algorithms)


def run_demo(args, out):
    from .. import datasets

    table = datasets.make_census(args.n, seed=args.seed)
    schema = datasets.census_schema()
    res = anonymize(table, schema, k=args.k, algorithm=args.algorithm)
    rows = max(args.rows, 0)
    qis = ", ".join(schema.quasi_identifiers)
    print(f"Synthetic census table: {len(table)} rows (seed {args.seed}), "
          f"quasi-identifiers {qis}.", file=out)
    print(f"Anonymized with {res.algorithm} at k={res.k} in {res.stats['seconds']:.2f} s: "
          f"{res.verification.describe()}.", file=out)
    if res.stats.get("auto"):
        print(f"(algorithm auto {auto_text(res.stats['auto'])}.)", file=out)
    if res.levels is not None:
        print("Generalization levels (level/height): " + ", ".join(
            f"{a} {l}/{schema.hierarchy(a).height}" for a, l in res.levels.items()), file=out)
    print(f"\nReleased table (first {rows} of {len(res.table)} rows):", file=out)
    print(frame_text(res.table.head(rows)), file=out)
    summary = res.class_summary()
    sizes = summary["size"]
    print(f"\nEquivalence classes: {len(summary)}, sizes {sizes.min()} to {sizes.max()} "
          f"(the {min(rows, len(summary))} largest):", file=out)
    print(frame_text(summary.head(rows)), file=out)
    print("\nInformation loss (better: lower/higher; see docs/metrics.md):", file=out)
    print("\n".join(metric_lines(res.metrics)), file=out)
    return 0


def run_algorithms(args, out):
    rows = []
    for name in algorithms():
        info = get_algorithm(name)
        options = ", ".join(info.options()) or "-"
        yes_no = ["yes" if flag else "no" for flag in
                  (info.supports_suppression, getattr(info, "supports_boundaries", False))]
        rows.append((name, info.recoding, "required" if info.needs_hierarchies else "optional",
                     *yes_no, options, info.description))
    header = ("name", "recoding", "hierarchies", "suppression", "boundaries", "options",
              "description")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header) - 1)]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)) + "  " + row[-1], file=out)
    return 0
