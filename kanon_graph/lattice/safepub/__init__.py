"""SafePub (Bild, Kuhn and Prasser 2018): (epsilon, delta)-differential privacy on the lattice.

* :func:`dp_parameters`, :func:`delta_of_k`, :func:`sampling_probability` --
  the sampling probability and the k that (epsilon, delta) imply (Li,
  Qardaji and Su 2012);
* :func:`em_probabilities`, :func:`exponential_mechanism`, :func:`search`,
  :class:`SampleScores` -- the search of the lattice by the exponential
  mechanism on the Loss score (Bild et al. 2018), and the pick of the node
  released by one more draw;
* :class:`Randomness`, :func:`bernoulli_exp` -- exact draws from the
  operating system's cryptographic source (or a seeded generator, for tests);
* :func:`safepub` -- the algorithm, registered as ``"safepub"``.
"""

from ._parameters import DPParameters, delta_of_k, dp_parameters, sampling_probability
from ._random import Randomness, bernoulli_exp, exponential_mechanism
from ._search import SampleScores, SearchResult, em_probabilities, search
from .algorithm import DEFAULTS, check_dp, derive_k, safepub

__all__ = ["DPParameters", "delta_of_k", "dp_parameters", "sampling_probability",
           "SampleScores", "SearchResult", "em_probabilities", "exponential_mechanism",
           "Randomness", "bernoulli_exp", "search", "DEFAULTS", "check_dp", "derive_k",
           "safepub"]
