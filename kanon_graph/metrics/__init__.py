"""Information-loss metrics, found through an open registry.

Every metric is ``metric(release, k) -> float`` and declares whether lower is
better and whether it is monotone under generalization.

===========================  ================================================  ======
name                         formula                                           better
===========================  ================================================  ======
``ncp``                      sum_E abs(E) sum_A NCP_A(E) (000 eq. 2-3)         lower
``gcp``                      ncp / (d N) (003 eq. 7)                           lower
``utility``                  1 - gcp (000 eq. 4)                               higher
``discernibility``           sum abs(E)^2, abs(D) abs(E) when < k (000 eq. 1)  lower
``cavg``                     released / (classes k) (003 eq. 9)                lower
``loss``                     ARX's Loss, geometric mean over attributes        lower
``minimal_distortion``       generalization steps over all cells               lower
``byun_il``                  Byun et al.'s IL (001 section 4.1)                lower
``paper001_il``              byun_il + sum_i abs(C_i)(i+1)/m (001 5.1 code)    lower
``sse_sst``                  SSE / SST, microaggregations only (**)            lower
``classification_accuracy``  held-out accuracy, released / original (*)        higher
``classification_f1``        held-out macro-F1, released / original (*)        higher
===========================  ================================================  ======

(*) needs a target: computed only when one is given
(``evaluate(..., target="salary-class")``; scikit-learn, the ``ml`` extra);
see :func:`classification_utility`. (**) computed only for a release that
microaggregates (``algorithm="mdav"``): :func:`sse_sst`. :func:`pattern_utility` compares the
rules of a tree grown on each table (paper 004, section 6.2.2).
"""

from ._loss import (arx_loss, arx_loss_per_attribute, byun_il, cavg, discernibility, gcp,
                    minimal_distortion, ncp_per_attribute, total_ncp, utility)
from .paper001 import paper001_il
from .microaggregation import sse_sst
from ._registry import (MetricInfo, compute_metrics, get_metric, metric_names, metrics,
                        register_metric, unregister_metric)
from .evaluate import Evaluation, evaluate
from .classification import ClassificationUtility, classification_utility
from .pattern import Condition, PatternUtility, Rule, pattern_utility

__all__ = [
    "ClassificationUtility",
    "Condition",
    "Evaluation",
    "MetricInfo",
    "arx_loss",
    "arx_loss_per_attribute",
    "byun_il",
    "cavg",
    "classification_utility",
    "compute_metrics",
    "discernibility",
    "evaluate",
    "gcp",
    "get_metric",
    "metric_names",
    "metrics",
    "minimal_distortion",
    "ncp_per_attribute",
    "paper001_il",
    "pattern_utility",
    "PatternUtility",
    "Rule",
    "register_metric",
    "sse_sst",
    "total_ncp",
    "unregister_metric",
    "utility",
]
