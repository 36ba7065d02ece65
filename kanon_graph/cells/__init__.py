"""What a cell is: number, date, code, text or missing, decided once for everyone.

:mod:`.kinds` holds the column rules (which column is numeric, a date, a
zero-padded code or text, and which cell is missing) that the reader
(:mod:`kanon_graph.io`), the schema, the hierarchy drafts, the encoding and
the command line all share; :mod:`.date_text` reads date text in its
formats (ISO, day-first, month-first) and says which one it used.
"""

__all__: list[str] = []     # its modules are the house's own; nothing is re-exported
