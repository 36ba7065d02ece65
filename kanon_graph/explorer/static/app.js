// The explorer's page: plain JavaScript, no framework, nothing fetched from outside.
// Every request goes to the server that served the page, with the token of the page's
// address in the X-Token header. The page never receives the rows: every view is a
// summary the server computed from counts (docs/reference/explore-api.md).
"use strict";

(function () {
  const TOKEN = new URLSearchParams(location.search).get("token") || "";
  const {el, fmt, releasePanel, drawLattice} = window.kanonExplore;   // draw.js
  const POLL_MS = 400;
  const state = {session: null, qi: null, runs: new Map(), order: [], shown: null};

  // ---- small helpers (el, fmt and the drawings: draw.js) --------------------------
  function $(id) { return document.getElementById(id); }

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
    const source = data.source || info.source;
    $("h-info").textContent = fmt(data.levels) + " levels" + (source ? " · source: " + source : "") +
      (data.unmatched ? " · " + fmt(data.unmatched) + " rows match no value of this tree" : "");
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

  // the builders' parameters, name=value separated by commas; a list separated by ";"
  const DRAFT_HINTS = {suggest: "(none: the library's draft for the column)",
                       intervals: "widths=10;20;40", mask: "levels=3",
                       dates: "levels=month;year;decade", prefix: "(none)"};

  // parameters that are lists whatever their length, per builder
  const DRAFT_LISTS = {intervals: ["widths", "cuts"], dates: ["levels"]};

  function draftParams(text, builder) {
    const lists = DRAFT_LISTS[builder] || [];
    const params = {};
    const value = (v) => (v !== "" && !isNaN(Number(v)) ? Number(v) : v);
    for (const part of text.split(",")) {
      if (!part.trim()) continue;
      const at = part.indexOf("=");
      if (at < 0) throw new Error("Draft parameters: write name=value, got '" + part.trim() + "'");
      const raw = part.slice(at + 1).trim();
      const name = part.slice(0, at).trim();
      params[name] = raw.includes(";") || lists.includes(name)
        ? raw.split(";").map((v) => value(v.trim())).filter((v) => v !== "") : value(raw);
    }
    return params;
  }

  function setupHierarchies() {
    $("h-qi").addEventListener("change", () => loadHierarchy($("h-qi").value));
    $("h-op").addEventListener("change", showEditFields);
    const hint = () => { $("h-draft-params").placeholder = DRAFT_HINTS[$("h-draft").value] || ""; };
    $("h-draft").addEventListener("change", hint);
    hint();
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
        Object.assign({from: $("h-draft").value}, draftParams($("h-draft-params").value, $("h-draft").value))));
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
    drawLattice(lattice, (node) => openNode(id, node));
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
