// The explorer's drawings: a release's card (check, Loss, risk, class sizes, level
// profile, collapsed cells) and the lattice around a node, as SVG drawn here. Pure
// functions of the JSON the server sends (no request is made here); app.js uses them
// through window.kanonExplore.
"use strict";

window.kanonExplore = (function () {
  const SVG = "http://www.w3.org/2000/svg";

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

  function drawLattice(lattice, onOpen) {
    const box = document.getElementById("lattice");
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
      const open = () => onOpen(n);
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
    box.replaceChildren(...[chart, lattice.reason && el("p", {class: "muted reason", text: lattice.reason})].filter(Boolean));
  }

  return {el: el, svg: svg, fmt: fmt, releasePanel: releasePanel, drawLattice: drawLattice};
})();
