"""``kg.privacy``'s public measures on the written release against the verification.

Issue 46, item 5: a certified release must pass the library's own public check
with the same figures. The release is written as a user publishes it
(``res.write``, a CSV; every release with a class at the top and one case in
four, to keep the short run short; the others on ``res.table``), read back as text, and ``kg.privacy.k_anonymity``,
``l_diversity`` and ``t_closeness`` on its cells must give ``res.verification``'s
k, l and t (a row whose quasi-identifiers are all ``*`` is suppressed for both).
Unlike :mod:`tests.fuzz.check`, this uses the library: it checks that its two
readings of a release agree.
"""

from __future__ import annotations

import atexit
import math
import os
import shutil
import tempfile

import pandas as pd

from kanon_graph import privacy

from .check import Finding

# in memory where the system has it: the atomic writer's fsync is then cheap
_FOLDER = tempfile.mkdtemp(prefix="kanon-fuzz-",
                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
atexit.register(shutil.rmtree, _FOLDER, True)      # the folder goes with the process


def written(res, seed):
    """The release as written to a CSV by ``res.write`` and read back, every cell text."""
    path = os.path.join(_FOLDER, f"release-{os.getpid()}-{seed}.csv")
    try:
        res.write(path, seed=seed)
        return pd.read_csv(path, dtype=str, keep_default_na=False)
    finally:
        if os.path.exists(path):
            os.remove(path)


def _on_file(case, res):
    """Whether to write this release (a write costs a few times the check): every release
    with a class the facade counted as suppressed at the top, and one case in four."""
    return bool(res.stats.get("suppressed_at_top")) or case.seed % 4 == 0


def public_findings(case, res):
    """Findings where a public measure on the release differs from the verification.

    Measured on the file ``res.write`` writes (:func:`_on_file`), else on
    ``res.table``, the cells it writes.
    """
    v = res.verification
    if _on_file(case, res):
        table = written(res, max(case.seed, 0))      # the order seed: any fixed one
        if case.sensitive_numeric and case.sensitive in table.columns:
            table[case.sensitive] = pd.to_numeric(table[case.sensitive])
    else:
        table = res.table
    qis = list(case.qis)
    figures = {"k": (privacy.k_anonymity(table, qis), v.k_achieved)}
    if case.l is not None and v.l is not None:
        figures["l"] = (privacy.l_diversity(table, qis, case.sensitive, kind=case.diversity),
                        v.l_achieved)
    if case.t is not None and v.t is not None:
        figures["t"] = (privacy.t_closeness(table, qis, case.sensitive,
                                            ordered=case.sensitive_numeric), v.t_achieved)
    findings = []
    for name, (public, verified) in figures.items():
        if verified is None:              # nothing released: the public measures say 0
            same = public == 0
        else:
            same = math.isclose(public, verified, rel_tol=1e-6, abs_tol=1e-6)
        if not same:
            findings.append(Finding(f"public {name} differs from the verification",
                                    f"kg.privacy on the written release {public!r}, "
                                    f"res.verification {verified!r}"))
    return findings
