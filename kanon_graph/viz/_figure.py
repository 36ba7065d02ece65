"""Lazy matplotlib import shared by the figure functions (matplotlib is optional)."""

from __future__ import annotations

#: Fill colours of classes / clusters, cycled (colour-blind friendly, light enough for text).
PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")


def pyplot(who):
    """``matplotlib.pyplot`` on the non-interactive Agg backend, or a one-line ImportError."""
    try:
        import matplotlib

        matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{who} needs matplotlib: pip install -e '.[plot]'") from None
    return plt
