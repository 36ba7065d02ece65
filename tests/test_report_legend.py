"""Issue 42 item 5: the risk chart's legend stands off its bars (it covered the last one)."""

import pytest

from kanon_graph.report import _figures

pytest.importorskip("matplotlib")


def _risk(level):
    side = {"prosecutor": {"highest": level, "average": level, "at_risk": level},
            "journalist": {"average": level}, "marketer": {"average": level},
            "sample_uniqueness": {"share": level}, "population_uniqueness": {"share": level}}
    return {"before": side, "after": side, "threshold": 0.2}


@pytest.mark.parametrize("level", [1.0, 0.5, 0.05])
def test_the_legend_box_meets_no_bar(level):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig = _figures.risk_plot(_risk(level))
    FigureCanvasAgg(fig)
    fig.draw_without_rendering()
    renderer = fig.canvas.get_renderer()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent(renderer)
    bars = [patch.get_window_extent(renderer) for patch in ax.patches]
    assert len(bars) == 14
    assert not any(legend.overlaps(bar) for bar in bars)
    figure = fig.bbox                                        # and it is inside the picture
    assert figure.x0 <= legend.x0 and legend.x1 <= figure.x1
