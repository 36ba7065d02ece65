"""``algorithm="auto"``: which algorithm runs on a table, and why.

:mod:`.choice` holds the rule the quality suite teaches (``stepwise`` with
hierarchies, ``flat`` without) and the trials run where no rule is taught;
:mod:`.counted` applies the same rule to a Dask table's counted tuples,
where no trial can run.
"""

__all__: list[str] = []     # its modules are the house's own; nothing is re-exported
