"""Which ground distance t-closeness measures with, said when the data decided it.

t's Earth Mover's Distance compares a class's sensitive values with the
table's under a *ground distance*: the **ordered** distance for a numeric or
date column (values one rank apart are close; Li, Li and Venkatasubramanian,
"t-Closeness: Privacy Beyond k-Anonymity and l-Diversity", 2007, section
4.2, "EMD for numerical attributes"), the **equal** distance for categories
(every two values one apart). A text column whose cells are all numbers
(``"4.1"``) or ISO dates is numeric or a date unless declared otherwise, so
the data alone would choose the ordered distance: :func:`warn_inferred_distance`
says so, once, naming the column and how to choose.
"""

from __future__ import annotations

import warnings

from ..cells.kinds import is_text_column
from ..encoding.inferred import _outside
from ..exceptions import InferenceWarning

__all__ = ["warn_inferred_distance"]


def warn_inferred_distance(model, data, where):
    """Warn when t's ordered distance was inferred from a text sensitive column.

    Nothing is said without t, for a column declared numeric or a date, or
    for a typed (numeric or ``datetime64``) column: there the kind is no guess.
    """
    if model.t is None or model.t_distance(data) != "ordered":
        return
    column, schema = model.sensitive, data.schema
    if column in schema.numeric or column in schema.dates or column not in data.table:
        return
    cells = data.table[column]
    if not is_text_column(cells):
        return
    present = cells.dropna()
    example = f" (e.g. {present.iloc[0]!r})" if len(present) else ""
    kind = getattr(data, "sensitive_kinds", {}).get(column, "numeric")
    what = "dates" if kind == "date" else "numbers"
    warnings.warn(f"{where}: sensitive column {column!r} holds {what} written as text"
                  f"{example}: t={model.t:g} measures it with the ordered distance (values "
                  f"by their order); declare it categorical (Schema(categorical=[{column!r}]), "
                  f"--categorical {column}) for the equal distance (every two values one "
                  f"apart), or {'a date' if kind == 'date' else 'numeric'} (Schema("
                  f"{'dates' if kind == 'date' else 'numeric'}=[{column!r}]) or the schema "
                  f"file) to keep the ordered one without this warning",
                  InferenceWarning, stacklevel=_outside())
