"""Metric curves: a loss against k, one line per algorithm."""

from __future__ import annotations

import pandas as pd

from ._figure import pyplot

__all__ = ["metric_curves_figure"]


def metric_curves_figure(rows, metrics=("loss",), *, x="k", by="algorithm", log_x=False):
    """One axes per metric, one line per algorithm, the metric against ``k``.

    Parameters
    ----------
    rows : DataFrame or list of dict
        One row per run with the columns ``by`` (the algorithm), ``x`` (k) and
        every metric in ``metrics`` -- e.g. the rows ``compare`` collects.
    metrics : str or sequence of str
        Columns to plot (each in its own axes, side by side).
    x : str
        The horizontal axis (default ``"k"``).
    by : str
        The column that names a line (default ``"algorithm"``).
    log_x : bool
        Logarithmic horizontal axis.

    Returns
    -------
    matplotlib.figure.Figure
        Axes titled ``"<metric> against <x>"``; line labels are the values
        of ``by`` (sorted), points sorted by ``x``.

    Examples
    --------
    >>> rows = [{"algorithm": "mst", "k": 2, "loss": 0.1}, {"algorithm": "mst", "k": 5,
    ...          "loss": 0.3}, {"algorithm": "datafly", "k": 2, "loss": 0.4}]
    >>> ax = metric_curves_figure(rows).axes[0]
    >>> ax.get_title(), [line.get_label() for line in ax.lines]
    ('loss against k', ['datafly', 'mst'])
    >>> ax.lines[1].get_xydata().tolist()
    [[2.0, 0.1], [5.0, 0.3]]
    """
    frame = rows if isinstance(rows, pd.DataFrame) else pd.DataFrame(list(rows))
    metrics = [metrics] if isinstance(metrics, str) else list(metrics)
    missing = [c for c in [x, by, *metrics] if c not in frame.columns]
    if missing:
        raise ValueError(f"The 'rows' parameter of metric_curves_figure lacks the columns "
                         f"{missing}. Got columns {list(frame.columns)}.")
    plt = pyplot("metric_curves_figure")
    fig, axes = plt.subplots(1, len(metrics), figsize=(4.8 * len(metrics), 3.8), squeeze=False)
    for ax, metric in zip(axes[0], metrics):
        for name, group in sorted(frame.groupby(by), key=lambda item: str(item[0])):
            group = group.sort_values(x)
            ax.plot(group[x].to_numpy(float), group[metric].to_numpy(float), marker="o",
                    label=str(name))
        if log_x:
            ax.set_xscale("log")
        ax.set_title(f"{metric} against {x}")
        ax.set_xlabel(x)
        ax.set_ylabel(metric)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
