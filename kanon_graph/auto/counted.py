"""``algorithm="auto"`` on a Dask table: what runs on its counted tuples, without trials.

:func:`kanon_graph.anonymize` on a ``dask.dataframe.DataFrame`` calls
:func:`choose_counted` in place of :func:`kanon_graph.auto.choice.choose`: the
table is counted into its distinct (quasi-identifier, sensitive) tuples on
the workers (:mod:`kanon_graph.scale.dask_input`) and the client never holds
one row per record, so no trial (which runs on records, or a sample of
them) runs. The rule follows what the quality suite teaches in memory
(:func:`kanon_graph.auto.choice.taught`).
"""

from __future__ import annotations

from .choice import (AUTO_SUPPRESSION, SENSITIVE_TRIAL, STEPWISE_LATTICE_LIMIT, TAUGHT_REASONS,
                    AutoChoice, lattice_nodes, reason_key, taught)
from ..registry import get_algorithm

__all__ = ["choose_counted"]


def choose_counted(data, model, options, progress=None):
    """``auto`` on a Dask table's counted tuples (:func:`kanon_graph.anonymize` on Dask).

    No trials: a trial runs on records (or a sample of them), and a Dask
    table's client holds one row per distinct tuple. ``stepwise`` runs
    (counting by weight, :mod:`kanon_graph.stepwise`) wherever it can: every
    quasi-identifier has a hierarchy and the lattice has at most
    :data:`STEPWISE_LATTICE_LIMIT` nodes. That is what :func:`taught` runs
    in memory under every model; with generalization boundaries the
    in-memory ``auto`` runs trials, with ``stepwise`` first
    (:data:`SENSITIVE_TRIAL`), and a Dask table runs that first trial alone. Elsewhere ``optimal`` (a global recoding) with
    :data:`AUTO_SUPPRESSION` unless a budget is given, as before local
    recoding ran on Dask. A quasi-identifier without a hierarchy never gets
    here from :func:`kanon_graph.anonymize`: ``auto`` on such a Dask table is
    refused before it is counted (:mod:`kanon_graph.scale.dask_input`), since
    ``optimal`` would fail on it too and the hierarchy-free default, ``flat``,
    recodes locally. ``options``: :class:`kanon_graph.pipeline.run.Options`.
    """
    extra = dict(options.extra)
    bounded = bool(options.respect_boundaries)
    name = taught(data, model, respect_boundaries=bounded, options=extra)
    lacking = [a.name for a in data.attributes if a.hierarchy is None]
    nodes = lattice_nodes(data)
    try:
        info = get_algorithm(SENSITIVE_TRIAL)
    except ValueError:                                # unregistered by the user
        info = None
    fits = info is not None and not lacking and nodes <= STEPWISE_LATTICE_LIMIT \
        and (not extra or set(extra) <= set(info.options()))
    on_dask = "a Dask table, whose client holds one row per distinct tuple: "
    if name == "stepwise":
        reason = on_dask + "as in memory, " + TAUGHT_REASONS[reason_key(name, model)]
    elif fits:
        name = SENSITIVE_TRIAL
        why = "l-diversity" if model.l is not None else \
            "generalization boundaries" if bounded else "this model"
        reason = (on_dask + f"stepwise, the first of the trials the in-memory auto runs with "
                  f"{why}, without the trials (they need the records)")
    else:
        name = "optimal"
        suppression = AUTO_SUPPRESSION if options.suppression is None else options.suppression
        cause = (f"{lacking} have no hierarchy" if lacking else
                 f"the lattice has {nodes} nodes, more than {STEPWISE_LATTICE_LIMIT}"
                 if nodes > STEPWISE_LATTICE_LIMIT else "stepwise does not take the options")
        return AutoChoice(name, suppression, None, {
            "chose": name, "rows": data.n, "tried": [],
            "reason": (f"{on_dask}stepwise cannot run ({cause}); the global optimal with "
                       f"suppression {suppression:g}")})
    return AutoChoice(name, options.suppression, None,
                      {"chose": name, "reason": reason, "rows": data.n, "tried": []})
