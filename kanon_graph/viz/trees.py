"""The two trees of a pattern-utility comparison, side by side (paper 004, Figures 6-9)."""

from __future__ import annotations

from ._figure import pyplot

__all__ = ["pattern_trees_figure"]


def pattern_trees_figure(result, *, max_depth=None, figsize=None, fontsize=7):
    """Draw the original and the released tree of a :class:`~kanon_graph.metrics.PatternUtility`.

    Each tree is drawn by scikit-learn's ``sklearn.tree.plot_tree`` with the
    encoded column names (``age.lo``, ``age.hi``, ``sex=F``, ``suppressed``;
    see :func:`kanon_graph.metrics.pattern_utility`), class shares as
    proportions and the majority class filled in colour.

    Parameters
    ----------
    result : PatternUtility
    max_depth : int, optional
        Draw only the top levels.
    figsize : (float, float), optional
        Default: 10 inches wide per tree, 7 high.
    fontsize : int

    Returns
    -------
    matplotlib.figure.Figure
        Two axes titled ``original`` and ``released``; ``fig.savefig("trees.png")``
        writes the PNG.

    References
    ----------
    Morton, S., Mahoui, M., Gibson, P. J. & Yechuri, S. (2012), "An enhanced
    utility-driven data anonymization method", Figures 6-9.
    """
    plt = pyplot("pattern_trees_figure")
    from sklearn.tree import plot_tree

    fig, axes = plt.subplots(1, 2, figsize=figsize or (20, 7))
    for ax, name in zip(axes, ("original", "released")):
        tree = result.trees[name]
        plot_tree(tree, ax=ax, feature_names=list(result.columns),
                  class_names=[str(c) for c in tree.classes_], proportion=True, filled=True,
                  impurity=False, max_depth=max_depth, fontsize=fontsize)
        ax.set_title(name)
    fig.suptitle(f"{result.target}: {sum(result.survives)} of {len(result.top)} top rules "
                 f"survive; held-out accuracy {result.accuracy['original']:.3f} (original), "
                 f"{result.accuracy['released']:.3f} (released)")
    fig.tight_layout()
    return fig
