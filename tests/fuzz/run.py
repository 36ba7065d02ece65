"""Run fuzz cases and sort what happens into outcomes.

``python -m tests.fuzz.run --n 2000 [--jobs 2] [--start 0]`` runs the long
mode: cases ``start .. start + n - 1`` (one seed each, algorithms taken in
turn), then prints per-algorithm totals (releases checked, violations,
refusals, self-rejections, crashes) and one table row per failure category
with a minimal reproducer (the smallest failing case, shrunk by deleting
rows while the category persists).

An outcome is one of

* ``ok``: a release came back and the independent checker found nothing;
* ``violation``: a release came back and broke a property (see ``check``);
* ``refusal``: a one-line ``ValueError`` from kanon_graph's own code, raised
  before the algorithm ran or by the algorithm's own argument checks; or the
  facade's ``PrivacyError`` for a release whose class generalized to ``*``
  in every quasi-identifier, counted as suppressed, breaks ``suppression=``
  (docs/privacy.md, "Suppression": the documented rule, listed among the
  refusals by message);
* ``missed refusal``: an impossible request produced a release;
* ``rejected``: the library's self-verification raised ``PrivacyError``
  (the algorithm proposed a release it could not stand behind);
* ``crash``: any other exception, or a ``ValueError`` that is not a clear
  one-line message from kanon_graph (for example numpy's).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import re
import sys
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import dataclass

import numpy as np

import kanon_graph as kg
from kanon_graph import registry

from .check import check_release
from .generate import AUTO, algorithm_info, make_case
from .public import public_findings

OK, VIOLATION, REFUSAL, MISSED, REJECTED, CRASH = (
    "ok", "violation", "refusal", "missed refusal", "rejected", "crash")
FAILURES = (VIOLATION, MISSED, REJECTED, CRASH)


@dataclass
class Outcome:
    """What one case ended in; ``category`` groups failures of one kind."""

    case: object
    kind: str
    category: str = ""
    detail: str = ""
    seconds: float = 0.0

    @property
    def failed(self):
        return self.kind in FAILURES


def impossible(case):
    """Why no release can satisfy the request (``None`` when one can), judged independently."""
    info = algorithm_info(case.algorithm)
    if info.derives_k is None and case.k > case.n:
        return "k exceeds the number of records"
    if info.needs_hierarchies and any(q not in case.rows for q in case.qis):
        return "the algorithm needs a hierarchy for every quasi-identifier"
    if case.respect_boundaries and not info.supports_boundaries:
        return "the algorithm cannot respect boundaries"
    s = case.table[case.sensitive]
    if case.l is not None:
        if case.diversity == "distinct" and s.nunique() < case.l:
            return "l exceeds the distinct sensitive values"
        p = s.value_counts(normalize=True).to_numpy()
        # (auto's candidates without hierarchies cannot use a budget that way, and it
        # refuses naming the algorithms that may: judged by the whole table, as before)
        may_suppress = case.algorithm != AUTO and info.supports_suppression and (
            case.suppression if case.suppression is not None
            else getattr(info, "default_suppression", None))
        # suppressing records of the commonest value raises the released records' entropy:
        # only without suppression does the whole table's entropy bound every release
        if case.diversity == "entropy" and not may_suppress \
                and np.exp(-(p * np.log(p)).sum()) < case.l - 1e-9:
            return "entropy l exceeds the whole table's"
    return None


@contextlib.contextmanager
def _spied(name, started):
    """Record in ``started`` when the registered algorithm ``name`` begins to run."""
    if name == AUTO:                 # the facade's default: no registry entry to spy on
        yield
        return
    info = registry.get_algorithm(name)
    inner = info.function

    def spy(*args, **kwargs):
        started.append(True)
        return inner(*args, **kwargs)

    spy.__wrapped__ = inner          # keep the signature the registry inspects
    registry._ALGORITHMS[name] = dataclasses.replace(info, function=spy)
    try:
        yield
    finally:
        registry._ALGORITHMS[name] = info


def _clear_refusal(error):
    """A one-line ValueError raised by kanon_graph's own code (not numpy's or pandas')."""
    frames = traceback.extract_tb(error.__traceback__)
    last = frames[-1] if frames else None
    # raised by a ``raise`` statement in kanon_graph, not by a numpy / pandas call made there
    ours = last is not None and "kanon_graph" in last.filename \
        and (last.line or "").lstrip().startswith("raise")
    return ours and "\n" not in str(error) and str(error).strip() != ""


def _declined(error):
    """An algorithm declining a privacy model it does not take: the facade's refusal of an
    undeclared model (the registry's ``models``), or the algorithm's own."""
    text = str(error)
    return "cannot meet the requested" in text or " does not take " in text


def _shape(message):
    """A message with its numbers and quoted names blanked, to group failures by kind."""
    text = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", str(message))
    text = re.sub(r"[-+]?\d+(\.\d+)?(e[-+]?\d+)?", "N", text)
    return text[:90]


def run_case(case):
    """Run one case and classify its outcome."""
    info = algorithm_info(case.algorithm)
    reason = impossible(case)
    started = []
    t0 = time.perf_counter()
    try:
        with _spied(case.algorithm, started):
            res = kg.anonymize(case.table, case.schema(), case.request_k(), **case.kwargs())
    except kg.PrivacyError as error:
        if "released with every quasi-identifier '*'" in str(error) \
                and case.suppression is not None:
            return Outcome(case, REFUSAL, f"{case.algorithm}: top class over the budget",
                           str(error), time.perf_counter() - t0)
        return Outcome(case, REJECTED, f"{case.algorithm}: PrivacyError {_shape(error)}",
                       str(error), time.perf_counter() - t0)
    except ValueError as error:
        seconds = time.perf_counter() - t0
        if case.algorithm == AUTO and _clear_refusal(error):
            if reason is not None:   # the default refuses what nothing can release: right
                return Outcome(case, REFUSAL, _shape(error), str(error), seconds)
            started.append(True)     # a feasible request: any refusal is judged as a run's
        if _clear_refusal(error) and not started:
            return Outcome(case, REFUSAL, _shape(error), str(error), seconds)
        if _clear_refusal(error) and reason is None:
            if case.boundaries_on() or _declined(error):
                # boundaries may make a request infeasible (the oracle cannot tell), and an
                # algorithm may decline a criterion it declares it does not support
                return Outcome(case, REFUSAL, _shape(error), str(error), seconds)
            return Outcome(case, CRASH, f"{case.algorithm}: feasible request refused "
                           f"({_shape(error)[:50]})", str(error), seconds)
        if _clear_refusal(error) and _declined(error):
            # an algorithm declining a criterion it declares it does not support: a refusal,
            # whether or not the request was possible at all
            return Outcome(case, REFUSAL, _shape(error), str(error), seconds)
        if _clear_refusal(error):
            return Outcome(case, CRASH, f"{case.algorithm}: impossible request refused only "
                           f"inside the algorithm", str(error), seconds)
        return Outcome(case, CRASH, f"{case.algorithm}: ValueError {_shape(error)}",
                       str(error), seconds)
    except Exception as error:    # noqa: BLE001 -- any other exception is the finding
        return Outcome(case, CRASH, f"{case.algorithm}: {type(error).__name__} "
                       f"{_shape(error)}", "".join(traceback.format_exception(error))[-600:],
                       time.perf_counter() - t0)
    seconds = time.perf_counter() - t0
    if reason is not None:
        return Outcome(case, MISSED, f"{case.algorithm}: not refused ({reason})", reason, seconds)
    if case.algorithm == AUTO:       # judged as the algorithm auto chose
        info = registry.get_algorithm(res.stats["auto"]["chose"])
    if info.derives_k is not None:   # checked at the k the algorithm derived
        case = dataclasses.replace(case, k=res.k)
    findings = check_release(case, res, recoding=info.recoding,
                             supports_suppression=info.supports_suppression,
                             withholds=info.samples_records)
    findings += public_findings(case, res)      # kg.privacy on the written file agrees
    if findings:
        first = findings[0]
        return Outcome(case, VIOLATION, f"{case.algorithm}: {first.category}",
                       "; ".join(str(f) for f in findings[:3]), seconds)
    return Outcome(case, OK, seconds=seconds)


def shrink(outcome, budget=40):
    """A smaller case (fewer rows) failing in the same category, by greedy row deletion."""
    case, best = outcome.case, outcome
    tries = 0
    chunk = max(1, case.n // 2)
    while chunk >= 1 and tries < budget:
        progressed = False
        start = 0
        while start < best.case.n and tries < budget and best.case.n > 1:
            keep = [i for i in range(best.case.n) if not start <= i < start + chunk]
            if not keep:
                break
            tries += 1
            trial = run_case(best.case.with_rows(keep))
            if trial.category == outcome.category:
                best, progressed = trial, True
            else:
                start += chunk
        if not progressed:
            chunk //= 2
    for q in list(best.case.qis):
        if len(best.case.qis) > 1 and tries < 2 * budget:
            tries += 1
            trial = run_case(best.case.without_qi(q))
            if trial.category == outcome.category:
                best = trial
    trial = run_case(best.case.trimmed())
    return trial if trial.category == outcome.category else best


def _one(seed):
    return run_case(make_case(seed))


def _one_pair(pair):
    return run_case(make_case(*pair))


def run(seeds, jobs=1):
    """Outcomes of the cases of ``seeds`` (in ``jobs`` processes)."""
    if jobs > 1:
        import multiprocessing
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            return pool.map(_one, seeds, chunksize=4)
    return [_one(s) for s in seeds]


def totals(outcomes):
    """``{algorithm: Counter of outcome kinds}``."""
    out = defaultdict(Counter)
    for o in outcomes:
        out[o.case.algorithm][o.kind] += 1
    return out


def report(outcomes, *, shrink_budget=40, out=sys.stdout):
    """Print the per-algorithm totals and the failure table with reproducers."""
    table = totals(outcomes)
    cols = ("ok", VIOLATION, REFUSAL, MISSED, REJECTED, CRASH)
    print(f"{'algorithm':<22}{'checked':>8}" + "".join(f"{c:>16}" for c in cols), file=out)
    for name in sorted(table):
        c = table[name]
        print(f"{name:<22}{c['ok'] + c[VIOLATION] + c[MISSED]:>8}"
              + "".join(f"{c[k]:>16}" for k in cols), file=out)
    failures = defaultdict(list)
    for o in outcomes:
        if o.failed:
            failures[o.category].append(o)
    print(f"\n{len(failures)} failure categories", file=out)
    for category, group in sorted(failures.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        smallest = min(group, key=lambda o: (o.case.n * len(o.case.qis), o.case.seed))
        small = shrink(smallest, shrink_budget) if shrink_budget else smallest
        print(f"\n## {category}  ({len(group)} cases; seeds {[o.case.seed for o in group[:8]]})",
              file=out)
        print(f"detail: {small.detail[:400]}", file=out)
        print(f"reproducer ({small.case.n} of the {smallest.case.n} rows of "
              f"make_case({small.case.seed}, {small.case.algorithm!r})):", file=out)
        print(small.case.describe(), file=out)
    refusals = Counter(o.category for o in outcomes if o.kind == REFUSAL)
    print("\nrefusals by message:", file=out)
    for msg, count in refusals.most_common():
        print(f"  {count:>5}  {msg}", file=out)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=2000, help="number of cases")
    parser.add_argument("--start", type=int, default=0, help="first seed")
    parser.add_argument("--jobs", type=int, default=2, help="worker processes")
    parser.add_argument("--shrink", type=int, default=40, help="runs spent shrinking each "
                        "category's reproducer (0: none)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    outcomes = run(range(args.start, args.start + args.n), jobs=args.jobs)
    print(f"{len(outcomes)} cases (seeds {args.start}..{args.start + args.n - 1}) in "
          f"{time.perf_counter() - t0:.0f} s")
    report(outcomes, shrink_budget=args.shrink)
    return 1 if any(o.failed for o in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
