"""Original against released distributions of a numeric attribute, as a figure.

The picture of Hussien, Darwish & Hefny (2016), Figures 9-16: the histogram
and the empirical CDF of an attribute before and after anonymization. Needs
matplotlib (``pip install -e ".[plot]"``); the function returns a Figure and
writes nothing.
"""

from __future__ import annotations

import numpy as np

from ._figure import pyplot

__all__ = ["distribution_figure"]


def distribution_figure(original, released, *, attribute="value", bins=30):
    """Histogram and ECDF of ``original`` against ``released`` numbers.

    Parameters
    ----------
    original, released : array-like of numbers
        Map released intervals to numbers first with
        :func:`kanon_graph.metrics.distribution.released_numbers`.
    attribute : str
        Used in titles.
    bins : int

    Returns
    -------
    matplotlib.figure.Figure
        Two axes: overlaid histograms, and the two empirical CDFs.

    Examples
    --------
    >>> fig = distribution_figure([20, 30, 40], [25, 25, 45], attribute="age")
    >>> [ax.get_title() for ax in fig.axes]
    ['age: histogram', 'age: empirical CDF']
    """
    plt = pyplot("distribution_figure")
    x = np.asarray(original, dtype=float)
    y = np.asarray(released, dtype=float)
    fig, (hist, ecdf) = plt.subplots(1, 2, figsize=(10, 4))
    edges = np.histogram_bin_edges(np.concatenate([x, y]), bins=bins)
    hist.hist(x, bins=edges, alpha=0.55, label="original")
    hist.hist(y, bins=edges, alpha=0.55, label="released")
    hist.set_title(f"{attribute}: histogram")
    hist.set_xlabel(attribute)
    hist.set_ylabel("records")
    hist.legend()
    for values, label in ((x, "original"), (y, "released")):
        sorted_values = np.sort(values)
        ecdf.step(sorted_values, np.arange(1, len(values) + 1) / len(values), where="post",
                  label=label)
    ecdf.set_title(f"{attribute}: empirical CDF")
    ecdf.set_xlabel(attribute)
    ecdf.set_ylabel("share of records")
    ecdf.legend()
    fig.tight_layout()
    return fig
