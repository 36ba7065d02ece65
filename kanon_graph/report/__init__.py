"""A privacy report a custodian can hand on: one HTML page, or the same as JSON.

The report answers the two questions a release is signed off on -- how likely
is re-identification, and what did the release cost -- and records how it was
made:

* the privacy model and whether it holds, checked from the released cells;
* re-identification risk of the original and of the release
  (:mod:`kanon_graph.risk`: prosecutor, journalist, marketer, sample and
  population uniques, Benedetti-Franconi individual risk), and which
  population model journalist and marketer risk used;
* information loss per attribute and overall, the class-size histogram, the
  records at each level of every hierarchy, the lattice node of a global
  recoding, the suppressed count;
* the command or call that made it and SHA-256 checksums of input and output.

It holds counts, measures, column names and released labels, never a value of
an identifier column nor an original value of a generalized quasi-identifier.
The HTML page is self-contained (pictures are inline SVG data; nothing is
fetched). Without matplotlib the pictures are left out and their numbers stay.

Examples
--------
>>> import json, os, tempfile
>>> import kanon_graph as kg
>>> table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
>>> res = kg.anonymize(table, schema, k=3, algorithm="optimal")
>>> content = kg.report.build_report(table, res.table, schema, k=3)
>>> content["privacy"]["holds"], content["lattice"]["global"]
(True, True)
>>> path = os.path.join(tempfile.mkdtemp(), "report.html")
>>> kg.report.write_report(content, path).suffix
'.html'
"""

from __future__ import annotations

import json

from ._content import SECTIONS, build_report, dp_statement
from ._files import _write_text, file_checksum, table_checksum
from ._html import render_html, render_sections

__all__ = ["SECTIONS", "build_report", "dp_statement", "file_checksum", "render_html", "render_sections",
           "report_json", "table_checksum", "write_report"]


def report_json(content):
    """The report content as indented JSON text."""
    return json.dumps(content, indent=2, allow_nan=False) + "\n"


def write_report(content, path, *, format=None):
    """Write the report to ``path`` as HTML or JSON (atomically); return the path.

    Parameters
    ----------
    content : dict
        From :func:`build_report`.
    path : str or path-like
    format : {"html", "json"}, optional
        Default: from the file's extension (``.json`` is JSON, anything else HTML).
    """
    from pathlib import Path

    path = Path(path)
    if format is None:
        format = "json" if path.suffix.lower() == ".json" else "html"
    if format not in ("html", "json"):
        raise ValueError(f"The 'format' parameter of write_report must be 'html' or 'json'. "
                         f"Got {format!r}.")
    text = render_html(content) if format == "html" else report_json(content)
    return _write_text(text, path)
