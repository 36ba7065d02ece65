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
``individual``            Benedetti-Franconi individual risk, sdcMicro's summary  sampling_fraction
========================  ======================================================  =================

With a sampling fraction or sampling weights (and no population table) the
population class sizes ``F_j`` are estimated, and journalist and marketer risk
read each record's risk from them through a population model:
``"individual"`` (Benedetti-Franconi, the default; see
:mod:`kanon_graph.risk.individual`) or ``"expansion"`` (``1 / F_j``, optimistic
for sample uniques). ``population_model=`` chooses; the classes record it.
Sampling weights give the ``individual`` model its sampling fraction
(``n / sum of the weights``).

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

from ._classes import POPULATION_MODELS, RiskClasses, risk_classes
from .individual import individual, individual_risk
from ._registry import (RiskModelInfo, compute_risks, get_risk, register_risk, risk_models,
                        risk_names, unregister_risk)
from .population import (dankar, pitman, pitman_parameters, population_uniqueness, shlosser,
                         snb, snb_probabilities, zayatz)
from .sample import journalist, marketer, prosecutor, sample_uniqueness

__all__ = [
    "POPULATION_MODELS",
    "RiskClasses",
    "RiskModelInfo",
    "assess",
    "compute_risks",
    "dankar",
    "get_risk",
    "individual",
    "individual_risk",
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
register_risk("individual", individual, needs=("sampling_fraction",))


def assess(table, quasi_identifiers, *, models=None, threshold=0.2, sampling_fraction=None,
           population=None, suppressed=None, weights=None, population_model=None):
    """Every risk model (or those named) on ``table``'s classes.

    Parameters
    ----------
    table : DataFrame
        The original or the released table (cells compared as text; rows whose
        quasi-identifiers are all ``*`` are suppressed and left out).
    quasi_identifiers : list of str
    models : list of str, optional
        Registered names; default every model whose needs are given.
    threshold, sampling_fraction, population, suppressed, weights, population_model
        As for :func:`risk_classes`: with a sampling fraction or sampling
        weights (no population table), journalist and marketer risk use
        Benedetti-Franconi individual risk unless
        ``population_model="expansion"`` asks for ``1 / F_j``.

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
    >>> u = pd.DataFrame({"zip": ["1*", "2*", "2*"], "w": [10.0, 4.0, 6.0]})
    >>> round(assess(u, ["zip"], weights="w")["journalist"]["highest"], 4)   # f = 1, F = 10
    0.2558
    """
    classes = risk_classes(table, quasi_identifiers, population=population,
                           sampling_fraction=sampling_fraction, threshold=threshold,
                           suppressed=suppressed, weights=weights,
                           population_model=population_model)
    return compute_risks(classes, models)
