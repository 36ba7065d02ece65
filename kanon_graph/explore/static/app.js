// The explorer's page: plain JavaScript, no framework, nothing fetched from outside.
// Every request goes to the server that served the page, with the token of the page's
// address in the X-Token header. The page never receives the rows: every view is a
// summary the server computed from counts (docs/reference/explore-api.md).
"use strict";

(function () {
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  const SVG = "http://www.w3.org/2000/svg";
  const POLL_MS = 400;
  const state = {session: null, qi: null, runs: new Map(), order: [], shown: null};

  // ---- small helpers -------------------------------------------------------------
  function $(id) { return document.getElementById(id); }

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : value);
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  function svg(tag, attrs, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === "text") node.textContent = value;
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children.flat()) if (child) node.append(child);
    return node;
  }

  function fmt(value, digits) {
    if (value === null || value === undefined) return "-";
    if (typeof value === "number") {
      if (Number.isInteger(value)) return value.toLocaleString("en");
      return value.toFixed(digits === undefined ? 4 : digits);
    }
    if (Array.isArray(value)) return "[" + value.map((v) => fmt(v, digits)).join(", ") + "]";
    if (typeof value === "object") {
      return Object.entries(value).map(([k, v]) => k + " " + fmt(v, digits)).join(", ");
    }
    return String(value);
  }

  function say(text, kind) {
    const box = $("message");
    box.textContent = text;
    box.className = "message " + (kind || "error");
    box.hidden = !text;
  }

  // Every request carries the token; a refused request throws the server's own words.
  async function api(method, path, body) {
    const init = {method: method, headers: {"X-Token": TOKEN}};
    if (body !== undefined) {
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
    if (!response.ok) {
      const error = new Error(data && data.error !== undefined ? String(data.error)
                              : (text || response.status + " " + response.statusText));
      error.status = response.status;
      throw error;
    }
    return data;
  }

  async function attempt(action) {
    try {
      return await action();
    } catch (error) {
      say(error.message, "error");
      return undefined;
    }
  }

  // ---- tabs ----------------------------------------------------------------------
  function showTab(tab) {
    for (const other of document.querySelectorAll('[role="tab"]')) {
      const chosen = other === tab;
      other.setAttribute("aria-selected", chosen ? "true" : "false");
      other.tabIndex = chosen ? 0 : -1;
      $(other.getAttribute("aria-controls")).hidden = !chosen;
    }
  }

  function setupTabs() {
    const tabs = Array.from(document.querySelectorAll('[role="tab"]'));
    tabs.forEach((tab, i) => {
      tab.addEventListener("click", () => showTab(tab));
      tab.addEventListener("keydown", (event) => {
        const step = {ArrowRight: 1, ArrowLeft: -1}[event.key];
        if (!step) return;
        const next = tabs[(i + step + tabs.length) % tabs.length];
        showTab(next);
        next.focus();
      });
    });
  }

  // ---- 1. hierarchies ------------------------------------------------------------
  function nodeLine(node) {
    const meta = ["level " + node.level, fmt(node.records) + " records"];
    if (node.chd !== undefined && node.chd !== null) meta.push("CHD " + fmt(node.chd, 3));
    if (node.magval) meta.push(node.magval === true ? "MAGVal" : "MAGVal " + fmt(node.magval));
    return [el("span", {class: "label", text: node.label}),
            el("span", {class: "meta", text: meta.join(" · ")})];
  }

  function countNodes(node) {
    return 1 + (node.children || []).reduce((sum, c) => sum + countNodes(c), 0);
  }

  function treeItem(node, depth, openBelow) {
    const children = node.children || [];
    if (!children.length) {
      const leaf = el("li", {role: "treeitem", class: "leaf", "data-label": node.label},
                      el("span", {class: "pick", title: "use this value in an edit",
                                  onclick: () => { $("h-value").value = node.label; }},
                         nodeLine(node)));
      return leaf;
    }
    const summary = el("summary", {}, nodeLine(node));
    summary.querySelector(".label").addEventListener("click", (event) => {
      event.preventDefault();          // the label fills the edit form; the marker folds
      for (const id of ["h-to", "h-group", "h-parent"]) $(id).value = node.label;
    });
    const open = depth < openBelow;
    const details = el("details", {open: open || null}, summary,
                       el("ul", {role: "group"}, children.map((c) => treeItem(c, depth + 1, openBelow))));
    details.addEventListener("toggle", () => {
      details.parentNode.setAttribute("aria-expanded", details.open ? "true" : "false");
    });
    return el("li", {role: "treeitem", "aria-expanded": open ? "true" : "false",
                     "data-label": node.label}, details);
  }

  function showTree(data) {
    state.qi = data.qi;
    const box = $("h-tree");
    // a small tree is shown whole; a large one folded below its second level
    const openBelow = countNodes(data.tree) <= 60 ? Infinity : 2;
    box.replaceChildren(el("ul", {}, treeItem(data.tree, 0, openBelow)));
    const info = (state.session && state.session.hierarchies || {})[data.qi] || {};
    $("h-info").textContent = fmt(data.levels) + " levels" +
      (info.source ? " · source: " + info.source : "");
  }

  async function loadHierarchy(qi) {
    const data = await attempt(() => api("GET", "/api/hierarchy/" + encodeURIComponent(qi)));
    if (data) showTree(data);
  }

  function editBody() {
    const op = $("h-op").value;
    const text = (id) => $(id).value.trim();
    if (op === "move") return {op: op, value: text("h-value"), to: text("h-to")};
    if (op === "rename") return {op: op, group: text("h-group"), name: text("h-name")};
    if (op === "add_group") {
      return {op: op, name: text("h-name"), parent: text("h-parent"),
              members: text("h-members").split(",").map((m) => m.trim()).filter((m) => m)};
    }
    if (op === "drop_level") return {op: op, level: Number($("h-level").value)};
    return {op: op};
  }

  function showEditFields() {
    const op = $("h-op").value;
    for (const label of document.querySelectorAll("#h-edit-form [data-ops]")) {
      label.hidden = !label.dataset.ops.split(" ").includes(op);
    }
  }

  function draftParams(text) {
    const params = {};
    for (const part of text.split(",")) {
      if (!part.trim()) continue;
      const at = part.indexOf("=");
      if (at < 0) throw new Error("Draft parameters: write name=value, got '" + part.trim() + "'");
      const value = part.slice(at + 1).trim();
      params[part.slice(0, at).trim()] = value !== "" && !isNaN(Number(value)) ? Number(value) : value;
    }
    return params;
  }

  function setupHierarchies() {
    $("h-qi").addEventListener("change", () => loadHierarchy($("h-qi").value));
    $("h-op").addEventListener("change", showEditFields);
    showEditFields();
    $("h-expand").addEventListener("click", () => {
      for (const d of document.querySelectorAll("#h-tree details")) d.open = true;
    });
    $("h-collapse").addEventListener("click", () => {
      for (const d of document.querySelectorAll("#h-tree details")) d.open = false;
    });
    $("h-edit-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = await attempt(() => api(
        "POST", "/api/hierarchy/" + encodeURIComponent(state.qi) + "/edit", editBody()));
      if (data) { showTree(data); say("", ""); }
    });
    $("h-draft-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const data = await attempt(() => api(
        "POST", "/api/hierarchy/" + encodeURIComponent(state.qi) + "/draft",
        Object.assign({from: $("h-draft").value}, draftParams($("h-draft-params").value))));
      if (data) { showTree(data); say("", ""); }
    });
    $("h-save").addEventListener("click", async () => {
      const data = await attempt(() => api(
        "POST", "/api/hierarchy/" + encodeURIComponent(state.qi) + "/save", {}));
      if (data) { $("h-saved").textContent = "Saved to " + data.path; say("", ""); }
    });
  }

  // ---- 2. runs -------------------------------------------------------------------
  function runLabel(run) {
    if (run.node) return "#" + run.id + " node " + fmt(run.node);
    const p = run.params;
    const parts = ["k=" + p.k];
    if (p.l !== undefined) parts.push("l=" + p.l);
    if (p.t !== undefined) parts.push("t=" + p.t);
    if (p.suppression !== undefined) parts.push("suppression=" + p.suppression);
    parts.push(p.algorithm);
    return "#" + run.id + " " + parts.join(" ");
  }

  function runRow(run) {
    const progress = el("progress", {max: "1", "aria-label": "Progress of run " + run.id});
    const p = run.progress;      // a share, or {done, total, text}
    if (typeof p === "number") progress.value = p;
    else if (p && p.total) progress.value = p.done / p.total;
    if (run.state === "done") progress.value = 1;
    const cancel = run.state === "running"
      ? el("button", {type: "button", "aria-label": "Cancel run " + run.id,
                      onclick: () => attempt(() => api("POST", "/api/run/" + run.id + "/cancel"))},
           "Cancel")
      : null;
    const loss = run.summary && run.summary.loss !== undefined ? fmt(run.summary.loss) : "";
    return el("tr", {"data-run": run.id, "data-state": run.state},
              el("td", {text: "#" + run.id}), el("td", {text: runLabel(run).replace(/^#\S+ /, "")}),
              el("td", {class: "state", text: run.state + (run.error ? ": " + run.error : "")}),
              el("td", {}, progress, p && p.text ? el("span", {class: "muted", text: " " + p.text}) : null),
              el("td", {text: loss}), el("td", {}, cancel));
  }

  function refreshRuns() {
    const body = $("runs").querySelector("tbody");
    body.replaceChildren(...state.order.map((id) => runRow(state.runs.get(id))));
    const done = state.order.map((id) => state.runs.get(id)).filter((r) => r.state === "done");
    for (const id of ["rel-select", "cmp-a", "cmp-b", "exp-which"]) {
      const select = $(id);
      const before = select.value;
      select.replaceChildren(...done.map((r) => el("option", {value: r.id, text: runLabel(r)})));
      if (done.some((r) => String(r.id) === before)) select.value = before;
    }
    if (done.length > 1 && $("cmp-a").value === $("cmp-b").value) {
      $("cmp-a").value = done[done.length - 2].id;
      $("cmp-b").value = done[done.length - 1].id;
    }
  }

  function track(id, params, node, onDone) {
    const run = {id: String(id), params: params, node: node, state: "running"};
    state.runs.set(run.id, run);
    state.order.push(run.id);
    refreshRuns();
    const poll = async () => {
      let data;
      try {
        data = await api("GET", "/api/run/" + run.id);
      } catch (error) {
        run.state = "failed"; run.error = error.message; refreshRuns(); return;
      }
      Object.assign(run, {state: data.state, progress: data.progress, error: data.error,
                          summary: data.summary});
      refreshRuns();
      if (data.state === "running") setTimeout(poll, POLL_MS);
      else if (data.state === "done" && onDone) onDone(run);
      else if (data.state === "failed") say("Run #" + run.id + " failed: " + data.error, "error");
    };
    setTimeout(poll, 50);
    return run;
  }

  function runBody() {
    const body = {k: Number($("run-k").value), algorithm: $("run-algorithm").value};
    for (const [key, id] of [["l", "run-l"], ["t", "run-t"], ["suppression", "run-suppression"]]) {
      if ($(id).value.trim() !== "") body[key] = Number($(id).value);
    }
    if ($("run-boundaries").checked) body.respect_boundaries = true;
    return body;
  }

  function setupRun() {
    $("run-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = runBody();
      const data = await attempt(() => api("POST", "/api/run", body));
      if (!data) return;
      say("", "");
      track(data.run, body, null, (run) => {
        if (!state.shown) { $("rel-select").value = run.id; showRelease(run.id); }
      });
    });
  }

  // ---- 3. lattice and release ----------------------------------------------------
  function classRows(classes) {
    // the histogram of class sizes, as rows [size label, number of classes]: the server's
    // bands [{from, to, classes, records}], or {size: count}, [[size, count]], [{size, count}]
    if (!classes) return [];
    if (Array.isArray(classes)) {
      return classes.map((c) => {
        if (Array.isArray(c)) return [c[0], c[1]];
        if (c.from !== undefined) return [c.from === c.to ? String(c.from) : c.from + "-" + c.to, c.classes];
        return [c.size, c.count];
      });
    }
    if (classes.sizes && classes.counts) return classes.sizes.map((s, i) => [s, classes.counts[i]]);
    return Object.entries(classes);
  }

  function histogram(classes, label) {
    const rows = classRows(classes);
    if (!rows.length) return el("p", {class: "muted", text: "No class."});
    const most = Math.max(...rows.map((r) => Number(r[1])));
    const barW = Math.max(6, Math.min(28, Math.floor(420 / rows.length)));
    const height = 120;
    const widest = Math.max(...rows.map((r) => String(r[0]).length));
    const step = Math.max(1, Math.ceil((widest * 6 + 4) / barW));   // labels that do not overlap
    const chart = svg("svg", {width: rows.length * barW + 40, height: height + 34,
                              role: "img", "aria-label": label, class: "histogram"});
    rows.forEach(([size, count], i) => {
      const h = Math.max(1, Math.round(height * Number(count) / most));
      chart.append(svg("rect", {x: 30 + i * barW, y: 10 + height - h, width: barW - 2, height: h},
                       svg("title", {text: fmt(count) + " classes of size " + size})));
      if (i % step === 0) {
        chart.append(svg("text", {x: 30 + i * barW + barW / 2, y: height + 24,
                                  "text-anchor": "middle", text: String(size)}));
      }
    });
    chart.append(svg("text", {x: 2, y: 16, text: fmt(most)}));
    return el("div", {}, chart, el("p", {class: "muted", text: "class size (x) against the number of classes (y)"}));
  }

  function profile(profiles) {
    const rows = Object.entries(profiles || {}).map(([qi, entry]) => {
      // [share at each level], or {kind: "levels" | "unchanged", shares: [...]}
      const shares = Array.isArray(entry) ? entry : (entry && entry.shares) || [];
      const unchanged = entry && entry.kind === "unchanged";
      const name = (i) => unchanged ? (i === 0 ? "unchanged" : "generalized") : "level " + i;
      const bar = el("div", {class: "stack", role: "img",
                             "aria-label": qi + ": " + shares.map((s, i) =>
                               name(i) + " " + Math.round(100 * s) + "%").join(", ")});
      shares.forEach((share, level) => {
        if (share > 0) {
          bar.append(el("span", {class: "lv lv" + Math.min(level, 7), style: "width:" + (100 * share) + "%",
                                 title: name(level) + ": " + (100 * share).toFixed(1) + "% of rows"},
                        share >= 0.08 ? String(level) : ""));
        }
      });
      return el("tr", {}, el("th", {scope: "row", text: qi}), el("td", {}, bar));
    });
    return el("table", {class: "profile"}, el("tbody", {}, rows));
  }

  function riskRows(side) {
    // {model: figure} or {model: {highest, average, at_risk}} -> {"model measure": figure}
    const rows = {};
    for (const [model, value] of Object.entries(side || {})) {
      if (value !== null && typeof value === "object" && !Array.isArray(value)) {
        for (const [measure, figure] of Object.entries(value)) rows[model + " " + measure.replace(/_/g, " ")] = figure;
      } else {
        rows[model] = value;
      }
    }
    return rows;
  }

  function riskTable(risk) {
    const before = riskRows(risk && risk.before);
    const after = riskRows(risk && risk.after);
    const names = Array.from(new Set([...Object.keys(before), ...Object.keys(after)]));
    return el("table", {class: "risk"},
              el("thead", {}, el("tr", {}, el("th", {text: "risk"}), el("th", {text: "before"}),
                                 el("th", {text: "after"}))),
              el("tbody", {}, names.map((m) => el("tr", {}, el("th", {scope: "row", text: m}),
                                                  el("td", {text: fmt(before[m])}),
                                                  el("td", {text: fmt(after[m])})))));
  }

  function collapsedList(collapsed) {
    const entries = Object.entries(collapsed || {});
    if (!entries.length) return el("p", {class: "muted", text: "No cell collapsed to *."});
    return el("ul", {class: "collapsed"}, entries.map(([qi, cells]) => el("li", {},
      el("strong", {text: qi + ": "}),
      typeof cells === "number" ? fmt(cells) + " cells" : fmt(cells))));
  }

  function checkLine(verified) {
    // the server's check of the released cells: holds, or FAILS (shown, never hidden)
    if (!verified) return null;
    const holds = verified.holds !== undefined ? verified.holds : verified.passed;
    const text = verified.described || (holds ? "holds" : "FAILS");
    return [el("dt", {text: "Privacy check"}),
            el("dd", {class: "check " + (holds ? "holds" : "fails"), text: text})];
  }

  function releasePanel(rel, title) {
    return el("article", {class: "release-card", "aria-label": title},
      el("h3", {text: title}),
      el("dl", {},
         checkLine(rel.verified),
         el("dt", {text: "Loss"}), el("dd", {class: "loss", text: fmt(rel.loss)}),
         el("dt", {text: "Suppressed rows"}), el("dd", {text: fmt(rel.suppressed)}),
         el("dt", {text: "Algorithm"}), el("dd", {text: fmt(rel.algorithm)}),
         el("dt", {text: "Parameters"}), el("dd", {text: fmt(rel.params)}),
         rel.levels !== undefined ? [el("dt", {text: "Levels"}), el("dd", {class: "levels", text: fmt(rel.levels)})] : null),
      el("h4", {text: "Risk before and after"}), riskTable(rel.risk),
      el("h4", {text: "Class sizes"}), histogram(rel.classes, "Class sizes of " + title),
      el("h4", {text: "Level profile (share of rows at each level)"}), profile(rel.profile),
      el("h4", {text: "Cells collapsed to *"}), collapsedList(rel.collapsed));
  }

  function drawLattice(lattice, releaseId) {
    const box = $("lattice");
    const nodes = (lattice && lattice.nodes) || [];
    if (!nodes.length) {
      box.replaceChildren(el("p", {class: "muted", text: (lattice && lattice.reason) ||
                                   "No lattice for this release."}));
      return;
    }
    // a node's levels: a list, or {qi: level} in the order of the lattice's names
    const names = lattice.names || Object.keys(nodes[0].levels);
    for (const n of nodes) {
      n.vector = Array.isArray(n.levels) ? n.levels : names.map((name) => n.levels[name]);
    }
    const height = (n) => n.vector.reduce((a, b) => a + b, 0);
    const rows = new Map();
    for (const n of nodes) {
      const h = height(n);
      if (!rows.has(h)) rows.set(h, []);
      rows.get(h).push(n);
    }
    const heights = Array.from(rows.keys()).sort((a, b) => b - a);   // most general on top
    const W = 118, H = 50, GAP_X = 12, GAP_Y = 40;
    const widest = Math.max(...Array.from(rows.values()).map((r) => r.length));
    const width = widest * (W + GAP_X) + GAP_X;
    const place = new Map();
    heights.forEach((h, row) => {
      const line = rows.get(h).sort((a, b) => fmt(a.vector).localeCompare(fmt(b.vector)));
      const offset = (width - line.length * (W + GAP_X) + GAP_X) / 2;
      line.forEach((n, i) => place.set(String(n.id), {x: offset + i * (W + GAP_X), y: 10 + row * (H + GAP_Y)}));
    });
    const total = 20 + heights.length * (H + GAP_Y) - GAP_Y;
    const chart = svg("svg", {viewBox: "0 0 " + width + " " + total, width: width, height: total,
                              class: "lattice", role: "group", "aria-label": "Lattice nodes"});
    for (const [a, b] of (lattice.edges || [])) {
      const p = place.get(String(a)), q = place.get(String(b));
      if (p && q) chart.append(svg("line", {x1: p.x + W / 2, y1: p.y + H / 2, x2: q.x + W / 2, y2: q.y + H / 2}));
    }
    for (const n of nodes) {
      const p = place.get(String(n.id));
      const words = "Node " + n.vector.join(",") + ": Loss " + fmt(n.loss) + ", smallest class " +
        fmt(n.min_class) + ", suppressed " + fmt(n.suppressed) + (n.pruned ? ", pruned" : "") +
        (n.chosen ? ", chosen" : "");
      const open = () => openNode(releaseId, n);
      const g = svg("g", {class: "node" + (n.chosen ? " chosen" : "") + (n.pruned ? " pruned" : ""),
                          transform: "translate(" + p.x + "," + p.y + ")", role: "button", tabindex: "0",
                          "aria-label": words, "data-node": n.id, onclick: open,
                          onkeydown: (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); open(); } }},
                    svg("title", {text: words}),
                    svg("rect", {width: W, height: H, rx: 6}),
                    svg("text", {x: W / 2, y: 15, "text-anchor": "middle", class: "lv-text", text: "[" + n.vector.join(",") + "]"}),
                    svg("text", {x: W / 2, y: 30, "text-anchor": "middle", text: "Loss " + fmt(n.loss, 3)}),
                    svg("text", {x: W / 2, y: 44, "text-anchor": "middle",
                                 text: "min " + fmt(n.min_class) + " · sup " + fmt(n.suppressed)}));
      chart.append(g);
    }
    // a local recoding's lattice is around the node its cells reach at most: say so
    box.replaceChildren(chart, lattice.reason ? el("p", {class: "muted reason", text: lattice.reason}) : null);
  }

  async function openNode(releaseId, node) {
    $("lat-status").textContent = "Computing the release at [" + node.vector.join(",") + "]...";
    const data = await attempt(() => api("POST", "/api/release/" + releaseId + "/lattice/" +
                                         encodeURIComponent(node.id)));
    if (!data) { $("lat-status").textContent = ""; return; }
    const parent = state.runs.get(String(releaseId));
    track(data.run, parent ? parent.params : {}, node.vector, (run) => {
      $("rel-select").value = run.id;
      showRelease(run.id);
    });
  }

  async function showRelease(id) {
    if (id === undefined || id === null || id === "") return;
    state.shown = String(id);
    $("lat-status").textContent = "Loading release #" + id + "...";
    const [rel, lattice] = await Promise.all([
      attempt(() => api("GET", "/api/release/" + id)),
      attempt(() => api("GET", "/api/release/" + id + "/lattice"))]);
    if (state.shown !== String(id)) return;          // another release was chosen meanwhile
    $("lat-status").textContent = rel ? "Release #" + id + " shown." : "";
    if (rel) $("release").replaceChildren(releasePanel(rel, "Release #" + id));
    drawLattice(lattice, id);
  }

  function setupLattice() {
    $("rel-select").addEventListener("change", () => showRelease($("rel-select").value));
    $("tab-lattice").addEventListener("click", () => {
      const id = $("rel-select").value;
      if (id && id !== state.shown) showRelease(id);
    });
  }

  // ---- 4. compare and export -----------------------------------------------------
  function setupCompare() {
    $("cmp-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const a = $("cmp-a").value, b = $("cmp-b").value;
      if (!a || !b) { say("Compare: run two releases first.", "error"); return; }
      const data = await attempt(() => api("GET", "/api/compare?a=" + encodeURIComponent(a) +
                                           "&b=" + encodeURIComponent(b)));
      if (!data) return;
      say("", "");
      $("compare").replaceChildren(
        releasePanel(data.a, "A: " + runLabel(state.runs.get(a) || {id: a, params: {}})),
        releasePanel(data.b, "B: " + runLabel(state.runs.get(b) || {id: b, params: {}})));
      $("exp-which").value = a;
    });
    $("export-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const id = $("exp-which").value;
      if (!id) { say("Export: no release yet.", "error"); return; }
      const data = await attempt(() => api("POST", "/api/release/" + id + "/export",
                                           {folder: $("exp-folder").value.trim()}));
      if (!data) return;
      say("", "");
      const files = Array.isArray(data.files) ? data.files : Object.values(data.files || {});
      $("exported").replaceChildren(el("p", {text: "Release #" + id + " exported:"}),
                                    el("ul", {class: "files"}, files.map((f) => el("li", {text: f}))));
    });
  }

  // ---- start ---------------------------------------------------------------------
  async function start() {
    setupTabs();
    setupHierarchies();
    setupRun();
    setupLattice();
    setupCompare();
    if (!TOKEN) {
      $("session-line").textContent = "";
      say("This address has no token: open the address that kanon-graph explore printed.");
      return;
    }
    const s = await attempt(() => api("GET", "/api/session"));
    if (!s) { $("session-line").textContent = "Not connected."; return; }
    state.session = s;
    const columns = Array.isArray(s.columns) ? s.columns.length : s.columns;
    $("session-line").textContent = fmt(s.rows) + " rows, " + fmt(columns) + " columns; quasi-identifiers: " +
      s.qis.join(", ") + (s.sensitive && s.sensitive.length ? "; sensitive: " + [].concat(s.sensitive).join(", ") : "");
    $("h-qi").replaceChildren(...s.qis.map((qi) => {
      const h = (s.hierarchies || {})[qi];
      return el("option", {value: qi, text: qi + (h ? " (" + h.levels + " levels)" : " (no hierarchy)")});
    }));
    $("run-algorithm").replaceChildren(...(s.algorithms || ["auto"]).map((a) =>
      el("option", {value: a, text: a, selected: a === "auto" || null})));
    if (s.can_save === false) {
      $("h-save").disabled = true;
      $("h-save-hint").textContent = "Saving is off: start the explorer with --hierarchies DIR.";
    }
    if (s.can_export === false) {
      $("exp-go").disabled = true;
      $("exp-hint").textContent = "Export is off: start the explorer with --exports DIR.";
    }
    const first = s.qis.find((qi) => (s.hierarchies || {})[qi]) || s.qis[0];
    if (first !== undefined) { $("h-qi").value = first; await loadHierarchy(first); }
    document.body.dataset.ready = "true";
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
