"""What a privacy report says, as plain data (the JSON report; the HTML draws it).

Everything is measured here from the two tables and the schema: the privacy
model is checked from the released cells (:func:`kanon_graph.evaluate`),
risk is assessed on the original's and on the released classes
(:mod:`kanon_graph.risk`), and information loss, levels and class sizes come
from the rebuilt release. What goes into the report is counts, measures,
column names and *released* labels only: no value of an identifier column and
no original value of a quasi-identifier is copied into it.
"""

from __future__ import annotations

import datetime as _dt
import math

import numpy as np

__all__ = ["build_report", "SECTIONS", "dp_statement", "json_ready"]

#: The report's sections, in order: ``(id, title)``.
SECTIONS = (
    ("summary", "Summary"),
    ("privacy", "Privacy model"),
    ("risk", "Re-identification risk"),
    ("loss", "Information loss"),
    ("classes", "Equivalence classes"),
    ("hierarchies", "Generalization levels"),
    ("lattice", "Lattice position"),
    ("suppression", "Suppression"),
    ("provenance", "Provenance"),
)


def _number(value):
    """A JSON-safe number: NaN and infinities become None."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def json_ready(obj):
    """``obj`` as strict JSON data: numpy scalars made Python's, NaN and infinity None."""
    if isinstance(obj, dict):
        return {str(k): json_ready(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_ready(v) for v in obj]
    if isinstance(obj, (bool, np.bool_)):
        return bool(obj)
    if isinstance(obj, (int, np.integer)):
        return int(obj)
    if isinstance(obj, (float, np.floating)):
        return _number(obj)
    return obj


def _privacy(ev, schema, released):
    v = ev.verification
    present = [c for c in schema.identifiers if c in released.columns]
    return {"holds": bool(v.holds) and not present, "described": v.describe(),
            "k": v.k, "k_achieved": v.k_achieved, "l": v.l, "l_achieved": v.l_achieved,
            "diversity": v.diversity if v.l is not None else None, "t": v.t,
            "t_achieved": v.t_achieved, "t_distance": v.t_distance,
            "sensitive": v.sensitive,
            "checked_on": "the released cells",
            "identifier_columns": list(schema.identifiers),
            "identifier_columns_released": present}


def dp_statement(dp, seed=None):
    """The privacy section's statement of a SafePub release (``result.stats["dp"]``).

    The guarantee is the algorithm's, not measured from the cells: Bild,
    Kuhn and Prasser 2018 (SafePub), on Li, Qardaji and Su 2012. It says
    which neighbouring relation and which part of the output it covers, for
    the form of publication chosen (``withheld``), as
    docs/algorithms/safepub.md states it; ``seed`` is the caller's seed, if
    the call named one (then the release is reproducible and not private).
    """
    eps, delta = dp["epsilon"], dp["delta"]
    how = (f"each record was drawn with probability {dp['beta']:.4f}, the generalization "
           f"was chosen by the exponential mechanism ({dp.get('draws', dp['steps'])} draws "
           f"spending epsilon {dp['search_budget']:g} in all), and every class of fewer than "
           f"k = {dp['k']} sampled records was suppressed")
    drop = dp.get("withheld_rows", "drop") == "drop"
    private = ("Not covered: this report and the run's summary (exact counts of the "
               "records, sampled and suppressed; the order seed, which undoes the rows' "
               "shuffle): keep them private. The order seed is drawn from the operating "
               "system's randomness apart from SafePub's: knowing it reveals nothing of the "
               "sample or of the mechanism's draws, but it links the published rows to the "
               "input's order. ")
    private += ("SafePub's randomness came from the operating system's cryptographic source "
                "and is recorded nowhere." if seed is None else
                "SafePub's randomness came from a generator seeded by the caller: anyone who "
                "knows the seed can redraw the sample and every draw, so this release is for "
                "tests only and NOT private.")
    statement = {"epsilon": eps, "delta": delta}
    if drop:
        statement.update(
            neighbouring_relation="add or remove one record",
            covers="the published rows (withheld rows left out), as a set: rows shuffled, "
                   "no index",
            guarantee=f"({eps:g}, {delta:g})-differential privacy of the published rows "
                      f"with respect to adding or removing one record (SafePub, Bild et al. "
                      f"2018): {how}. Only the released rows are published. {private}")
    else:
        bounded = (2 * eps, (1 + math.exp(eps)) * delta)
        statement.update(
            neighbouring_relation="replace one record (the number of records n public)",
            covers="every row, withheld rows as rows of '*': the released rows plus the "
                   "exact count n",
            bounded_epsilon=bounded[0], bounded_delta=bounded[1],
            guarantee=f"The published table holds all n rows, the withheld ones as rows of "
                      f"'*': the ({eps:g}, {delta:g})-differentially private release "
                      f"(adding or removing one record; SafePub, Bild et al. 2018: {how}) "
                      f"together with the exact number of records n. Under adding or "
                      f"removing one record n itself tells neighbours apart: no guarantee. "
                      f"With n public (one record replaced by another), group privacy over "
                      f"the removal and the addition gives ({bounded[0]:g}, "
                      f"{bounded[1]:.3g})-differential privacy (2 epsilon, (1 + e^epsilon) "
                      f"delta). {private}")
    keys = ("beta", "k", "search_budget", "epsilon_anon", "steps", "draws",
            "epsilon_per_step", "epsilon_pick", "sampled", "not_sampled", "suppressed", "released")
    return {**statement, **{key: dp[key] for key in keys if key in dp},
            "withheld_rows": "left out" if drop else "every column '*' (not sampled or "
                                                      "suppressed)"}


def _risk(original, released, qis, suppressed, *, threshold, sampling_fraction, population,
          sampled, weights=None, population_model=None):
    """Risk of the original's classes and of the released ones, against one population.

    The sampling fraction ``pi`` is that of the ``sampled`` records (the
    original's, rows with a missing value included), so the population holds
    ``N = sampled / pi`` records. Both tables are measured against that one
    ``N``: each table's own sampling fraction is its records (the released
    ones, for the release) over ``N``, and a class of ``f`` records is
    estimated to hold ``f / pi`` records of the population in both (an
    unchanged class keeps its population count). With sampling ``weights``
    (one per row of ``original``) a class is estimated to hold the sum of its
    records' weights, and without a sampling fraction ``N`` is the sum of
    every row's weight (``pi = rows / N``).
    """
    given = sampling_fraction
    if weights is not None and sampling_fraction is None and len(original):
        sampled = len(original)
        sampling_fraction = min(1.0, sampled / float(np.sum(weights)))
    before, b = _assess(original, qis, np.zeros(len(original), dtype=bool), threshold,
                        sampling_fraction, sampled, population, weights, population_model)
    after, a = _assess(released, qis, suppressed, threshold, sampling_fraction, sampled, None,
                       weights, population_model)
    return {"threshold": threshold, "sampling_fraction": sampling_fraction,
            "sampling_fraction_from": None if sampling_fraction is None
            else ("weights" if given is None else "given"),
            "population": None if sampling_fraction is None else sampled / sampling_fraction,
            "population_table": population is not None,
            "population_sizes_from": {"before": b.population_source,
                                      "after": a.population_source},
            "population_model": {"before": b.population_model, "after": a.population_model},
            "before": before, "after": after,
            "note": "risk of the original is measured on its own classes; the release's on "
                    "its released classes (suppressed records left out); both against the "
                    "one population"}


def _assess(table, qis, suppressed, threshold, pi, sampled, population, weights,
            population_model):
    import dataclasses

    from ..risk import compute_risks, risk_classes

    classes = risk_classes(table, qis, population=population, sampling_fraction=pi,
                           threshold=threshold, suppressed=suppressed, weights=weights,
                           population_model=population_model)
    if pi is not None and 0 < classes.records != sampled:    # N = records / pi: one N
        classes = dataclasses.replace(classes, sampling_fraction=pi * classes.records / sampled)
    return compute_risks(classes), classes


def _weights_of(weights, original, kept_original, positions):
    """The sampling weights of ``kept_original``'s rows: a column's, or given per row."""
    if weights is None:
        return None
    if isinstance(weights, str):
        if weights not in original.columns:
            raise ValueError(f"The 'weights' parameter of build_report names column "
                             f"{weights!r}, which is not in the original table; it has "
                             f"{list(original.columns)}.")
        values = kept_original[weights]
        try:
            return np.asarray(values, dtype=float)
        except (TypeError, ValueError):
            raise ValueError(f"The 'weights' parameter of build_report names column "
                             f"{weights!r}, which does not hold numbers (sampling weights); "
                             f"its first value is {values.iloc[0]!r}.") from None
    values = np.asarray(weights)
    if values.shape != (len(original),):
        raise ValueError(f"The 'weights' parameter of build_report must be a column name or "
                         f"one weight per row of the original ({len(original)}). Got shape "
                         f"{values.shape}.")
    return values[positions]


def _loss(ev):
    from ..metrics import arx_loss_per_attribute, ncp_per_attribute
    from ..metrics._collapsed import collapse_notes

    release = ev.release
    ncp = ncp_per_attribute(release)
    arx = arx_loss_per_attribute(release)
    released = float(release.sizes.sum())
    per = {}
    for name, cost in ncp.items():
        mean_ncp = float((release.sizes * cost).sum() / released) if released else 0.0
        per[name] = {"ncp": mean_ncp, "loss": float(arx[name])}
    return {"per_attribute": per, "overall": dict(ev.metrics),
            "collapsed": collapse_notes(release),
            "note": "ncp: mean NCP of the released records' cells (0 = as is, 1 = the whole "
                    "domain); loss: ARX's per-attribute Loss"}


def _classes(sizes):
    values, counts = np.unique(sizes, return_counts=True)
    return {"count": int(len(sizes)),
            "min": int(sizes.min()) if len(sizes) else None,
            "median": float(np.median(sizes)) if len(sizes) else None,
            "max": int(sizes.max()) if len(sizes) else None,
            "histogram": [{"size": int(v), "classes": int(c), "records": int(v * c)}
                          for v, c in zip(values, counts)]}


def _hierarchies(ev):
    """Per hierarchy: its height, and how many released records sit at each level."""
    out = {}
    release = ev.release
    for attr in release.data.attributes:
        rel = release.attributes[attr.name]
        if attr.hierarchy is None or rel.level is None:
            continue
        height = int(attr.hierarchy.height)
        records = np.bincount(rel.level, weights=release.sizes, minlength=height + 1)
        global_level = None if ev.levels is None else int(ev.levels[attr.name])
        out[attr.name] = {"height": height,
                          "records_per_level": [int(r) for r in records[:height + 1]],
                          "global_level": global_level}
    return out


def _lattice(levels, hierarchies):
    if levels is None or not hierarchies or set(levels) - set(hierarchies):
        return {"global": False,
                "note": "a local recoding: records of one attribute sit at different levels, "
                        "so the release is no single node of the lattice"}
    names = list(levels)
    vector = [int(levels[n]) for n in names]
    heights = [hierarchies[n]["height"] for n in names]
    polynomial = np.ones(1, dtype=object)          # nodes per height sum (exact integers)
    for h in heights:
        polynomial = np.convolve(polynomial, np.ones(h + 1, dtype=object))
    node_height = int(sum(vector))
    return {"global": True, "attributes": names, "node": vector, "heights": heights,
            "node_height": node_height, "lattice_height": int(sum(heights)),
            "lattice_nodes": int(np.prod([h + 1 for h in heights], dtype=object)),
            "nodes_at_this_height": int(polynomial[node_height])}


def build_report(original, released, schema, *, k=2, l=None, diversity="distinct", c=1.0,
                 t=None, sensitive=None, suppressed=None, missing="error",
                 sampling_fraction=None, threshold=0.2, population=None, call=None,
                 checksums=None, algorithm=None, title=None, sampled_records=None,
                 weights=None, population_model=None, aggregate=None):
    """The content of a privacy report, as JSON-ready data.

    Parameters
    ----------
    original, released : DataFrame
        The input table and the released table, row-aligned (as for
        :func:`kanon_graph.evaluate`).
    schema : Schema
        With the hierarchies the release used.
    k, l, diversity, c, t, sensitive, suppressed, missing
        The privacy model to check and how to read the tables, as for
        :func:`kanon_graph.evaluate`.
    sampling_fraction : float, optional
        ``n / N``, ``n`` the records of ``original`` (rows with a missing value
        included): the population-uniqueness models need it. The original
        and the release are measured against the one population of ``N``
        records.
    threshold : float
        Risk above which a record counts as at risk (default 0.2).
    population : DataFrame, optional
        An identification database with the *original* quasi-identifiers,
        for the journalist and marketer risk of the original table.
    call : str, optional
        The command or call that made the release.
    checksums : dict, optional
        ``{"input": {...}, "output": {...}}`` as :func:`table_checksum` or
        :func:`file_checksum` give them.
    aggregate : dict of str to str, optional
        A microaggregation's operators, as for :func:`kanon_graph.evaluate`.
    algorithm, title : str, optional
    sampled_records : int, optional
        The records ``sampling_fraction`` is of, when ``original`` is not all
        of them (default ``len(original)``); the population holds
        ``N = sampled_records / sampling_fraction``.
    weights : str or array, optional
        Sampling weights: a column of ``original`` or one per row. A class of
        either table is estimated to hold the sum of its records' weights of
        the population; without ``sampling_fraction``, ``N`` is the sum of the
        weights of the rows read.
    population_model : {"individual", "expansion"}, optional
        How journalist and marketer risk read an estimated population class
        size (:data:`kanon_graph.risk.POPULATION_MODELS`; default
        ``"individual"``, Benedetti-Franconi). The report records which was used.

    Returns
    -------
    dict
        One entry per section of :data:`SECTIONS`.
    """
    from .._version import __version__
    from ..metrics import evaluate

    ev = evaluate(original, released, schema, k=k, l=l, diversity=diversity, c=c, t=t,
                  sensitive=sensitive, suppressed=suppressed, missing=missing,
                  aggregate=aggregate)
    qis = list(schema.quasi_identifiers)
    release = ev.release
    kept_original = release.data.table
    mask = release.class_of < 0
    hierarchies = _hierarchies(ev)
    n = int(release.class_of.shape[0])
    content = {
        "title": title or "Privacy report",
        "summary": {"records": n, "released": int(release.sizes.sum()),
                    "suppressed": int(mask.sum()), "dropped": ev.dropped,
                    "classes": int(release.n_classes), "quasi_identifiers": qis,
                    "sensitive": list(schema.sensitive), "algorithm": algorithm,
                    "recoding": "global" if ev.levels is not None else
                    "microaggregation" if aggregate is not None else "local"},
        "privacy": _privacy(ev, schema, released),
        "risk": _risk(kept_original, released, qis, mask, threshold=threshold,
                      sampling_fraction=sampling_fraction, population=population,
                      sampled=len(original) if sampled_records is None
                      else int(sampled_records),
                      weights=_weights_of(weights, original, kept_original,
                                          release.data.positions),
                      population_model=population_model),
        "loss": _loss(ev),
        "classes": _classes(release.sizes),
        "hierarchies": hierarchies,
        "lattice": _lattice(ev.levels, hierarchies) if aggregate is None else {
            "global": False, "note": "a microaggregation: each class released as its "
            "aggregates (" + ", ".join(f"{a}: {h}" for a, h in aggregate.items()) + ")"},
        "suppression": {"suppressed": int(mask.sum()),
                        "share": float(mask.mean()) if n else 0.0,
                        "dropped_for_missing_values": ev.dropped},
        "provenance": {"call": call, "checksums": checksums or {},
                       "kanon_graph": __version__,
                       "created": _dt.datetime.now(_dt.timezone.utc)
                                              .strftime("%Y-%m-%dT%H:%M:%SZ")},
    }
    return json_ready(content)
