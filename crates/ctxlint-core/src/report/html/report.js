"use strict";
// ctxlint triage report: draws the summary and the page of each input from
// the JSON embedded in this file (see src/report/html.rs). No network: the
// page's Content-Security-Policy forbids every request. Texts are put in the
// page with textContent only, never parsed as HTML.
(function () {
  const D = JSON.parse(document.getElementById("ctxlint-index").textContent);
  const app = document.getElementById("app");
  const BREAKS = new Set(["history-rewrite", "dropped-system-prompt"]);
  const MAX_BARS = 600;
  const WINDOW = 200;
  const chunks = new Map();
  let needsData = false;
  const walks = new Map();
  const nf = new Intl.NumberFormat("en");
  const fmt = (n) => nf.format(n);
  const tokens = (b) => Math.round(b / 4);
  // USD as the text report writes it: $12.34, or six decimal places below a cent.
  const usd = (x) => x >= 0.01 || x === 0 ? "$" + x.toFixed(2) : x < 0.000001 ? "<$0.000001" : "$" + x.toFixed(6).replace(/0+$/, "");
  // A finding's impact in words (see src/report/impact.rs impact_words).
  function impactWords(i) {
    let s = `~${fmt(i.tokens)} tokens${i.estimated ? " (estimated)" : ""}`;
    if (i.cost_usd !== null) s += `, ~${usd(i.cost_usd)}`;
    const cached = !i.estimated && i.cached_before !== null && i.cached_after !== null ? ` (cached ${fmt(i.cached_before)} → ${fmt(i.cached_after)})` : "";
    if (i.confirmed === true) s += "; recorded usage confirms it" + cached;
    else if (i.confirmed === false) s += "; recorded usage does not confirm it" + cached;
    return s;
  }
  // The unexplained cache breaks of a page's input (the file's recorded usage).
  function pageBreaks(p) {
    if (!p._b) {
      const f = D.files.find((x) => x.page === p.id);
      p._b = f && f.usage ? f.usage.unexplained_cache_breaks : [];
    }
    return p._b;
  }

  // ---- tiny DOM helpers -------------------------------------------------
  // Bidirectional controls (U+202A-E, U+2066-9, U+200E/F, U+061C) shown as
  // \u{…}: a text cannot reorder what is drawn around it ("Trojan Source").
  const BIDI = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;
  const BIDI_ALL = new RegExp(BIDI.source, "g");
  function vis(s) { return BIDI.test(s) ? s.replace(BIDI_ALL, (c) => "\\u{" + c.charCodeAt(0).toString(16) + "}") : s; }
  function h(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === null || v === undefined || v === false) continue;
        if (k === "class") e.className = v;
        else if (k === "text") e.textContent = vis(String(v));
        else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
        else e.setAttribute(k, v === true ? "" : k === "title" || k === "aria-label" ? vis(String(v)) : String(v));
      }
    }
    for (const k of kids.flat()) {
      if (k === null || k === undefined || k === false) continue;
      e.append(k instanceof Node ? k : document.createTextNode(vis(String(k))));
    }
    return e;
  }
  function go(params) {
    const q = Object.entries(params).filter(([, v]) => v !== null && v !== undefined).map(([k, v]) => k + "=" + encodeURIComponent(v)).join("&");
    if (location.hash.slice(1) === q) render(); else location.hash = q;
  }
  function parseHash() {
    const o = {};
    for (const kv of location.hash.slice(1).split("&")) {
      if (!kv) continue;
      const [k, v] = kv.split("=");
      try { o[k] = decodeURIComponent(v || ""); } catch (e) { o[k] = v || ""; }
    }
    return o;
  }

  // ---- data access ----------------------------------------------------------
  D.findings.forEach((f, i) => { f._i = i; });
  // A stream's findings name its request files; a transcript's, the transcript.
  function pageFindings(p) {
    if (!p._f) {
      const paths = new Set([p.path].concat(p.files || []));
      // A store of several sessions: a page per session, all at its path.
      p._f = D.findings.filter((f) => paths.has(f.path) && (f.session || null) === (p.session || null));
    }
    return p._f;
  }
  // The input a finding belongs to: a stream's request file belongs to its folder.
  const inputOfPath = new Map();
  for (const p of D.pages) for (const x of (p.files || [])) if (!inputOfPath.has(x)) inputOfPath.set(x, p.path);
  function inputOf(path) { return inputOfPath.get(path) || path; }
  function fileFindings(f) {
    if (f.page !== null) return pageFindings(D.pages[f.page]);
    return D.findings.filter((x) => (x.path === f.path || x.path.startsWith(f.path + "/")) && (x.session || null) === (f.session || null));
  }
  function posOf(p, index) {
    if (index === null || index === undefined || !Number.isInteger(index)) return -1;
    if (!p.index) return index < p.total ? index : -1;
    if (!p._pos) { p._pos = new Map(); p.index.forEach((x, k) => p._pos.set(x, k)); }
    return p._pos.has(index) ? p._pos.get(index) : -1;
  }
  function unitIndex(p, pos) { return p.index ? p.index[pos] : pos; }
  function chunk(p, j) {
    const key = p.id + ":" + j;
    if (!chunks.has(key)) {
      const el = document.getElementById("p" + p.id + "-c" + j);
      // Still being parsed (the first render runs before the blocks after this script): draw again once they are.
      if (!el && document.readyState === "loading") { needsData = true; return []; }
      chunks.set(key, el ? JSON.parse(el.textContent) : []);
    }
    return chunks.get(key);
  }
  function msg(p, pos, i) {
    const c = chunk(p, Math.floor(pos / p.chunk));
    const u = c[pos % p.chunk] || [];
    const m = u[i];
    if (!m) return null;
    return { role: m[0], kind: m[1], bytes: m[2], line: m[3], pointer: m[4], first: m[5], entry: m[6],
      blocks: m[7].map((b) => ({ kind: b[0], pointer: b[1], bytes: b[2], cut: !!b[3], text: b[4], tool: b[5], id: b[6] })) };
  }
  // The context of unit `pos` as [unit, message] pairs: each unit carries the
  // first `carried` messages of the previous unit's context and adds its own;
  // a rebuilt one may also send runs of the previous context again further
  // on (`kept`: [from, at, count], its own messages in between).
  function keptRuns(p, k) {
    if (!p.keptMap) p.keptMap = new Map((p.kept || []).map(([u, runs]) => [u, runs]));
    return p.keptMap.get(k);
  }
  function keptCount(p, k) { return (keptRuns(p, k) || []).reduce((a, r) => a + r[2], 0); }
  function context(p, pos) {
    let w = walks.get(p.id);
    if (!w || w.pos > pos) { w = { pos: -1, ctx: [] }; walks.set(p.id, w); }
    while (w.pos < pos) {
      const k = w.pos + 1;
      const runs = keptRuns(p, k);
      if (runs) {
        const prev = w.ctx, next = prev.slice(0, p.carried[k]);
        let i = 0;
        for (const [from, at, count] of runs) {
          while (next.length < at && i < p.new[k]) next.push([k, i++]);
          for (let j = 0; j < count && from + j < prev.length; j++) next.push(prev[from + j]);
        }
        while (i < p.new[k]) next.push([k, i++]);
        w.ctx = next;
      } else {
        w.ctx.length = Math.min(p.carried[k], w.ctx.length);
        for (let i = 0; i < p.new[k]; i++) w.ctx.push([k, i]);
      }
      w.pos = k;
    }
    return w.ctx.slice();
  }
  function what(p) { return p.transcript ? "step" : "request"; }

  // ---- summary ----------------------------------------------------------------
  function sortable(table, rows, cols, initial) {
    let key = initial, dir = -1;
    const tbody = h("tbody");
    const ths = cols.map((c, ci) => {
      const b = h("button", { type: "button", onclick: () => { if (key === ci) dir = -dir; else { key = ci; dir = c.num ? -1 : 1; } draw(); } }, c.label);
      return h("th", { class: c.num ? "num" : null, scope: "col" }, b);
    });
    table.append(h("thead", null, h("tr", null, ths)), tbody);
    function draw() {
      const sorted = rows.slice().sort((a, b) => {
        const x = a[key], y = b[key];
        return (typeof x === "number" ? x - y : String(x).localeCompare(String(y))) * dir;
      });
      ths.forEach((th, ci) => th.setAttribute("aria-sort", ci === key ? (dir > 0 ? "ascending" : "descending") : "none"));
      tbody.replaceChildren(...sorted.map((r) => h("tr", null, cols.map((c, ci) => h("td", { class: c.num ? "num" : null }, c.cell ? c.cell(r) : String(r[ci]))))));
    }
    draw();
    return table;
  }
  function summary() {
    const s = D.summary;
    const out = [h("h1", null, "Summary"),
      h("p", null, `${fmt(s.findings)} finding${s.findings === 1 ? "" : "s"} (${fmt(s.errors)} error${s.errors === 1 ? "" : "s"}, ${fmt(s.warnings)} warning${s.warnings === 1 ? "" : "s"}) in ${fmt(s.files)} input${s.files === 1 ? "" : "s"}; ${fmt(s.skipped)} skipped, ${fmt(s.failed)} not checked.`)];
    // What the findings cost, and what the recorded usage says.
    const withImpact = D.findings.filter((f) => f.impact).length;
    if (withImpact) out.push(h("p", { id: "impact" }, `Impact: ~${fmt(s.tokens)} tokens${s.cost_usd !== null ? ", ~" + usd(s.cost_usd) : ""} attributable to ${fmt(withImpact)} finding${withImpact === 1 ? "" : "s"}` + (s.judged ? `; recorded usage confirms ${fmt(s.confirmed)} of ${fmt(s.judged)} judged.` : ".")));
    if (s.recorded_cost_usd !== null || s.cache_read_ratio !== null) out.push(h("p", { id: "recorded-usage" }, "Recorded usage: " + (s.recorded_cost_usd !== null ? `~${usd(s.recorded_cost_usd)} at list prices` : "no priced model") + (s.cache_read_ratio !== null ? `; cache read ${(s.cache_read_ratio * 100).toFixed(1)} % of input.` : ".")));
    const breaks = [];
    for (const f of D.files) for (const b of (f.usage ? f.usage.unexplained_cache_breaks : [])) breaks.push([f, b]);
    if (breaks.length) {
      out.push(h("h2", null, "Unexplained cache breaks"), h("p", { class: "note" }, "The provider's cache read fell within its cache lifetime and no finding explains it: a place to look, not a finding."));
      out.push(h("ul", { id: "unexplained" }, breaks.map(([f, b]) => {
        const unit = f.requests ? "request" : "step";
        const label = `${f.path}${b.line ? ":" + b.line : ""}: ${unit} ${b.request}: ${fmt(b.cached_before)} → ${fmt(b.cached_after)} cached tokens ${fmt(b.seconds)} s after ${unit} ${b.previous}${b.model ? " (" + b.model + ")" : ""}`;
        return h("li", null, f.page !== null ? h("a", { href: `#p=${f.page}&s=${b.request}` }, label) : label);
      })));
    }
    const rules = new Map();
    for (const f of D.findings) {
      const r = rules.get(f.rule) || { rule: f.rule, code: f.code, errors: 0, warnings: 0, files: new Set() };
      if (f.severity === "error") r.errors++; else r.warnings++;
      r.files.add(inputOf(f.path));
      rules.set(f.rule, r);
    }
    const ruleRows = [...rules.values()].map((r) => [r.code, r.rule, r.errors + r.warnings, r.errors, r.warnings, r.files.size]);
    out.push(h("h2", null, "Findings per rule"));
    if (ruleRows.length) {
      out.push(sortable(h("table", { id: "by-rule" }), ruleRows, [
        { label: "code" }, { label: "rule" }, { label: "findings", num: true }, { label: "errors", num: true }, { label: "warnings", num: true }, { label: "inputs", num: true }], 2));
    } else out.push(h("p", { class: "note" }, "No findings."));
    const fileRows = D.files.map((f) => {
      const fs = fileFindings(f);
      const e = fs.filter((x) => x.severity === "error").length;
      const p = f.page !== null ? D.pages[f.page] : null;
      return [f.session ? `${f.path} (session ${f.session})` : f.path, f.format, p ? p.total : (f.requests || f.entries), fs.length, e, fs.length - e, f.page,
        f.impact && f.impact.cost_usd !== null ? f.impact.cost_usd : -1, f.usage && f.usage.cost_usd !== null ? f.usage.cost_usd : -1, f.skipped_exchanges || 0];
    });
    out.push(h("h2", null, "Findings per input"));
    out.push(sortable(h("table", { id: "by-file" }), fileRows, [
      { label: "input", cell: (r) => r[6] !== null ? h("a", { href: "#p=" + r[6] }, r[0]) : r[0] },
      { label: "format" }, { label: "steps or requests", num: true, cell: (r) => r[9] ? `${fmt(r[2])} (${fmt(r[9])} exchange${r[9] === 1 ? "" : "s"} skipped)` : String(r[2]) }, { label: "findings", num: true }, { label: "errors", num: true }, { label: "warnings", num: true },
      { label: "findings' cost", num: true, cell: (r) => r[7] < 0 ? "-" : "~" + usd(r[7]) }, { label: "recorded cost", num: true, cell: (r) => r[8] < 0 ? "-" : "~" + usd(r[8]) }], 3));
    if (D.skipped.length) {
      out.push(h("h2", null, "Skipped"), h("ul", null, D.skipped.map((x) => h("li", null, h("code", null, x.path), ": " + x.reason))));
    }
    if (D.failed.length) {
      out.push(h("h2", null, "Not checked"), h("ul", null, D.failed.map((x) => h("li", null, h("code", null, x.path), ": " + x.error))));
    }
    if (D.unlisted.length) {
      out.push(h("h2", null, "Not listed"), h("ul", null, D.unlisted.map((x) => h("li", null, h("code", null, x.path), ": " + x.message))));
    }
    out.push(h("p", { class: "note" }, "Report by ctxlint " + D.tool_version + ". Sizes are bytes of text; " + D.token_estimate + "."));
    return out;
  }

  // ---- an input's page -----------------------------------------------------------
  function findingLabel(p, f) {
    const pos = posOf(p, f.request);
    const at = [];
    if (pos >= 0) at.push(what(p) + " " + f.request);
    if (f.line) at.push("line " + f.line);
    if (f.pointer) at.push(f.pointer);
    return at.join(" · ");
  }
  function timeline(p, visible, selected) {
    const n = p.total;
    const per = Math.max(1, Math.ceil(n / MAX_BARS));
    const bars = Math.ceil(n / per);
    let max = 1;
    for (let k = 0; k < n; k++) if (p.bytes[k] > max) max = p.bytes[k];
    const marks = new Map();
    for (const f of visible) {
      const pos = posOf(p, f.request);
      if (pos < 0) continue;
      const b = Math.floor(pos / per);
      const m = marks.get(b) || { n: 0, error: false, brk: false };
      m.n++; m.error = m.error || f.severity === "error"; m.brk = m.brk || BREAKS.has(f.rule);
      marks.set(b, m);
    }
    for (const br of pageBreaks(p)) {
      const pos = posOf(p, br.request);
      if (pos < 0) continue;
      const b = Math.floor(pos / per);
      const m = marks.get(b) || { n: 0, error: false, brk: false };
      m.unexplained = (m.unexplained || 0) + 1;
      marks.set(b, m);
    }
    const selBar = selected >= 0 ? Math.floor(selected / per) : -1;
    const els = [];
    for (let b = 0; b < bars; b++) {
      const from = b * per, to = Math.min(n, from + per) - 1;
      let big = from;
      for (let k = from; k <= to; k++) if (p.bytes[k] > p.bytes[big]) big = k;
      const bytes = p.bytes[big];
      const m = marks.get(b);
      const range = from === to ? what(p) + " " + unitIndex(p, from) : what(p) + "s " + unitIndex(p, from) + "–" + unitIndex(p, to);
      let label = `${range}: ${fmt(bytes)} bytes (≈${fmt(tokens(bytes))} tokens) in context`;
      const kids = [h("span", { class: "fill", style: `height:${Math.max(1, Math.round((bytes / max) * 100))}%` })];
      const u = p.usage && p.usage[big];
      if (u) {
        const total = u[0] + u[1] + u[2];
        const c = total ? Math.round((u[1] / total) * 100) : 0;
        kids.push(h("span", { class: "cache" }, h("i", { class: "c", style: `width:${c}%` }), h("i", { class: "u", style: `width:${100 - c}%` })));
        label += `; provider input tokens: ${fmt(u[1])} read from cache, ${fmt(u[2])} written to cache, ${fmt(u[0])} uncached`;
      }
      if (m && m.n) {
        kids.push(h("span", { class: "mark " + (m.brk ? "mark-break" : m.error ? "mark-error" : "mark-warning"), "aria-hidden": "true" }));
        label += `; ${m.n} finding${m.n === 1 ? "" : "s"}${m.brk ? ", cache break" : ""}`;
      } else if (m && m.unexplained) {
        kids.push(h("span", { class: "mark mark-unexplained", "aria-hidden": "true" }));
      }
      if (m && m.unexplained) label += "; unexplained cache break (the cache read fell, no finding explains it)";
      els.push(h("button", {
        type: "button", class: "bar", "data-from": from, "data-to": to, "data-findings": m ? m.n : 0, "data-unexplained": m && m.unexplained ? m.unexplained : null,
        "aria-label": label, title: label, tabindex: b === (selBar >= 0 ? selBar : 0) ? 0 : -1,
        "aria-current": b === selBar ? "true" : null,
        onclick: () => {
          const hit = visible.map((f) => posOf(p, f.request)).filter((x) => x >= from && x <= to);
          go({ p: p.id, s: unitIndex(p, hit.length ? hit[0] : from) });
        },
      }, kids));
    }
    const tl = h("div", { class: "timeline", id: "timeline", role: "group", "aria-label": `timeline: ${fmt(n)} ${what(p)}${n === 1 ? "" : "s"}${per > 1 ? `, ${per} per bar` : ""}; arrow keys move, Enter opens`, "data-units": n, "data-per-bar": per }, els);
    tl.addEventListener("keydown", (ev) => {
      const i = els.indexOf(document.activeElement);
      if (i < 0) return;
      let j = i;
      if (ev.key === "ArrowRight") j = Math.min(els.length - 1, i + 1);
      else if (ev.key === "ArrowLeft") j = Math.max(0, i - 1);
      else if (ev.key === "Home") j = 0;
      else if (ev.key === "End") j = els.length - 1;
      else return;
      ev.preventDefault();
      els[i].tabIndex = -1; els[j].tabIndex = 0; els[j].focus();
    });
    const axis = h("div", { class: "axis", "aria-hidden": "true" }, h("span", null, what(p) + " " + unitIndex(p, 0)), h("span", null, `largest context ${fmt(max)} bytes (≈${fmt(tokens(max))} tokens)`), h("span", null, what(p) + " " + unitIndex(p, n - 1)));
    // A few bars (at most 56 px each) would leave the panel mostly empty and the
    // axis's last label far from the last bar: the panel is only as wide as its
    // bars, and at least wide enough for the axis's labels (the bars then widen).
    const fit = els.length * 57 + 6;
    tl.style.maxWidth = axis.style.maxWidth = `${Math.max(fit, 520)}px`;
    if (fit < 520) for (const b of els) b.style.maxWidth = "none";
    return [tl, axis];
  }

  // Streams: a pointer relative to its request's body, so that a message
  // carried over from an earlier request matches a finding on a later one.
  function rel(p, pos, pointer) {
    const b = p.body ? p.body[pos] || "" : "";
    return b && pointer.startsWith(b) ? pointer.slice(b.length) : pointer;
  }
  function under(x, y) { return x === y || (y !== "" && x.startsWith(y + "/")); }
  // Whether row r (message m of unit r.u) is the message a location (a
  // finding at unit `at`, or a related location) names.
  function sameMessage(p, r, loc, at) {
    const m = r.m;
    if (!m || !loc) return false;
    if (p.transcript) return loc.line !== null && loc.line !== undefined && m.line === loc.line;
    let lp = loc.pointer;
    if (at >= 0) lp = rel(p, at, lp);
    else {
      const k = p.files.indexOf(loc.path);
      if (k < 0) return false;
      // The request of that file whose body holds the pointer.
      let pos = -1;
      for (let u = 0; u < p.total; u++) if (p.file[u] === k && (p.body[u] === "" || under(lp, p.body[u])) && (pos < 0 || p.body[u].length > p.body[pos].length)) pos = u;
      if (pos >= 0) lp = rel(p, pos, lp);
    }
    const mp = rel(p, r.u, m.pointer);
    return under(lp, mp) || m.blocks.some((b) => under(lp, rel(p, r.u, b.pointer)));
  }
  function matchBlockRel(p, r, loc, at) {
    const m = r.m;
    if (!m || !loc) return -1;
    const lp = p.transcript ? loc.pointer : rel(p, at >= 0 ? at : r.u, loc.pointer);
    const bp = (b) => (p.transcript ? b.pointer : rel(p, r.u, b.pointer));
    let best = -1, len = -1;
    m.blocks.forEach((b, i) => { const x = bp(b); if (under(lp, x) && x.length > len) { best = i; len = x.length; } });
    if (best < 0 && m.blocks.length && under(lp, p.transcript ? m.pointer : rel(p, r.u, m.pointer))) best = 0;
    return best;
  }

  // The unit whose context holds a related location: a stream's request of
  // that file whose body holds the pointer; a transcript's first step at or
  // after that line. -1 when none does.
  function unitOfLocation(p, loc) {
    if (p.transcript) {
      if (loc.path !== p.path || !loc.line) return -1;
      for (let u = 0; u < p.total; u++) if (p.line[u] && p.line[u] >= loc.line) return u;
      return -1;
    }
    const k = p.files.indexOf(loc.path);
    if (k < 0) return -1;
    let pos = -1;
    for (let u = 0; u < p.total; u++) if (p.file[u] === k && (p.body[u] === "" || under(loc.pointer || "", p.body[u])) && (pos < 0 || p.body[u].length > p.body[pos].length)) pos = u;
    return pos;
  }

  function blockView(b, cls) {
    const head = `${b.kind}${b.tool ? " " + b.tool : ""}${b.id ? " (" + b.id + ")" : ""} · ${fmt(b.bytes)} bytes · ${b.pointer || '""'}`;
    const text = b.text ? b.text + (b.cut ? ` … (${fmt(b.bytes)} bytes; the first ${fmt(b.text.length)} characters are in this report)` : "") : (b.bytes ? `(text not in this report: ${fmt(b.bytes)} bytes)` : "(empty)");
    return h("div", { class: "block " + (cls || ""), "data-pointer": b.pointer }, h("div", { class: "muted mono" }, head), h("pre", null, text));
  }

  function contextView(p, pos, focus) {
    const ctx = context(p, pos);
    const rows = ctx.map(([u, i], k) => ({ k, u, i, m: msg(p, u, i) }));
    let hot = -1;
    const relk = new Map();
    if (focus) {
      const at = posOf(p, focus.request);
      // The finding's own message: in this unit's new messages first, then anywhere in the context.
      for (const r of rows) if (r.u === pos && sameMessage(p, r, focus, at)) hot = r.k;
      if (hot < 0) for (const r of rows) if (sameMessage(p, r, focus, at)) hot = r.k;
      for (const rl of focus.related || []) {
        if (p.transcript && rl.path !== p.path) continue;
        for (const r of rows) if (r.k !== hot && sameMessage(p, r, rl, -1)) { relk.set(r.k, rl); break; }
      }
    }
    const center = hot >= 0 ? hot : rows.length - 1;
    const state = { from: Math.max(0, center - WINDOW), to: Math.min(rows.length, center + WINDOW) };
    const holder = h("div");
    function draw() {
      const body = rows.slice(state.from, state.to).map((r) => {
        const m = r.m;
        const cls = [r.k === hot ? "hot" : "", relk.has(r.k) ? "rel" : "", r.u === pos ? "new" : ""].filter(Boolean).join(" ");
        const cells = [h("td", { class: "num" }, String(r.k)), h("td", null, m ? m.role : "?"), h("td", null, m ? m.kind : "?"), h("td", { class: "num" }, m ? fmt(m.bytes) : "")];
        if (p.transcript) cells.push(h("td", { class: "num" }, m && m.line ? String(m.line) : ""));
        const txt = h("td", { class: "txt" });
        if (m) {
          if (r.k === hot || relk.has(r.k)) {
            const hb = r.k === hot ? matchBlockRel(p, r, focus, posOf(p, focus.request)) : -1;
            const rb = relk.has(r.k) ? matchBlockRel(p, r, relk.get(r.k), -1) : -1;
            txt.append(...m.blocks.map((b, i) => blockView(b, i === hb ? "hot-block" : i === rb ? "rel-block" : "")));
          } else {
            const d = h("details", null, h("summary", null, m.first || "(no text)"));
            d.addEventListener("toggle", () => { if (d.open && d.childNodes.length === 1) d.append(...m.blocks.map((b) => blockView(b))); }, { once: false });
            txt.append(d);
          }
        }
        return h("tr", { class: cls || null, id: r.k === hot ? "hot" : relk.has(r.k) ? "rel-" + r.k : null, "data-k": r.k }, cells, txt);
      });
      const head = ["#", "role", "kind", "bytes"].concat(p.transcript ? ["line"] : []).concat(["text"]);
      const pager = h("div", { class: "pager" },
        state.from > 0 ? h("button", { type: "button", onclick: () => { state.from = Math.max(0, state.from - WINDOW); draw(); } }, `show ${fmt(Math.min(WINDOW, state.from))} earlier`) : null,
        h("span", { class: "muted" }, `messages ${fmt(state.from)}–${fmt(Math.max(state.from, state.to - 1))} of ${fmt(rows.length)}`),
        state.to < rows.length ? h("button", { type: "button", onclick: () => { state.to = Math.min(rows.length, state.to + WINDOW); draw(); } }, `show ${fmt(Math.min(WINDOW, rows.length - state.to))} later`) : null);
      holder.replaceChildren(pager, h("table", { class: "ctx", id: "context" }, h("thead", null, h("tr", null, head.map((x) => h("th", { scope: "col", class: ["#", "bytes", "line"].includes(x) ? "num" : null }, x)))), h("tbody", null, body)));
    }
    draw();
    // Shows row k (widening the window to it) and moves the focus there.
    function reveal(k) {
      if (k < state.from || k >= state.to) { state.from = Math.max(0, k - WINDOW); state.to = Math.min(rows.length, k + WINDOW); draw(); }
      const el = holder.querySelector(`tr[data-k="${k}"]`);
      if (el) { el.tabIndex = -1; el.scrollIntoView({ block: "center" }); el.focus(); }
    }
    return { el: holder, rows, hot, relk, reveal };
  }

  function sideTable(rows, cls) {
    return h("table", null, h("tbody", null, rows.length ? rows.map((r) => h("tr", { class: cls }, h("td", { class: "num" }, String(r.k)), h("td", null, r.m ? r.m.role + " · " + r.m.kind : "?"), h("td", { class: "num" }, r.m ? fmt(r.m.bytes) : ""), h("td", { class: "txt" }, r.m ? r.m.first : ""))) : [h("tr", null, h("td", { class: "muted" }, "nothing"))]));
  }

  function diffView(p, pos) {
    const out = [h("h3", null, `Compared with the previous ${what(p)}`)];
    if (p.lane && p.lane[pos]) out.push(h("p", { class: "note" }, `This request's lane (agent): ${p.lane[pos]}.`));
    if (pos === 0) { out.push(h("p", { class: "note" }, `The first ${what(p)}: nothing to compare.`)); return out; }
    const c = p.carried[pos];
    const reason = D.rebuilt[p.rebuilt[pos]];
    const kept = keptCount(p, pos);
    if (reason === "chained to its response") {
      out.push(h("p", null, `Chained to an earlier response (previous_response_id, or a stored conversation): that context is held by the provider, not sent again; ${fmt(p.new[pos])} new.`));
      return out;
    }
    out.push(h("p", null, `${fmt(c)} message${c === 1 ? "" : "s"} carried over from ${what(p)} ${unitIndex(p, pos - 1)}; ${kept ? fmt(kept) + " sent again further on; " : ""}${fmt(p.dropped[pos])} no longer sent; ${fmt(p.new[pos])} new${reason ? " (context " + (reason === "history differs" ? "differs: " : "rebuilt: ") + reason + ")" : ""}.`));
    // No longer sent: the previous context's messages past the carried ones
    // that this one does not send again; new: this unit's own.
    const prevPairs = context(p, pos - 1), curPairs = context(p, pos);
    const still = new Set(curPairs.map(([u, i]) => u + ":" + i));
    const lim = (a) => a.slice(0, WINDOW);
    const left = lim(prevPairs.map((x, k) => [x, k]).slice(c).filter(([[u, i]]) => !still.has(u + ":" + i)).map(([[u, i], k]) => ({ k, m: msg(p, u, i) })));
    const right = lim(curPairs.map((x, k) => [x, k]).slice(c).filter(([[u]]) => u === pos).map(([[u, i], k]) => ({ k, m: msg(p, u, i) })));
    out.push(h("div", { class: "side", id: "side-by-side" },
      h("div", null, h("h3", null, `${what(p)} ${unitIndex(p, pos - 1)}: no longer sent`), sideTable(left, "del")),
      h("div", null, h("h3", null, `${what(p)} ${unitIndex(p, pos)}: new`), sideTable(right, "add"))));
    if (p.diffs) {
      if (!p._diffs) {
        const el = document.getElementById("p" + p.id + "-d");
        if (el) p._diffs = JSON.parse(el.textContent); else if (document.readyState === "loading") needsData = true; else p._diffs = {};
      }
      const d = p._diffs && p._diffs[String(pos)];
      if (d) {
        out.push(h("h3", null, "Structural diff (ctxlint diff): " + d.headline));
        if (d.note) out.push(h("p", { class: "note" }, d.note));
        out.push(h("p", { class: "note" }, `${fmt(d.same)} element${d.same === 1 ? "" : "s"} the same, ${fmt(d.total)} differ${d.total > d.changes.length ? ` (the first ${d.changes.length} shown)` : ""}.`));
        const sideCell = (s) => s ? [h("div", { class: "muted mono" }, `${s.what} · ${s.pointer || '""'} · ${fmt(s.bytes)} bytes`), (s.text === null || s.text === undefined ? h("p", { class: "muted" }, "text not shown: these requests are not compared") : h("pre", null, s.text))] : [h("span", { class: "muted" }, "—")];
        out.push(h("table", { id: "request-diff" }, h("thead", null, h("tr", null, h("th", null, "change"), h("th", null, "previous request"), h("th", null, "this request"))),
          h("tbody", null, d.changes.map((ch) => h("tr", { class: ch.op === "removed" ? "del" : ch.op === "added" ? "add" : null },
            h("td", null, h("span", { class: "diffop" }, ch.op), h("div", { class: "muted" }, ch.section)),
            h("td", null, sideCell(ch.a)), h("td", null, sideCell(ch.b), ch.diff ? h("pre", { class: "mono" }, ch.diff) : null))))));
      }
    }
    return out;
  }

  function unitDetail(p, pos, focus, list) {
    const idx = unitIndex(p, pos);
    const model = p.models[p.model[pos]];
    const head = `${what(p)} ${idx}` + (p.line[pos] ? ` (line ${p.line[pos]})` : "") + (model ? `, model ${model}` : "");
    const stats = [h("span", null, `${fmt(p.ctx[pos])} message${p.ctx[pos] === 1 ? "" : "s"} in context`), h("span", null, `${fmt(p.bytes[pos])} bytes`), h("span", null, `≈${fmt(tokens(p.bytes[pos]))} tokens (estimate` + (p.transcript ? "; of what the transcript records: a system prompt or tool definitions it does not hold are not counted, unlike the provider's figure" : "") + ")")];
    const u = p.usage && p.usage[pos];
    if (u) stats.push(h("span", null, `provider: ${fmt(u[1])} input tokens read from cache, ${fmt(u[2])} written, ${fmt(u[0])} uncached`));
    const here = list.filter((f) => posOf(p, f.request) === pos);
    const out = [h("h2", { id: "detail-title", tabindex: "-1" }, head), h("div", { class: "stats muted" }, stats)];
    for (const b of pageBreaks(p)) if (posOf(p, b.request) === pos) out.push(h("p", { class: "note unexplained" }, `Unexplained cache break: the provider read ${fmt(b.cached_after)} cached tokens here, after ${fmt(b.cached_before)} were in the cache after ${what(p)} ${b.previous} (${fmt(b.seconds)} s earlier, within the cache lifetime), and no finding explains it.`));
    if (here.length) out.push(h("ul", null, here.map((f) => h("li", null, h("span", { class: "sev-" + f.severity }, f.code + " " + f.rule), ": " + f.message))));
    const cv = contextView(p, pos, focus);
    lastContext = cv;
    if (focus) {
      out.push(h("div", { class: "panel", id: "focus" }, h("strong", { class: "sev-" + focus.severity }, focus.code + " " + focus.rule), " ", focus.message,
        focus.excerpt ? h("pre", null, focus.excerpt) : null,
        (focus.related || []).map((r, j) => {
          const label = `${r.message}: ${r.path === focus.path ? "" : r.path + " "}${r.line ? "line " + r.line + " " : ""}${r.pointer || "(the whole request)"}`;
          const at = unitOfLocation(p, r);
          if (![...cv.relk.values()].includes(r) && at < 0) return h("div", null, h("span", { class: "muted" }, label + " (not in this report's " + what(p) + "s)"));
          return h("div", null, h("button", { type: "button", class: "linkish related", "data-related": j, onclick: () => {
            for (const [k, rl] of cv.relk) if (rl === r) return cv.reveal(k);
            go({ p: p.id, f: focus._i, s: unitIndex(p, at), r: j });
          } }, label));
        }),
        focus.impact ? h("div", { class: "impact" }, "impact: " + impactWords(focus.impact)) : null,
        focus.help ? h("div", { class: "muted" }, "help: " + focus.help) : null,
        h("div", { class: "muted" }, "rule documentation: ", h("code", null, "ctxlint rule " + focus.rule))));
    }
    out.push(h("h3", null, "Context sent"), cv.el);
    out.push(...diffView(p, pos));
    return out;
  }

  function inputPage(p, q) {
    const all = pageFindings(p);
    const rule = q.rule || "", sev = q.sev || "";
    const visible = all.filter((f) => (!rule || f.rule === rule) && (!sev || f.severity === sev));
    let focus = q.f !== undefined ? D.findings[Number(q.f)] : null;
    if (focus && !all.includes(focus)) focus = null;
    let pos = q.s !== undefined ? posOf(p, Number(q.s)) : focus ? posOf(p, focus.request) : -1;
    const keep = (o) => Object.assign({ p: p.id, rule: rule || null, sev: sev || null }, o);
    const out = [];
    const others = D.failed.length + D.skipped.length + D.unlisted.length;
    if (D.pages.length > 1 || D.files.length > 1 || others) out.push(h("p", null, h("a", { href: "#summary" }, "← summary of all inputs")));
    if (D.failed.length) out.push(h("p", { class: "note", id: "not-checked" }, `note: ${fmt(D.failed.length)} input${D.failed.length === 1 ? " was" : "s were"} not checked (`, h("a", { href: "#summary" }, "the summary"), " says why)."));
    out.push(h("h1", null, p.path), h("p", { class: "muted" }, `${p.session ? "session " + p.session + " · " : ""}${p.format} · ${fmt(p.total)} ${what(p)}${p.total === 1 ? "" : "s"} · ${all.length} finding${all.length === 1 ? "" : "s"}`));
    for (const n of p.notes) out.push(h("p", { class: "note" }, "note: " + n));
    if (p.texts_cut) out.push(h("p", { class: "note" }, `note: block texts past the first ${fmt(D.text_budget)} bytes of this input are not in the report (their sizes are); \`ctxlint show PATH --step N\` prints them.`));
    const rules = [...new Set(all.map((f) => f.rule))].sort();
    const selRule = h("select", { id: "filter-rule", onchange: (e) => go(keep({ rule: e.target.value || null, s: q.s, f: q.f })) }, h("option", { value: "" }, "all rules"), rules.map((r) => h("option", { value: r, selected: r === rule }, r)));
    const selSev = h("select", { id: "filter-severity", onchange: (e) => go(keep({ sev: e.target.value || null, s: q.s, f: q.f })) }, h("option", { value: "" }, "all severities"), ["error", "warning"].map((s) => h("option", { value: s, selected: s === sev }, s)));
    out.push(h("div", { class: "filters" }, h("label", null, "Rule ", selRule), h("label", null, "Severity ", selSev), h("span", { class: "muted" }, `${visible.length} of ${all.length} findings shown`)));
    out.push(h("h2", null, "Timeline"));
    out.push(h("div", { class: "legend" }, h("span", null, h("i", { style: "background:var(--bar)" }), "context size (bytes)"), h("span", null, h("i", { style: "background:var(--err);border-radius:50%" }), "error"), h("span", null, h("i", { style: "background:var(--warn);border-radius:50%" }), "warning"), h("span", null, h("i", { style: "background:var(--brk)" }), "cache break (history-rewrite, dropped-system-prompt)"), pageBreaks(p).length ? h("span", null, h("i", { style: "border:2px solid var(--brk)" }), "unexplained cache break") : null, p.usage ? h("span", null, h("i", { style: "background:var(--cached)" }), "input tokens read from the prompt cache") : h("span", null, "no cache usage recorded in this input"), p.usage ? h("span", null, h("i", { style: "background:var(--uncached)" }), "input tokens not read from the cache") : null));
    if (p.total) out.push(...timeline(p, visible, pos));
    else out.push(h("p", { class: "note" }, `No ${what(p)}s.`));
    out.push(h("p", { class: "note" }, D.token_estimate + "."));
    const list = h("ul", { class: "findings", id: "findings", "aria-label": "findings" }, visible.map((f) => h("li", null, h("button", {
      type: "button", class: "finding", "data-finding": f._i, "data-rule": f.rule, "aria-current": focus === f ? "true" : null,
      onclick: () => go(keep({ f: f._i, s: posOf(p, f.request) >= 0 ? f.request : null })),
    }, h("span", { class: "sev-" + f.severity }, `${f.code} ${f.rule}`), " ", h("span", { class: "muted" }, findingLabel(p, f)), h("span", { class: "msg" }, f.message)))));
    const detail = h("section", { id: "detail", "aria-live": "polite" });
    if (pos >= 0) detail.append(...unitDetail(p, pos, focus, all));
    else if (focus) detail.append(h("div", { class: "panel", id: "focus" }, h("strong", null, focus.code + " " + focus.rule), " ", focus.message, focus.excerpt ? h("pre", null, focus.excerpt) : null, h("p", { class: "note" }, `Not at a ${what(p)}: line ${focus.line || "?"}.`)));
    else detail.append(h("p", { class: "note" }, `Choose a finding, or a ${what(p)} on the timeline, to see its context and what changed since the previous ${what(p)}.`));
    out.push(h("div", { class: "cols" }, h("div", null, h("h2", null, "Findings"), visible.length ? list : h("p", { class: "note" }, "No findings" + (all.length ? " match the filter." : "."))), detail));
    return out;
  }

  let lastContext = null;
  function render() {
    const q = parseHash();
    // The control that asked for this view keeps the keyboard focus.
    const a = document.activeElement;
    const keep = a && a.dataset ? (a.dataset.finding !== undefined ? `button.finding[data-finding="${a.dataset.finding}"]` : a.dataset.from !== undefined ? `button.bar[data-from="${a.dataset.from}"]` : null) : null;
    lastContext = null;
    let view;
    if (q.p !== undefined && D.pages[Number(q.p)]) view = inputPage(D.pages[Number(q.p)], q);
    else if (q.summary === undefined && D.pages.length === 1 && D.files.length === 1) view = inputPage(D.pages[0], q);
    else view = summary();
    app.replaceChildren(...view);
    const hot = document.getElementById("hot");
    if (hot) hot.scrollIntoView({ block: "center" });
    let focused = false;
    if (q.r !== undefined && lastContext && q.f !== undefined) {
      const f = D.findings[Number(q.f)];
      const rl = f && (f.related || [])[Number(q.r)];
      for (const [k, x] of lastContext.relk) if (x === rl) { lastContext.reveal(k); focused = true; }
    }
    if (!focused && keep) {
      const el = document.querySelector(keep);
      if (el) { el.focus({ preventScroll: true }); focused = true; }
    }
    document.documentElement.dataset.rendered = String((Number(document.documentElement.dataset.rendered) || 0) + 1);
    performance.mark("ctxlint-rendered");
  }
  window.addEventListener("hashchange", render);
  render();
  document.addEventListener("DOMContentLoaded", () => { if (needsData) { needsData = false; walks.clear(); render(); } });
})();
