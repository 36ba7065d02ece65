"""Measured layouts: figures sized in inches around the labels they hold.

A drawing of boxes (a hierarchy tree, a lattice) is laid out in inches: its
texts are created first, measured by the figure's own renderer, and then
placed so that no two boxes meet. The figure is then sized around the
drawing, its title, its y tick labels and a footer, so nothing leaves it.
Data units of such an axes are inches (1 unit = 1 inch of the figure).
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

#: Inches around the axes: right of it, between a label and the figure's edge.
EDGE = 0.12
#: Inches between the title and the axes (matplotlib's title pad is 6 points).
TITLE_GAP = 0.16


def wrap(label, width):
    """``label`` wrapped on spaces to lines of at most ``width`` characters.

    A word longer than ``width`` stays whole (no label is cut); hyphens are
    no break points (``Exec-managerial`` stays one word).

    >>> wrap("Technical, sales and administrative support", 20)
    'Technical, sales and\\nadministrative\\nsupport'
    >>> wrap("Exec-managerial", 8)
    'Exec-managerial'
    """
    text = str(label)
    if len(text) <= width:
        return text
    lines = textwrap.wrap(text, width, break_long_words=False, break_on_hyphens=False)
    return "\n".join(lines) if lines else text


#: Resolutions a layout is measured at, the widest taken (plus :data:`SLACK`): text
#: drawn at 50 dpi is hinted up to 12% wider than at 100 dpi, and other resolutions
#: stay within 2% of these, so a layout measured at one dpi alone would overlap
#: when saved at another.
MEASURE_DPI = (50, 72, 100)
SLACK = 1.02


def box_pad(text):
    """Inches a text's rounded box (``bbox=``) adds on each side of its glyphs."""
    patch = text.get_bbox_patch()
    if patch is None:
        return 0.0
    pad = getattr(patch.get_boxstyle(), "pad", 0.0)
    return pad * text.get_fontsize() / 72.0 + patch.get_linewidth() / 72.0


def extents(fig, artists):
    """(width, height) in inches of each artist, the largest over :data:`MEASURE_DPI`."""
    artists = list(artists)
    out = [(0.0, 0.0)] * len(artists)
    dpi = fig.dpi
    try:
        for measure in MEASURE_DPI:
            fig.set_dpi(measure)
            renderer = fig.canvas.get_renderer()
            for i, artist in enumerate(artists):
                box = artist.get_window_extent(renderer)
                out[i] = (max(out[i][0], SLACK * box.width / measure),
                          max(out[i][1], SLACK * box.height / measure))
    finally:
        fig.set_dpi(dpi)
    return out


def box_sizes(fig, texts):
    """(width, height) in inches of each text with its rounded box."""
    texts = list(texts)
    return [(w + 2 * box_pad(t), h + 2 * box_pad(t))
            for t, (w, h) in zip(texts, extents(fig, texts))]


@dataclass
class Frame:
    """The margins of a figure sized around a drawing, in inches."""

    left: float
    right: float
    top: float
    bottom: float
    width: float        # of the drawing (the axes)
    height: float

    @property
    def size(self):
        return (self.left + self.width + self.right, self.bottom + self.height + self.top)


def frame_figure(fig, ax, width, height, *, ticks=(), footer=None, legend=None):
    """Size ``fig`` around a drawing of ``width`` x ``height`` inches in ``ax``.

    ``ticks`` are the y tick label texts (measured for the left margin), the
    axes title is measured for the top margin, and ``footer`` (a figure
    text, bottom left) and ``legend`` (bottom right) share a bottom band.
    The drawing is widened, centred, when the title or the footer and legend
    need more room; returns the horizontal shift of the drawing in inches.
    """
    ticks = list(ticks)
    measured = extents(fig, ticks + [ax.title] + [a for a in (footer, legend) if a is not None])
    tick_w = max((w for w, _ in measured[:len(ticks)]), default=0.0)
    left = tick_w + (0.2 if ticks else 0.0) + EDGE
    title_w, title_h = measured[len(ticks)] if ax.get_title() else (0.0, 0.0)
    top = title_h + TITLE_GAP + EDGE
    rest = iter(measured[len(ticks) + 1:])
    foot_w, foot_h = next(rest) if footer is not None else (0.0, 0.0)
    leg_w, leg_h = next(rest) if legend is not None else (0.0, 0.0)
    bottom = EDGE + (max(foot_h, leg_h) + 0.1 if footer is not None or legend is not None
                     else 0.0)
    band = foot_w + leg_w + (0.3 if footer is not None and legend is not None else 0.0)
    # the bottom band runs across the whole figure: left + inner + EDGE >= band + 2 EDGE
    inner = max(width, title_w + 0.1, band + EDGE - left)
    shift = (inner - width) / 2
    frame = Frame(left, EDGE, top, bottom, inner, height)
    fw, fh = frame.size
    fig.set_size_inches(fw, fh)
    ax.set_position([left / fw, bottom / fh, inner / fw, height / fh])
    ax.set_xlim(0, inner)
    ax.set_ylim(0, height)
    if footer is not None:
        footer.set_transform(fig.dpi_scale_trans)
        footer.set_position((EDGE, EDGE))
        footer.set_ha("left")
        footer.set_va("bottom")
    if legend is not None:
        legend.set_bbox_to_anchor((fw - EDGE, EDGE), transform=fig.dpi_scale_trans)
    return shift


def fit_into(ax, width, height):
    """Scale of a drawing of ``width`` x ``height`` inches into a caller's ``ax`` (<= 1).

    Sets equal limits on both axes so the drawing keeps its proportions,
    centred; the caller multiplies every font size by the returned scale,
    which keeps the measured layout free of overlaps at the smaller size.
    """
    box = ax.get_position()
    fw, fh = ax.figure.get_size_inches()
    aw, ah = box.width * fw, box.height * fh
    scale = min(1.0, aw / width, ah / height)
    span_w, span_h = aw / scale, ah / scale
    ax.set_xlim(-(span_w - width) / 2, width + (span_w - width) / 2)
    ax.set_ylim(-(span_h - height) / 2, height + (span_h - height) / 2)
    return scale
