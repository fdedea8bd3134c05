// The page of one game (bot/web): the board drawn as SVG from the public history the server sends
// (game.json), a slider through every step, the scores over the turns, the log, and live news (server-sent
// events). The lattice is the pictures' (rendering/layout.py): point (i, x) sits at (x * s/2, i * s * sqrt3/2).
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const S = 10; // a triangle's side in SVG units
  const H = S * Math.sqrt(3) / 2;
  const LETTERS = "TAHLS";
  const body = document.body;
  const app = document.getElementById("app");
  let data = null; // game.json
  let frames = []; // every step, whole
  let at = 0; // the step shown
  let following = true; // showing the latest step: follow the news
  let els = {};

  function el(tag, attrs, parent, text) {
    const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4)) : document.createElement(tag);
    for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    if (parent) parent.appendChild(e);
    return e;
  }
  function w(key, values) {
    let text = (data.words[key] || key);
    for (const k in values || {}) text = text.split("{" + k + "}").join(values[k]);
    return text;
  }
  function px(i, x) { return [x * S / 2, i * H]; }
  function corners(r, c) {
    return (r + c) % 2 === 0 ? [[r, c + 1], [r + 1, c], [r + 1, c + 2]] : [[r, c], [r, c + 2], [r + 1, c + 1]];
  }
  function centre(r, c) {
    const p = corners(r, c).map((q) => px(q[0], q[1]));
    return [(p[0][0] + p[1][0] + p[2][0]) / 3, (p[0][1] + p[1][1] + p[2][1]) / 3];
  }
  function label(i, x) { return String.fromCharCode(65 + i) + x; }
  function name(seat) { return data.names[seat] || w("colour_" + seat); }

  // --- the history: whole frames from the differences ------------------------------------------------
  function applyDiff(prev, d) {
    const f = Object.assign({}, prev || {});
    for (const k in d) {
      if (k === "w+" || k === "r+") {
        const key = k[0];
        f[key] = (f[key] || []).concat(d[k]);
      } else {
        f[k] = d[k];
      }
    }
    return f;
  }
  function rebuild(from) {
    frames.length = from;
    for (let k = from; k < data.steps.length; k++) frames.push(applyDiff(k ? frames[k - 1] : null, data.steps[k]));
  }

  // --- the board ------------------------------------------------------------------------------------
  function buildBoard() {
    const rows = data.map.rows;
    let maxX = 2;
    rows.forEach((row) => { if (row.length + 1 > maxX) maxX = row.length + 1; });
    const width = maxX * S / 2, height = rows.length * H;
    const m = S * 0.6;
    const svg = el("svg:svg", {
      viewBox: (-m) + " " + (-m) + " " + (width + 2 * m) + " " + (height + 2 * m),
      class: "board", role: "img", "aria-label": data.map.name,
    }, els.boardBox);
    const P = data.palette;
    const sea = el("svg:g", {}, svg);
    const land = el("svg:g", {}, svg);
    els.spaces = [];
    const index = {};
    data.map.spaces.forEach((s, k) => { index[s[0] + "," + s[1]] = k; });
    rows.forEach((row, r) => {
      for (let c = 0; c < row.length; c++) {
        const ch = row[c];
        if (ch === " ") continue;
        const pts = corners(r, c).map((q) => px(q[0], q[1]).join(",")).join(" ");
        if (ch === "~") {
          el("svg:polygon", { points: pts, fill: P.sea, stroke: P.sea_line, "stroke-width": 0.3 }, sea);
          continue;
        }
        const k = index[r + "," + c];
        const poly = el("svg:polygon", { points: pts, fill: P.land, stroke: P.grid, "stroke-width": 0.3, class: "space" }, land);
        poly.dataset.space = k;
        els.spaces[k] = poly;
        if (ch !== ".") {
          const [cx, cy] = centre(r, c);
          const sym = LETTERS.indexOf(ch);
          const g = el("svg:g", { class: "symbol" }, land);
          el("svg:circle", { cx: cx, cy: cy, r: S * data.sizes.icon / 2.4, fill: P.symbols[sym], stroke: P.ink, "stroke-width": 0.25 }, g);
          el("svg:text", { x: cx, y: cy + 1.1, "text-anchor": "middle", "font-size": 3, fill: P.ink }, g, ch);
        }
      }
    });
    els.walls = el("svg:g", { "stroke-linecap": "round" }, svg);
    els.path = el("svg:g", { fill: "none" }, svg);
    els.guards = el("svg:g", {}, svg);
    els.alex = el("svg:g", {}, svg);
    const points = el("svg:g", { class: "points" }, svg);
    const seen = {};
    data.map.spaces.forEach((s) => {
      corners(s[0], s[1]).forEach((q) => {
        const key = q[0] + "," + q[1];
        if (seen[key]) return;
        seen[key] = true;
        const [x, y] = px(q[0], q[1]);
        const dot = el("svg:circle", { cx: x, cy: y, r: 1.3, class: "point" }, points);
        dot.dataset.point = label(q[0], q[1]);
      });
    });
    els.svg = svg;
    svg.addEventListener("pointerover", explain);
    svg.addEventListener("click", explain);
    svg.addEventListener("pointerleave", () => {
      if (window.matchMedia("(min-width: 600px)").matches) els.tip.hidden = true;
    });
  }

  function wallLine(s, colour, width, parent, extra) {
    const a = px(s[0], s[1]), b = px(s[2], s[3]);
    return el("svg:line", Object.assign({ x1: a[0], y1: a[1], x2: b[0], y2: b[1], stroke: colour, "stroke-width": width }, extra || {}), parent);
  }

  function drawBoard(f) {
    const P = data.palette;
    const pv = {};
    f.pv.forEach((p) => { pv[p[0]] = p; });
    els.spaces.forEach((poly, k) => {
      const p = pv[f.pm[k]];
      let fill = P.land;
      if (p && p[2] >= 0) fill = P.tints[p[2]];
      else if (p && !p[3]) fill = P.dead;
      poly.setAttribute("fill", fill);
    });
    els.walls.replaceChildren();
    els.path.replaceChildren();
    els.guards.replaceChildren();
    els.alex.replaceChildren();
    const wall = S * data.sizes.wall;
    f.w.forEach((s) => wallLine(s, P.wall, wall, els.walls));
    f.r.forEach((s) => wallLine(s, P.red_wall, wall, els.walls));
    if (f.mv) {
      const pts = f.mv.path.map((q) => px(q[0], q[1]).join(",")).join(" ");
      el("svg:polyline", { points: pts, stroke: P.highlight, "stroke-width": wall * 0.8, "stroke-dasharray": "2 1.2", "stroke-linejoin": "round", class: "path" }, els.path);
      f.mv.w.concat(f.mv.r).forEach((s) => wallLine(s, P.highlight, wall * 2.2, els.path, { opacity: 0.45, class: "new-wall" }));
    }
    f.guards.forEach((spaces, seat) => {
      spaces.forEach((s) => {
        const [cx, cy] = centre(s[0], s[1]);
        const r = S * data.sizes.guard / 2;
        el("svg:rect", { x: cx - r, y: cy + S * 0.08, width: 2 * r, height: 2 * r, rx: 0.4, fill: P.players[seat], stroke: P.ink, "stroke-width": 0.35, class: "guard" }, els.guards);
      });
    });
    const [ax, ay] = px(f.ax[0], f.ax[1]);
    el("svg:circle", { cx: ax, cy: ay, r: S * data.sizes.alexander / 2, fill: P.highlight, stroke: "#ffffff", "stroke-width": 0.6, class: "alexander" }, els.alex);
  }

  function explain(ev) {
    const t = ev.target;
    const f = frames[at];
    if (!f || !t.dataset) return;
    const tip = els.tip;
    if (t.dataset.point) {
      tip.replaceChildren(el("strong", {}, null, w("point", { label: t.dataset.point })));
    } else if (t.dataset.space !== undefined) {
      const k = Number(t.dataset.space);
      const pid = f.pm[k];
      const p = f.pv.find((q) => q[0] === pid);
      if (!p) return;
      let guards = 0;
      const inside = new Set();
      f.pm.forEach((id, j) => { if (id === pid) inside.add(data.map.spaces[j].join(",")); });
      f.guards.forEach((spaces) => spaces.forEach((s) => { if (inside.has(s.join(","))) guards++; }));
      tip.replaceChildren();
      el("strong", {}, tip, w("province", { id: pid }));
      const dl = el("dl", {}, tip);
      const row = (k2, v) => { el("dt", {}, dl, k2); el("dd", {}, dl, v); };
      row(w("value"), String(p[1]));
      row(w("owner"), p[2] >= 0 ? name(p[2]) : w("free"));
      row(w("guards"), String(guards));
      if (!p[3]) el("p", {}, tip, w("no_symbol"));
      else {
        row(w("occupy_cost"), data.costs[p[3]] || p[3]);
        if (p[2] >= 0) row(w("removal_cost"), data.costs[p[4]] || p[4]);
      }
    } else return;
    tip.hidden = false;
  }

  // --- the panel ------------------------------------------------------------------------------------
  function drawPanel(f) {
    const P = data.palette;
    const step = at === 0 ? w("deal") : w("turn", { turn: f.turn });
    els.status.replaceChildren();
    el("span", { class: "turn" }, els.status, step);
    if (f.res) {
      const winners = f.res.winners.map(name).join(", ");
      el("span", {}, els.status, " · " + w("over", { reason: w("end_" + f.res.reason) }) + " " + w("winners", { players: winners }));
    } else if (data.status === "abandoned") {
      el("span", {}, els.status, " · " + w("abandoned"));
    } else {
      let text = " · " + w("on_turn", { player: name(f.cur) });
      if (at === frames.length - 1 && data.since) {
        const when = new Date(data.since * 1000);
        text += " " + w("since", { time: new Intl.DateTimeFormat(data.lang, { dateStyle: "medium", timeStyle: "short" }).format(when) });
      }
      el("span", {}, els.status, text);
    }
    const tb = els.players;
    tb.replaceChildren();
    const head = el("tr", {}, tb);
    ["players", "score", "cards", "guards", "guards_left"].forEach((k) => el("th", {}, head, w(k)));
    f.score.forEach((score, seat) => {
      const tr = el("tr", { class: seat === f.cur && !f.res ? "current" : "" }, tb);
      const td = el("td", {}, tr);
      el("span", { class: "swatch swatch-" + seat }, td);
      el("span", {}, td, " " + name(seat));
      el("td", {}, tr, String(score));
      el("td", {}, tr, String(f.hand[seat]));
      el("td", {}, tr, String(f.guards[seat].length));
      el("td", {}, tr, String(f.gsup[seat]));
    });
    els.facts.replaceChildren();
    const dl = el("dl", {}, els.facts);
    const row = (k, v) => { el("dt", {}, dl, k); el("dd", {}, dl, v); };
    row(w("walls_left"), f.bl + " " + w("black") + ", " + f.rl + " " + w("red"));
    row(w("face_up"), f.face.map((l) => (l ? w("sym_" + l) : "–")).join(", "));
    row(w("supply"), String(f.supply));
    void P;
  }

  function drawLog() {
    els.log.replaceChildren();
    for (let k = at; k >= 0 && k > at - 60; k--) {
      const lines = data.logs[k] || [];
      for (let j = lines.length - 1; j >= 0; j--) el("li", { class: k === at ? "now" : "" }, els.log, lines[j]);
    }
  }

  // --- the score plot ---------------------------------------------------------------------------------
  function drawPlot() {
    const box = els.plot;
    box.replaceChildren();
    const n = frames.length;
    if (!n) return;
    const top = Math.max(10, ...frames.map((f) => Math.max(...f.score)));
    const W = 300, Hh = 120;
    const svg = el("svg:svg", { viewBox: "-22 -6 " + (W + 30) + " " + (Hh + 12), class: "plot", role: "img", "aria-label": w("plot") }, box);
    el("svg:line", { x1: 0, y1: Hh, x2: W, y2: Hh, stroke: "#888", "stroke-width": 0.5 }, svg);
    const X = (k) => (n === 1 ? 0 : (k / (n - 1)) * W);
    const Y = (s) => Hh - (s / top) * Hh;
    frames[0].score.forEach((_, seat) => {
      const pts = frames.map((f, k) => X(k).toFixed(1) + "," + Y(f.score[seat]).toFixed(1)).join(" ");
      el("svg:polyline", { points: pts, fill: "none", stroke: data.palette.players[seat], "stroke-width": 1.6, class: "score-line" }, svg);
    });
    el("svg:line", { x1: X(at), y1: 0, x2: X(at), y2: Hh, stroke: data.palette.highlight, "stroke-width": 0.8 }, svg);
    el("svg:text", { x: -3, y: 5, "text-anchor": "end", "font-size": 9 }, svg, String(top));
    el("svg:text", { x: -3, y: Hh, "text-anchor": "end", "font-size": 9 }, svg, "0");
  }

  // --- steps --------------------------------------------------------------------------------------------
  function show(k, fromUser) {
    if (!frames.length) return;
    at = Math.max(0, Math.min(frames.length - 1, k));
    if (fromUser) following = at === frames.length - 1;
    const f = frames[at];
    els.slider.max = String(frames.length - 1);
    els.slider.value = String(at);
    els.stepText.textContent = w("step", { n: at + 1, total: frames.length });
    els.link.href = "#step=" + (at + 1);
    drawBoard(f);
    drawPanel(f);
    drawLog();
    drawPlot();
    body.dataset.step = String(at);
  }

  function layout() {
    app.replaceChildren();
    els.status = el("p", { class: "status", id: "status" }, app);
    const grid = el("div", { class: "grid" }, app);
    els.boardBox = el("div", { class: "board-box" }, grid);
    const side = el("div", { class: "side" }, grid);
    els.players = el("table", { class: "players" }, side);
    els.facts = el("div", { class: "facts" }, side);
    const hist = el("section", { class: "history" }, side);
    el("h2", {}, hist, w("history"));
    const controls = el("div", { class: "controls" }, hist);
    els.prev = el("button", { type: "button", "aria-label": "◀" }, controls, "◀");
    els.slider = el("input", { type: "range", min: "0", max: "0", value: "0", id: "slider", "aria-label": w("history") }, controls);
    els.next = el("button", { type: "button", "aria-label": "▶" }, controls, "▶");
    els.stepText = el("span", { class: "step-text", id: "step-text" }, hist);
    els.link = el("a", { href: "#", class: "step-link" }, hist, w("link"));
    els.live = el("span", { class: "live", id: "live" }, hist, "");
    el("h2", {}, side, w("plot"));
    els.plot = el("div", { class: "plot-box" }, side);
    el("h2", {}, side, w("log"));
    els.log = el("ul", { class: "log", id: "log" }, side);
    buildBoard();
    // After the board: on a phone the explanation sits under it (app.css), never over what was tapped.
    els.tip = el("div", { class: "tip", id: "tip", role: "status" }, els.boardBox);
    els.tip.hidden = true;
    els.slider.addEventListener("input", () => show(Number(els.slider.value), true));
    els.prev.addEventListener("click", () => show(at - 1, true));
    els.next.addEventListener("click", () => show(at + 1, true));
    document.addEventListener("keydown", (ev) => {
      if (ev.target === els.slider) return; // the slider steps by itself
      if (ev.key === "ArrowLeft") { show(at - 1, true); ev.preventDefault(); }
      if (ev.key === "ArrowRight") { show(at + 1, true); ev.preventDefault(); }
    });
    window.addEventListener("hashchange", fromHash);
  }

  function fromHash() {
    const m = /step=(\d+)/.exec(location.hash);
    if (m) show(Number(m[1]) - 1, true);
  }

  // --- live ---------------------------------------------------------------------------------------------
  function listen() {
    const source = new EventSource(body.dataset.live + "?steps=" + data.steps.length);
    source.addEventListener("open", () => { els.live.textContent = "● " + w("live"); els.live.className = "live on"; });
    source.addEventListener("error", () => {
      els.live.textContent = w("offline");
      els.live.className = "live off";
      // The browser connects again by itself after a dropped stream, but never after an answer other than
      // 200 (a 503 while the store is away, a 404 once the link was changed): then the page asks itself.
      if (source.readyState === EventSource.CLOSED) later(comeBack);
    });
    source.addEventListener("news", (ev) => {
      const news = JSON.parse(ev.data);
      if (news.from > data.steps.length) { location.reload(); return; } // a gap: load the whole page again
      data.names = news.names;
      data.status = news.status;
      data.since = news.since;
      Object.assign(data.costs, news.costs);
      data.steps.length = news.from;
      data.logs.length = news.from;
      news.steps.forEach((s) => data.steps.push(s));
      news.logs.forEach((l) => data.logs.push(l));
      rebuild(Math.min(news.from, frames.length));
      body.dataset.version = String(frames.length ? frames[frames.length - 1].v : 0);
      show(following ? frames.length - 1 : at, false);
    });
  }

  // After the 503's Retry-After of ten seconds, give or take two: the pages of a crowd do not all come back
  // at once.
  function later(what) { setTimeout(what, 8000 + Math.random() * 4000); }

  // Whether the game can be followed again: yes, listen; the link leads nowhere any more (a new link, the
  // game deleted, watching turned off), stop for good and say so; not now, ask again later.
  async function comeBack() {
    try {
      const r = await fetch(body.dataset.game, { method: "HEAD", credentials: "same-origin", cache: "no-store" });
      if (r.status === 404) {
        els.live.textContent = w("gone");
        els.live.className = "live gone";
        return;
      }
      if (r.ok) { listen(); return; }
    } catch (e) { /* the bot is away: ask again */ }
    later(comeBack);
  }

  async function start() {
    const response = await fetch(body.dataset.game, { credentials: "same-origin" });
    data = await response.json();
    layout();
    if (!data.steps.length) {
      els.status.textContent = data.status === "abandoned" ? w("abandoned") : w("lobby");
    }
    rebuild(0);
    body.dataset.version = String(frames.length ? frames[frames.length - 1].v : 0);
    show(frames.length - 1, false);
    fromHash();
    body.dataset.ready = "1";
    listen();
  }
  start();
})();
