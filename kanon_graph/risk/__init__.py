"""Re-identification risk beside k: which attacker succeeds, and how often.

``k`` bounds the worst case of one attacker; the models here answer the
questions a custodian is asked (see ``docs/privacy.md``, "Attacker models"):

========================  ======================================================  =================
name                      what it measures                                        needs
========================  ======================================================  =================
``prosecutor``            highest / average risk, share above tau, 1/f_j          --
``journalist``            the same against a population, 1/F_j                    --
``marketer``              expected share re-identified, sum f_j/F_j / n           --
``sample_uniqueness``     records alone in their class                            --
``population_uniqueness`` population uniques: Pitman, Zayatz, SNB, Dankar's rule  sampling_fraction
========================  ======================================================  =================

Risk is measured on the classes formed by the cells as written, so on a
local recoding it is the risk of the *released* classes. :func:`assess`
computes every available model for a table; :func:`register_risk` adds one.

Examples
--------
>>> import kanon_graph as kg
>>> table = kg.datasets.paper_003_table()
>>> res = kg.anonymize(table, kg.datasets.paper_003_schema(), k=3, algorithm="mst")
>>> before = kg.risk.assess(table, ["gender", "age", "zip"])
>>> after = kg.risk.assess(res.table, ["gender", "age", "zip"])
>>> before["prosecutor"]["highest"], after["prosecutor"]["highest"] <= 1 / 3
(1.0, True)
"""

from ._classes import RiskClasses, risk_classes
from ._registry import (RiskModelInfo, compute_risks, get_risk, register_risk, risk_models,
                        risk_names, unregister_risk)
from .population import (dankar, pitman, pitman_parameters, population_uniqueness, shlosser,
                         snb, snb_probabilities, zayatz)
from .sample import journalist, marketer, prosecutor, sample_uniqueness

__all__ = [
    "RiskClasses",
    "RiskModelInfo",
    "assess",
    "compute_risks",
    "dankar",
    "get_risk",
    "journalist",
    "marketer",
    "pitman",
    "pitman_parameters",
    "population_uniqueness",
    "prosecutor",
    "register_risk",
    "risk_classes",
    "risk_models",
    "risk_names",
    "sample_uniqueness",
    "shlosser",
    "snb",
    "snb_probabilities",
    "unregister_risk",
    "zayatz",
]

register_risk("prosecutor", prosecutor)
register_risk("journalist", journalist)
register_risk("marketer", marketer)
register_risk("sample_uniqueness", sample_uniqueness)
register_risk("population_uniqueness", population_uniqueness, needs=("sampling_fraction",))


def assess(table, quasi_identifiers, *, models=None, threshold=0.2, sampling_fraction=None,
           population=None, suppressed=None):
    """Every risk model (or those named) on ``table``'s classes.

    Parameters
    ----------
    table : DataFrame
        The original or the released table (cells compared as text; rows whose
        quasi-identifiers are all ``*`` are suppressed and left out).
    quasi_identifiers : list of str
    models : list of str, optional
        Registered names; default every model whose needs are given.
    threshold, sampling_fraction, population, suppressed
        As for :func:`risk_classes`.

    Returns
    -------
    dict
        ``{model name: {measure: value}}``.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"zip": ["1*", "1*", "2*", "2*", "2*"]})
    >>> assess(t, ["zip"], models=["prosecutor"])
    {'prosecutor': {'highest': 0.5, 'average': 0.4, 'at_risk': 1.0}}
    """
    classes = risk_classes(table, quasi_identifiers, population=population,
                           sampling_fraction=sampling_fraction, threshold=threshold,
                           suppressed=suppressed)
    return compute_risks(classes, models)
