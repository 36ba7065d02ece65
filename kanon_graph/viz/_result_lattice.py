"""The lattice of an anonymization result: its nodes checked against the result's criteria.

A global recoding releases one node of the generalization lattice. Its
result keeps the encoded table (``result.release.data``), the node
(``result.levels``), the criteria it was verified against
(``result.verification``) and how many records it suppressed, so every node
of the lattice the search walked can be checked the same way: a node is
*anonymous* when the criteria hold after suppressing at most as many records
as the release did (or the search's budget, when the result states it), else
*not anonymous*; the released node is *chosen*. Everything is read from the
result's public attributes; the result itself knows nothing of pictures.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ResultLattice", "result_lattice", "is_result"]

#: What the lattice functions take, for their TypeError.
TAKES = "a Lattice (with an optional status) or an AnonymizationResult of a global recoding"


def is_result(obj):
    """True for an :class:`~kanon_graph.AnonymizationResult`."""
    from ..result import AnonymizationResult

    return isinstance(obj, AnonymizationResult)


def check_lattice(obj, where):
    """``obj`` as a Lattice, or a one-line TypeError naming what ``where`` takes."""
    from ..lattice.lattice import Lattice

    if not isinstance(obj, Lattice):
        raise TypeError(f"{where} takes {TAKES}. Got {type(obj).__name__}.")
    return obj


@dataclass(frozen=True)
class ResultLattice:
    """The lattice a global recoding searched, each node's status, and how it was decided."""

    lattice: object
    status: dict
    chosen: tuple
    rule: str


def _model(verification, data):
    from ..privacy import PrivacyModel

    v = verification
    model = PrivacyModel(v.k, l=v.l, diversity=v.diversity or "distinct", t=v.t)
    return model.bind(data)


def _budget(result):
    return max(int(result.suppressed), int(result.stats.get("suppression_budget", 0) or 0))


def _global_release(result, where):
    release = result.release
    if result.levels is None or release is None or release.levels is None:
        raise ValueError(f"{where}: the result of {result.algorithm!r} is a local recoding, "
                         f"so it is no node of a lattice; only a global recoding (optimal, "
                         f"datafly, incognito, rv-*, boundaries) has one")
    if not hasattr(release.data, "group_keys"):
        raise ValueError(f"{where}: the result of {result.algorithm!r} keeps no encoded "
                         f"table (a Dask input), so its lattice cannot be checked")
    return release


def result_heights(result, where="lattice_figure"):
    """The lattice the result's search walked: its attribute names and heights."""
    release = _global_release(result, where)
    data = release.data
    heights = list(data.heights)
    if release.capped:                       # respect_boundaries: the capped lattice
        from ..lattice.capped import boundary_levels

        heights = list(boundary_levels(data))
    return list(data.names), heights


def result_lattice(result, *, max_nodes=None, where="lattice_figure"):
    """The lattice of a global recoding's result, each node checked, the released one chosen.

    Parameters
    ----------
    result : AnonymizationResult
        Of a global recoding (``result.levels`` is set).
    max_nodes : int, optional
        Refuse (``ValueError``) a larger lattice before checking any node.
    where : str
        The public function asking, for the messages.

    Returns
    -------
    ResultLattice
        ``status`` maps every node to ``"anonymous"``, ``"not-anonymous"`` or
        ``"chosen"``; ``rule`` says in words what anonymous means here.
    """
    from ..lattice.frequency import FrequencyEngine, spreads
    from ..lattice.lattice import Lattice, StatusMap

    release = _global_release(result, where)
    names, heights = result_heights(result, where)
    lattice = Lattice(heights, names=names)
    if max_nodes is not None and lattice.size > max_nodes:
        raise ValueError(
            f"{where}: the lattice of this {result.algorithm} result has {lattice.size:,} "
            f"nodes, more than max_nodes={max_nodes} that a figure draws readably; export it "
            f"for Graphviz with kg.viz.lattice_dot(res) (dot -Tsvg), or pass a larger "
            f"max_nodes")
    data = release.data
    chosen = tuple(int(v) for v in release.levels)
    if result.verification.diversity == "recursive":
        return ResultLattice(lattice, {chosen: "chosen"}, chosen,
                             "other nodes not checked: the result does not keep the c of "
                             "recursive (c, l)-diversity")
    model = _model(result.verification, data)
    budget = _budget(result)
    engine = FrequencyEngine(data, capped=bool(release.capped))
    known = StatusMap(lattice.dimension) if spreads(model, budget) else None
    status = {}
    for node in lattice.nodes():                          # by height: checks spread upwards
        found = known.status(node) if known is not None else None
        if found is None:
            passed = engine.suppressed_records(node, model) <= budget
            found = "anonymous" if passed else "not-anonymous"
            if known is not None:
                known.mark(node, passed)
        status[node] = found
    status[chosen] = "chosen"
    what = [f"k={model.k}"]
    if model.l is not None:
        what.append(f"{model.diversity} l={model.l:g}")
    if model.t is not None:
        what.append(f"t={model.t:g}")
    held = (" and ".join(what) + (" hold" if len(what) > 1 else " holds"))
    rule = (f"anonymous: {held} " + ("with no record suppressed" if budget == 0 else
            f"suppressing at most {budget:,} record{'' if budget == 1 else 's'}"))
    return ResultLattice(lattice, status, chosen, rule)
