"""Lazy matplotlib import shared by the figure functions (matplotlib is optional)."""

from __future__ import annotations

import os
import sys

#: Fill colours of classes / clusters, cycled (colour-blind friendly, light enough for text).
PALETTE = ("#8dd3c7", "#ffffb3", "#bebada", "#fb8072", "#80b1d3", "#fdb462", "#b3de69",
           "#fccde5", "#d9d9d9", "#bc80bd", "#ccebc5", "#ffed6f")


def pyplot(who):
    """``matplotlib.pyplot``, or a one-line ImportError naming the ``[plot]`` extra.

    The backend is set to the non-interactive Agg only when nobody chose one:
    a Jupyter kernel (which sets ``MPLBACKEND`` to its inline backend) or a
    user who imported pyplot first keeps theirs, so figures show in notebooks.
    """
    try:
        import matplotlib

        if not os.environ.get("MPLBACKEND") and "matplotlib.pyplot" not in sys.modules:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise ImportError(f"{who} needs matplotlib: pip install -e '.[plot]'") from None
    return plt
