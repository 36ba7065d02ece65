"""``pytest --pyargs kanon_graph.testing``: the common checks on a plugin's algorithms.

Set ``KANON_GRAPH_PLUGINS`` (modules or ``.py`` files, comma-separated) and
optionally ``KANON_GRAPH_ALGORITHMS``; see :mod:`kanon_graph.testing`.
"""

import pytest

from kanon_graph.testing import CASES, CHECKS, check_algorithm, check_experiment, \
    selected_algorithms

ALGORITHMS = selected_algorithms()


@pytest.mark.parametrize("check", sorted(CHECKS))
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("name", ALGORITHMS)
def test_common_check(name, case, check):
    check_algorithm(name, cases=[case], checks=[check])


@pytest.mark.parametrize("name", ALGORITHMS)
def test_joins_a_paper_experiment_and_its_verdicts(name):
    check_experiment(name)
