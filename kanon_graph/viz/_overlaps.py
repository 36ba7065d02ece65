"""Does a drawn figure read? Overlapping and clipped texts, measured after a draw.

Used by the tests of every picture and by ``docs/check_pictures.py``. A
text's box is what the reader sees: its rendered glyphs and, when it has
one, the rounded box drawn around it (``bbox=``). Two boxes overlap when
their interiors meet; a box is clipped when it leaves the figure.
"""

from __future__ import annotations

import io
from itertools import combinations

__all__ = ["text_boxes", "overlapping_texts", "clipped_texts", "layout_problems"]

#: Pixels two boxes may share, or a box may pass the figure's edge, before it counts
#: (antialiasing of a box's border; far below a glyph).
TOLERANCE = 0.5


def _draw(fig, bbox_inches):
    """Save ``fig`` as a user would; return the renderer and the texts actually drawn.

    Only drawn texts count: tick labels of a hidden axis or outside the view
    are artists of the figure too, but nobody sees them.
    """
    from matplotlib.text import Text

    drawn = {}
    draw = Text.draw

    def recording(self, renderer):
        if self.get_visible() and self.get_text().strip():
            drawn[id(self)] = self
        return draw(self, renderer)

    Text.draw = recording
    try:
        fig.savefig(io.BytesIO(), format="png", dpi=fig.dpi, bbox_inches=bbox_inches)
    finally:
        Text.draw = draw
    return fig.canvas.get_renderer(), list(drawn.values())


def text_boxes(fig, *, bbox_inches="tight"):
    """Every text drawn when ``fig`` is saved, with its box in display pixels.

    Parameters
    ----------
    fig : matplotlib.figure.Figure
    bbox_inches : str or None
        Passed to ``savefig`` for the draw that lays the texts out.

    Returns
    -------
    list of (Text, Bbox)
        The box is the union of the glyphs' extent and the text's own
        rounded box (``bbox=``) when it has one.
    """
    from matplotlib.transforms import Bbox

    renderer, drawn = _draw(fig, bbox_inches)
    out = []
    for text in drawn:
        box = text.get_window_extent(renderer)
        patch = text.get_bbox_patch()
        if patch is not None:
            box = Bbox.union([box, patch.get_window_extent(renderer)])
        out.append((text, box))
    return out


def _overlaps(boxes):
    shrunk = [(text.get_text(), box.padded(-TOLERANCE)) for text, box in boxes]
    return [(a, b) for (a, ba), (b, bb) in combinations(shrunk, 2) if ba.overlaps(bb)]


def _clipped(fig, boxes):
    frame = fig.bbox.padded(TOLERANCE)
    return [t.get_text() for t, b in boxes
            if b.x0 < frame.x0 or b.y0 < frame.y0 or b.x1 > frame.x1 or b.y1 > frame.y1]


def overlapping_texts(fig, *, bbox_inches="tight"):
    """Pairs of texts of ``fig`` whose boxes overlap, as ``(text, text)`` strings."""
    return _overlaps(text_boxes(fig, bbox_inches=bbox_inches))


def clipped_texts(fig):
    """Texts of ``fig`` whose box leaves the figure as it is sized."""
    return _clipped(fig, text_boxes(fig, bbox_inches=None))


def layout_problems(fig):
    """Overlapping pairs and clipped texts of ``fig``, from one draw at the figure's size.

    Saving with ``bbox_inches="tight"`` only moves the drawing within a
    cropped canvas, so the pairs that overlap are the same either way.

    Returns
    -------
    dict
        ``{"overlaps": [(text, text), ...], "clipped": [text, ...]}``; both
        empty for a figure that reads.
    """
    boxes = text_boxes(fig, bbox_inches=None)
    return {"overlaps": _overlaps(boxes), "clipped": _clipped(fig, boxes)}
