"""Common tests for an algorithm of your own, runnable without a checkout of the project.

Every algorithm registered with :func:`kanon_graph.register_algorithm` must
pass the same checks as the built-in ones: its verified release is
k-anonymous, holds every input record exactly once (released or counted as
suppressed), never releases a value that does not cover the original, drops
identifiers, keeps sensitive values, and is the same for the same seed; and
it can join a paper's experiment (``reproduce(..., extra_runs=[name])``)
and appear in its verdicts.

Two ways to run them on a plugin:

* from the shell, naming the module (or ``.py`` file) that registers the
  algorithm, and optionally the algorithm names (default: every algorithm
  the plugins register)::

      KANON_GRAPH_PLUGINS=my_plugins pytest --pyargs kanon_graph.testing
      KANON_GRAPH_PLUGINS=./my_plugins.py KANON_GRAPH_ALGORITHMS=sorted-runs \\
          pytest --pyargs kanon_graph.testing

  Without either variable the module checks ``mondrian``, as a self-test.
* from your own tests, with :func:`check_algorithm` (it raises
  ``AssertionError`` naming the case and the check that failed)::

      from kanon_graph.testing import check_algorithm

      def test_my_algorithm():
          check_algorithm("sorted-runs")

Examples
--------
>>> from kanon_graph.testing import check_algorithm, CHECKS
>>> check_algorithm("mondrian", cases=["paper003-k3"])
>>> sorted(CHECKS)[:3]
['classes_share_released_values', 'every_record_once', 'identifiers_dropped']
"""

from __future__ import annotations

from ._checks import CASES, CHECKS, check_algorithm, check_experiment, load_plugins, \
    random_schema, random_table, selected_algorithms

__all__ = ["CASES", "CHECKS", "check_algorithm", "check_experiment", "load_plugins",
           "random_schema", "random_table", "selected_algorithms"]
