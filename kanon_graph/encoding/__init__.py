"""Cells to codes: a table encoded once into integer codes for the algorithms.

:func:`encode` turns a table and its schema into an :class:`EncodedTable`
(:mod:`.table`), reading each column by the rules of :mod:`kanon_graph.cells`:
numbers and dates (:mod:`.cells`), columns with no hierarchy given
(:mod:`.inferred`), missing cells kept as a value of their own
(:mod:`.missing`). :func:`combine_codes` packs several code columns into one
key per row, and :mod:`.row_keys` keys released rows by their cells.
"""

from .table import MISSING, EncodedAttribute, EncodedTable, combine_codes, encode

__all__ = ["EncodedAttribute", "EncodedTable", "encode", "combine_codes", "MISSING"]
