"""Property-based fuzzing of every registered algorithm (issue 11).

``generate`` builds seeded random cases, ``check`` verifies a release with
code independent of ``kanon_graph.privacy`` and ``kanon_graph.metrics``, and
``run`` drives both (``python -m tests.fuzz.run --n 2000`` for the long run).
"""
