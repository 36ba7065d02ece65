"""The committed full runs' verdicts, written by docs/make_research.py: do not edit.

``FULL[paper]`` lists ``(claim, literal verdict, our verdict)`` per claim, so a
quick or capped run can say where its verdicts differ from the full run's.
"""

FULL: dict[str, list[tuple[str, str, str]]] = {}
