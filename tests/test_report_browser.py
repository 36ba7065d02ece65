"""The HTML report in a real browser: headless Chromium driven by Playwright.

Every section renders with its heading and content, every picture loads
(``naturalWidth > 0``), nothing is fetched from the network (every request
the page makes is recorded and must be the report file itself), and a
screenshot is taken. Skips with the reason when Playwright or the browser is
missing: ``pip install -e ".[browser]"`` (Playwright) and Debian's ``chromium`` package
(``/usr/bin/chromium``; another binary through ``KANON_GRAPH_CHROMIUM``).
``playwright install`` is not needed.
"""

import os
import shutil
from pathlib import Path

import pytest

import kanon_graph as kg
from kanon_graph import report

from report_cases import adult_report, patients_report

CHROMIUM = os.environ.get("KANON_GRAPH_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


def _skip_reason():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e \".[browser]\")"
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        return (f"no Chromium at {CHROMIUM} (apt-get install chromium, or set "
                "KANON_GRAPH_CHROMIUM)")
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


def open_report(path, action, *, width=1000):
    """Open ``path`` in headless Chromium, run ``action(page)``; return (result, requests)."""
    from playwright.sync_api import sync_playwright

    requests = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            # bypass_csp: the report's own policy would block a fetch silently; with it
            # off, any reference to the outside is requested, recorded and refused here
            context = browser.new_context(viewport={"width": width, "height": 900},
                                          bypass_csp=True)
            context.on("request", lambda r: requests.append(r.url))

            def refuse(route):          # anything but the report itself goes nowhere
                url = route.request.url
                if url == Path(path).resolve().as_uri() or url.startswith("data:"):
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", refuse)
            page = context.new_page()
            page.goto(Path(path).resolve().as_uri(), wait_until="load")
            return action(page), requests
        finally:
            browser.close()


def screenshot(path, target, *, width=1000, colors=32):
    """A full-page PNG of the report at ``path`` (used for docs/img too).

    With Pillow (matplotlib's dependency) the picture is reduced to ``colors``
    colours, which keeps a page of text, tables and flat charts legible at a
    third of the size.
    """
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    open_report(path, lambda page: page.screenshot(path=str(target), full_page=True),
                width=width)
    try:
        from PIL import Image
    except ImportError:
        return target
    with Image.open(target) as image:
        reduced = image.convert("RGB").quantize(colors=colors,
                                                method=Image.Quantize.FASTOCTREE)
    reduced.save(target, optimize=True)
    return target


def _inspect(page):
    sections = page.evaluate("""() => Array.from(document.querySelectorAll('section')).map(s => ({
        id: s.id, heading: s.querySelector('h2') ? s.querySelector('h2').innerText : null,
        height: s.getBoundingClientRect().height, text: s.innerText.length}))""")
    images = page.evaluate("""() => Array.from(document.images).map(i => ({
        complete: i.complete, width: i.naturalWidth, height: i.naturalHeight,
        shown: i.getBoundingClientRect().width, alt: i.alt}))""")
    return {"sections": sections, "images": images, "title": page.title()}


def _check(path, expected_images):
    seen, requests = open_report(path, _inspect)
    assert [r for r in requests if not r.startswith(("file:", "data:"))] == []
    assert [r for r in requests if r.startswith("file:")] == [Path(path).resolve().as_uri()]
    titles = dict(report.SECTIONS)
    assert [s["id"] for s in seen["sections"]] == list(titles)
    for s in seen["sections"]:
        assert s["heading"] == titles[s["id"]]
        assert s["height"] > 40 and s["text"] > len(s["heading"]) + 10, s
    assert len(seen["images"]) == expected_images
    for image in seen["images"]:
        assert image["complete"] and image["width"] > 100 and image["height"] > 50, image
        assert image["shown"] > 100, image
    return seen


def test_report_of_a_small_release_renders(tmp_path):
    table, schema = kg.datasets.paper_003_table(), kg.datasets.paper_003_schema()
    res = kg.anonymize(table, schema, k=3, algorithm="optimal")
    seen = _check(res.report(tmp_path / "r.html", title="Paper 003"), expected_images=5)
    assert seen["title"] == "Paper 003"
    shot = screenshot(tmp_path / "r.html", tmp_path / "r.png")
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 20_000


def test_patients_report_renders(tmp_path):
    path, _, _ = patients_report(tmp_path)
    _check(path, expected_images=5)
    (tmp_path / "mst").mkdir()
    local, _, _ = patients_report(tmp_path / "mst", algorithm="mst")
    # no lattice node: risk, loss, classes, and zip's levels (its leading zeros make it a
    # code column, masked by an inferred hierarchy; the other columns have none)
    _check(local, expected_images=4)


def test_adult_report_renders(tmp_path):
    made = adult_report(tmp_path)
    if made is None:
        pytest.skip("KANON_GRAPH_DATA is not set (Adult)")
    _check(made[0], expected_images=5)
    assert screenshot(made[0], tmp_path / "adult.png").stat().st_size > 50_000


def test_a_page_that_fetches_is_caught(tmp_path):
    page = tmp_path / "bad.html"
    page.write_text('<html><body><img src="http://203.0.113.1/x.png"></body></html>')
    _, requests = open_report(page, lambda p: None)
    assert "http://203.0.113.1/x.png" in requests
