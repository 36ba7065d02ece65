"""The explorer in a real browser: headless Chromium driven by Playwright (issue 49).

``kanon-graph explore`` serves a part of Adult; the page is opened at the URL
the command prints, and a user's walk is played through the page's own
controls, found by their role and label: a hierarchy is edited (an invalid
edit first, whose message must be the server's own), saved, and the file
read back equals the tree the server holds; k = 5 is run; a lattice node is
clicked and its release shown; the two releases are compared; one is
exported and the exported file is checked. Every request the page makes goes
to the explorer itself (anything else is recorded and refused), and a
request without the token is refused.

Skips with the reason when Playwright, the browser, the ``explore`` extra
(Starlette, uvicorn) or the Adult data (``KANON_GRAPH_DATA``) is missing,
like ``test_report_browser.py``. ``playwright install`` is not needed.

Run as a script, the same walk on the whole of Adult takes the screenshots of
docs/explore.md::

    python tests/test_explore_browser.py docs/img/explore
"""

import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pandas as pd
import pytest

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = os.environ.get("KANON_GRAPH_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]
#: The quasi-identifiers of the walk (Adult's own hierarchies, shipped in the package).
QIS = ["age", "sex", "race", "marital-status", "education"]
#: The screenshots of docs/explore.md (docs/make_pictures.py lists them too).
SHOTS = ("explore_hierarchies.png", "explore_run.png", "explore_lattice.png",
         "explore_compare.png")
WAIT_MS = 60_000


def _skip_reason():
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright is not installed (pip install -e \".[browser]\")"
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        return "the explorer's extra is not installed (pip install -e \".[explore]\")"
    if not (os.path.isfile(CHROMIUM) or shutil.which(CHROMIUM)):
        return (f"no Chromium at {CHROMIUM} (apt-get install chromium, or set "
                "KANON_GRAPH_CHROMIUM)")
    if not os.environ.get("KANON_GRAPH_DATA"):
        return "KANON_GRAPH_DATA is not set (Adult)"
    return None


pytestmark = pytest.mark.skipif(_skip_reason() is not None, reason=str(_skip_reason()))


# ---- the explorer, started as a user starts it ------------------------------------------

def adult_files(folder, rows=None):
    """Adult (its first ``rows`` rows) as a CSV, with its hierarchy files: (data, hierarchies)."""
    import kanon_graph as kg

    folder = Path(folder)
    source = Path(os.environ["KANON_GRAPH_DATA"]) / "adult" / "adult.csv"
    table = pd.read_csv(source, sep=";", dtype=str, keep_default_na=False, nrows=rows)
    data = folder / "adult.csv"
    table.to_csv(data, sep=";", index=False)
    hierarchies = folder / "hierarchies"
    hierarchies.mkdir()
    for qi in QIS:
        shutil.copy(Path(kg.datasets.adult_hierarchies_path()) / f"adult_hierarchy_{qi}.csv",
                    hierarchies)
    return data, hierarchies, len(table)


class Explorer:
    """``python -m kanon_graph explore ...`` in a process of its own, and its URL."""

    def __init__(self, data, hierarchies, exports, *, sensitive="occupation"):
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kanon_graph", "explore", str(data), "--qi", ",".join(QIS),
             "--sensitive", sensitive, "--hierarchies", str(hierarchies),
             "--exports", str(exports), "--no-browser"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        self.url = None
        for line in self.proc.stdout:            # the URL, on a line of its own
            if re.fullmatch(r"http://127\.0\.0\.1:\d+/\?token=[\w-]+", line.strip()):
                self.url = line.strip()
                break
        if self.url is None:
            self.proc.kill()
            raise AssertionError("kanon-graph explore printed no URL: " + self.proc.stderr.read())
        self.base, self.token = self.url.split("/?token=")
        port = int(self.base.rsplit(":", 1)[1])
        deadline = time.monotonic() + 60          # the URL is printed before it listens
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    self.proc.kill()
                    raise AssertionError("kanon-graph explore does not listen: "
                                         + self.proc.stderr.read()) from None
                time.sleep(0.1)

    def api(self, path, body=None, *, token=True):
        """(status, answer) of one request to the API, with the token or without."""
        headers = {"X-Token": self.token} if token else {}
        data = None
        if body is not None:
            data, headers["Content-Type"] = json.dumps(body).encode(), "application/json"
        request = urllib.request.Request(self.base + path, data=data, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                text = answer.read().decode()
                status = answer.status
        except urllib.error.HTTPError as error:
            text, status = error.read().decode(), error.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, text

    def stop(self):
        self.proc.terminate()
        try:
            self.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


@pytest.fixture(scope="module")
def adult_explorer(tmp_path_factory):
    folder = tmp_path_factory.mktemp("explore")
    data, hierarchies, rows = adult_files(folder, rows=4000)
    (folder / "exports").mkdir()
    explorer = Explorer(data, hierarchies, folder / "exports")
    explorer.folder, explorer.hierarchies, explorer.rows = folder, hierarchies, rows
    yield explorer
    explorer.stop()


# ---- the walk -------------------------------------------------------------------------

def leaf_paths(node, above=()):
    """The leaf-to-root label rows of a tree as the API sends it."""
    path = (node["label"],) + above
    if not node.get("children"):
        return [path]
    return [row for child in node["children"] for row in leaf_paths(child, path)]


def quantized(path, colors=48):
    """Reduce a screenshot to ``colors`` colours (Pillow, when installed): a third of the size."""
    try:
        from PIL import Image
    except ImportError:
        return path
    with Image.open(path) as image:
        image.convert("RGB").quantize(colors=colors, method=Image.Quantize.FASTOCTREE).save(
            path, optimize=True)
    return path


def walk(explorer, page, *, shots=None, export_to="walk", wait_ms=WAIT_MS):
    """Play the user's walk through the page; return what the test checks afterwards."""
    from playwright.sync_api import expect

    expect.set_options(timeout=wait_ms)
    seen = {}

    def shot(name):
        if shots is not None:
            page.screenshot(path=str(Path(shots) / name), full_page=True)
            quantized(Path(shots) / name)

    label = lambda text: page.get_by_label(text, exact=True)  # noqa: E731
    page.goto(explorer.url, wait_until="load")
    page.wait_for_selector("body[data-ready]")
    seen["session"] = page.locator("#session-line").inner_text()

    # 1. hierarchies: an invalid edit shows the server's own words; a valid one, saved
    label("Quasi-identifier").select_option("marital-status")
    expect(page.locator('#h-tree [data-label="Spouse absent"]')).to_have_count(1)
    label("Edit operation").select_option("move")
    label("Value").fill("Separated")
    label("To group").fill("No such group")
    page.get_by_role("button", name="Apply edit").click()
    expect(page.get_by_role("alert")).to_be_visible()
    seen["refused_shown"] = page.get_by_role("alert").inner_text()
    seen["refused_api"] = explorer.api("/api/hierarchy/marital-status/edit",
                                       {"op": "move", "value": "Separated", "to": "No such group"})
    label("To group").fill("Previously married")
    page.get_by_role("button", name="Apply edit").click()
    moved = page.locator('[data-label="Previously married"] [data-label="Separated"]')
    expect(moved).to_have_count(1)
    page.get_by_role("button", name="Save hierarchy").click()
    expect(page.locator("#h-saved")).to_contain_text("Saved to ")
    seen["saved"] = page.locator("#h-saved").inner_text().removeprefix("Saved to ").strip()
    shot(SHOTS[0])

    # 2. run k = 5 with a global recoding (it has a lattice), and wait: the page polls
    page.get_by_role("tab", name="Run").click()
    label("k").fill("5")
    expect(label("Algorithm")).to_have_value("auto")      # the default; on this part of Adult
    label("Algorithm").select_option("optimal")           # auto picks a local recoding
    page.get_by_role("button", name="Run", exact=True).click()
    expect(page.locator("#runs tr[data-state=done]")).to_have_count(1)
    first = page.locator("#runs tr[data-state=done]").get_attribute("data-run")
    shot(SHOTS[1])

    # 3. the lattice around the chosen node: click a more general neighbour
    page.get_by_role("tab", name="Lattice & release").click()
    expect(page.locator("#lat-status")).to_have_text(f"Release #{first} shown.")
    nodes = page.locator("svg.lattice g.node")
    expect(nodes.first).to_be_visible()
    chosen = page.locator("svg.lattice g.node.chosen").get_attribute("aria-label")
    # the lattice's box holds the drawing (and a reason only when there is one): no stray text
    assert "null" not in page.locator("#lattice").inner_text().split()
    height = lambda name: sum(map(int, re.match(r"Node ([\d,]+):", name).group(1).split(",")))  # noqa: E731
    names = [n.get_attribute("aria-label") for n in nodes.all()]
    above = [n for n in names if height(n) > height(chosen)]   # successors: anonymous too
    target = min(above, key=height)
    seen["node"] = [int(v) for v in re.match(r"Node ([\d,]+):", target).group(1).split(",")]
    page.get_by_role("button", name=target, exact=True).click()
    expect(page.locator("#runs tr[data-state=done]")).to_have_count(2)
    second = page.locator("#runs tr[data-state=done]").last.get_attribute("data-run")
    expect(page.locator("#lat-status")).to_have_text(f"Release #{second} shown.")
    seen["node_levels_shown"] = page.locator("#release .levels").inner_text()
    shot(SHOTS[2])

    # 4. compare the two releases, export the second
    page.get_by_role("tab", name="Compare").click()
    label("Release A").select_option(first)
    label("Release B").select_option(second)
    page.get_by_role("button", name="Compare", exact=True).click()
    expect(page.locator("#compare .release-card")).to_have_count(2)
    seen["losses_shown"] = page.locator("#compare .release-card .loss").all_inner_texts()
    label("Release to export").select_option(second)
    label("Export folder").fill(export_to)
    page.get_by_role("button", name="Export", exact=True).click()
    expect(page.locator("#exported li").first).to_be_visible()
    seen["files"] = page.locator("#exported li").all_inner_texts()
    shot(SHOTS[3])
    seen["runs"] = (first, second)
    return seen


def open_in_browser(url_base, action, *, width=1200):
    """Run ``action(page)`` in headless Chromium; return (result, every request made)."""
    from playwright.sync_api import sync_playwright

    requests = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            context = browser.new_context(viewport={"width": width, "height": 900})
            context.on("request", lambda r: requests.append(r.url))

            def refuse(route):          # anything but the explorer itself goes nowhere
                if route.request.url.startswith(url_base + "/"):
                    route.continue_()
                else:
                    route.abort()

            context.route("**/*", refuse)
            page = context.new_page()
            return action(page), requests
        finally:
            browser.close()


# ---- the tests ------------------------------------------------------------------------

def test_a_request_without_the_token_is_refused(adult_explorer):
    ex = adult_explorer
    for path in ("/", "/static/app.js", "/api/session", "/api/hierarchy/age"):
        status, text = ex.api(path, token=False)
        assert status == 403, (path, status)
        assert "Adult" not in str(text) and "Married" not in str(text)
    status, _ = ex.api("/api/session?token=" + "x" * len(ex.token), token=False)
    assert status == 403
    status, session = ex.api("/api/session")
    assert status == 200 and session["rows"] == ex.rows and session["qis"] == QIS

    def without_token(page):
        answer = page.goto(ex.base + "/", wait_until="load")
        return answer.status, page.locator("body").inner_text()

    (status, body), requests = open_in_browser(ex.base, without_token)
    assert status == 403 and "Married" not in body and "explorer" in body.lower()


def test_the_walk_through_the_page(adult_explorer):
    ex = adult_explorer
    import kanon_graph as kg

    seen, requests = open_in_browser(ex.base, lambda page: walk(ex, page))

    # nothing outside the explorer was asked for: its page, script, style and API only
    assert requests and all(r.startswith(ex.base + "/") for r in requests), requests
    for own in ("/static/style.css", "/static/draw.js", "/static/app.js"):
        assert any(own in r for r in requests), own
    assert f"{ex.rows:,} rows" in seen["session"]

    # the invalid edit: the page shows the library's message, word for word
    status, answer = seen["refused_api"]
    assert status == 400 and answer["error"] and seen["refused_shown"] == answer["error"]

    # the saved file reads back as the edited tree the server holds
    saved = Path(seen["saved"])
    assert saved.resolve().parent == ex.hierarchies.resolve()
    read = kg.hierarchy.read_hierarchy(saved)
    status, served = ex.api("/api/hierarchy/marital-status")
    assert status == 200
    assert sorted(map(tuple, read.to_rows())) == sorted(leaf_paths(served["tree"]))
    assert ("Separated", "Previously married") == tuple(
        next(r for r in read.to_rows() if r[0] == "Separated")[:2])

    # the clicked node's release is the release at that node's levels
    first, second = seen["runs"]
    status, lattice = ex.api(f"/api/release/{first}/lattice")
    vector = lambda levels: [levels[q] for q in QIS] if isinstance(levels, dict) else levels  # noqa: E731
    assert status == 200 and any(vector(n["levels"]) == seen["node"] for n in lattice["nodes"])
    assert [int(v) for v in re.findall(r"\d+", seen["node_levels_shown"])] == seen["node"]

    # the comparison shows the server's Loss of each release
    losses = []
    for run in (first, second):
        status, release = ex.api(f"/api/release/{run}")
        assert status == 200
        losses.append(f"{release['loss']:.4f}")
    assert seen["losses_shown"] == losses

    # the export: written files, and the released table is 5-anonymous in its own cells
    paths = [Path(f) for f in seen["files"]]
    assert paths and all(p.is_file() for p in paths)
    assert all((ex.folder / "exports").resolve() in p.resolve().parents for p in paths)
    csv = [p for p in paths if p.suffix == ".csv"]
    assert csv, paths
    released = pd.read_csv(csv[0], sep=None, engine="python", dtype=str, keep_default_na=False)
    assert len(released) == ex.rows
    starred = (released[QIS] == "*").all(axis=1)
    sizes = released.loc[~starred].groupby(QIS).size()
    assert sizes.min() >= 5


def test_a_release_that_fails_its_check_is_never_exported(adult_explorer):
    """A less general node than the chosen one fails k; its release is shown, never exported.

    Clicking it shows its release (the page says the check FAILS, as the
    server's check of its cells says); exporting it must then be refused with
    a message on the page, and no file written. If the server made that node's
    release anonymous instead (suppressing the failing classes), the exported
    file must hold k from its own cells.
    """
    from playwright.sync_api import expect

    ex = adult_explorer
    target = ex.folder / "exports" / "failing"

    def act(page):
        expect.set_options(timeout=WAIT_MS)
        page.goto(ex.url, wait_until="load")
        page.wait_for_selector("body[data-ready]")
        page.get_by_role("tab", name="Run").click()
        page.get_by_label("k", exact=True).fill("5")
        page.get_by_label("Algorithm", exact=True).select_option("optimal")
        page.get_by_role("button", name="Run", exact=True).click()
        expect(page.locator("#runs tr[data-state=done]")).to_have_count(1)
        page.get_by_role("tab", name="Lattice & release").click()
        expect(page.locator("svg.lattice g.node.chosen")).to_have_count(1)
        names = [n.get_attribute("aria-label") for n in page.locator("svg.lattice g.node").all()]
        level = lambda name: sum(map(int, re.match(r"Node ([\d,]+):", name).group(1).split(",")))  # noqa: E731
        chosen = page.locator("svg.lattice g.node.chosen").get_attribute("aria-label")
        below = [n for n in names if level(n) < level(chosen)]
        assert below, names
        page.get_by_role("button", name=below[0], exact=True).click()
        expect(page.locator("#runs tr[data-state=done]")).to_have_count(2)
        node_run = page.locator("#runs tr[data-state=done]").last.get_attribute("data-run")
        expect(page.locator("#lat-status")).to_have_text(f"Release #{node_run} shown.")
        check = page.locator("#release dd.check")
        holds = "holds" in (check.get_attribute("class") or "")
        page.get_by_role("tab", name="Compare").click()
        page.get_by_label("Release to export", exact=True).select_option(node_run)
        page.get_by_label("Export folder", exact=True).fill(target.name)
        page.get_by_role("button", name="Export", exact=True).click()
        expect(page.get_by_role("alert").or_(page.locator("#exported li").first)).to_be_visible()
        alert = page.get_by_role("alert")
        return holds, check.inner_text(), alert.inner_text() if alert.is_visible() else None

    (holds, check, refused), _ = open_in_browser(ex.base, act)
    written = sorted(target.glob("*.csv")) if target.exists() else []
    if not holds:
        assert "FAILS" in check
        assert refused and written == [], (refused, written)
    else:
        released = pd.read_csv(written[0], sep=None, engine="python", dtype=str,
                               keep_default_na=False)
        starred = (released[QIS] == "*").all(axis=1)
        assert released.loc[~starred].groupby(QIS).size().min() >= 5


def test_a_run_is_cancelled_and_the_page_answers_meanwhile(adult_explorer):
    """While a run works (in the server's worker), the page answers; Cancel ends the run."""
    from playwright.sync_api import expect

    ex = adult_explorer

    def act(page):
        expect.set_options(timeout=WAIT_MS)
        page.goto(ex.url, wait_until="load")
        page.wait_for_selector("body[data-ready]")
        page.get_by_role("tab", name="Run").click()
        page.get_by_label("k", exact=True).fill("2")
        page.get_by_label("Algorithm", exact=True).select_option("auto")
        page.get_by_role("button", name="Run", exact=True).click()
        row = page.locator("#runs tbody tr").last
        expect(row).to_have_attribute("data-state", "running")
        run = row.get_attribute("data-run")
        # the page is not waiting on the run: another view loads meanwhile
        page.get_by_role("tab", name="Hierarchies").click()
        page.get_by_label("Quasi-identifier", exact=True).select_option("education")
        expect(page.locator("#h-info")).to_contain_text("levels")
        expect(page.locator('#h-tree [data-label="Bachelors"]')).to_have_count(1)
        page.get_by_role("tab", name="Run").click()
        page.get_by_role("button", name=f"Cancel run {run}").click()
        expect(page.locator(f'#runs tr[data-run="{run}"]')).to_have_attribute(
            "data-state", "cancelled")
        return run

    run, _ = open_in_browser(ex.base, act)
    status, answer = ex.api(f"/api/run/{run}")
    assert status == 200 and answer["state"] == "cancelled"
    status, _ = ex.api(f"/api/release/{run}")
    assert status == 409                       # a cancelled run has no release


def test_a_tree_starts_from_a_builder_draft(adult_explorer):
    """Intervals of age drawn from the page; a builder's refusal shown in its own words.

    (Last in this module: the session's age tree is a draft afterwards.)
    """
    from playwright.sync_api import expect

    ex = adult_explorer
    bad = {"from": "intervals", "widths": [0]}

    def act(page):
        expect.set_options(timeout=WAIT_MS)
        page.goto(ex.url, wait_until="load")
        page.wait_for_selector("body[data-ready]")
        page.get_by_label("Quasi-identifier", exact=True).select_option("age")
        expect(page.locator("#h-info")).to_contain_text("levels")
        page.get_by_label("Draft from", exact=True).select_option("intervals")
        params = page.get_by_label("Draft parameters (name=value, comma-separated; a list: a;b;c)",
                                   exact=True)
        params.fill("widths=0")
        page.get_by_role("button", name="Make draft").click()
        expect(page.get_by_role("alert")).to_be_visible()
        refused = page.get_by_role("alert").inner_text()
        params.fill("widths=10;20")
        page.get_by_role("button", name="Make draft").click()
        expect(page.locator("#h-info")).to_contain_text("draft: intervals")
        top = page.locator("#h-tree > ul > li > details > ul > li")
        return refused, [li.get_attribute("data-label") for li in top.all()]

    (refused, top), _ = open_in_browser(ex.base, act)
    status, answer = ex.api("/api/hierarchy/age/draft", bad)
    assert status == 400 and refused == answer["error"]
    status, served = ex.api("/api/hierarchy/age")
    assert status == 200 and served["source"] == "draft: intervals"
    assert top == [child["label"] for child in served["tree"]["children"]]
    assert 2 <= len(top) <= 10       # widths 10 then 20: Adult's ages in bands of 20


def main(folder):
    """The walk on the whole of Adult, screenshots saved in ``folder`` (docs/img/explore)."""
    import tempfile

    reason = _skip_reason()
    if reason:
        raise SystemExit(reason)
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        data, hierarchies, _ = adult_files(tmp)
        (Path(tmp) / "exports").mkdir()
        explorer = Explorer(data, hierarchies, Path(tmp) / "exports")
        try:
            open_in_browser(explorer.base, lambda page: walk(explorer, page, shots=out,
                                                             export_to="adult-k5",
                                                             wait_ms=600_000))
        finally:
            explorer.stop()
    for name in SHOTS:
        print(out / name)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ROOT / "docs" / "img" / "explore")
