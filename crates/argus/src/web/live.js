// What the spectator page and the match page share: escaping, clocks,
// a game in progress as a card (board, players, clocks, moves), and the
// view followed by Server-Sent Events with polling when the server has no
// room for another stream, its clocks ticking between views (watch).
"use strict";

function esc(s) {
  return String(s).replace(/[&<>"']/g, c => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;"
  })[c]);
}

// Milliseconds as h:mm:ss, m:ss, or s.t under 20 seconds.
function clockText(ms) {
  ms = Math.max(0, ms);
  const s = Math.floor(ms / 1000);
  if (ms < 20000) return (ms / 1000).toFixed(1);
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  const mm = h > 0 ? String(m).padStart(2, "0") : String(m);
  return (h > 0 ? h + ":" : "") + mm + ":" + String(sec).padStart(2, "0");
}

function evalText(e) {
  if (!e) return "";
  return (e.score || "") + (e.depth != null ? "/" + e.depth : "");
}

// The moves as text, numbered as in PGN ("1. e4 e5 2. Nf3", "12... Kh8"):
// what a copy or a screen reader gets. The first move's number comes from
// the current position's move number and the moves played since.
function moveList(g) {
  const n = g.moves.length;
  const fields = g.fen.split(" ");
  const fullmove = parseInt(fields[5], 10) || 1;
  const startPly = Math.max(0, (fullmove - 1) * 2 + (g.turn === "black" ? 1 : 0) - n);
  const parts = [];
  g.moves.forEach((m, i) => {
    const ply = startPly + i;
    const number = Math.floor(ply / 2) + 1;
    if (ply % 2 === 0) parts.push('<span class="num">' + number + ".</span>");
    else if (i === 0) parts.push('<span class="num">' + number + "...</span>");
    parts.push('<span class="move' + (i === n - 1 ? " last" : "") + '" title="' +
      esc((m.time_ms / 1000).toFixed(1) + " s" + (m.depth != null ? ", depth " + m.depth : "")) +
      '">' + esc(m.san) + "</span>");
  });
  return parts.join(" ");
}

function playerRow(g, side) {
  const i = side === "white" ? 0 : 1;
  return '<div class="player ' + side + '"><span class="name">' + esc(g[side]) +
    '</span><span class="eval" title="last score/depth">' + esc(evalText(g.evals[i])) +
    '</span><span class="clock ' + side + '" data-side="' + side + '"></span></div>';
}

// Every game in progress of `v.live` into the element `box`, each a card
// with its board, players, clocks and moves; `title(g)` is its heading.
function renderGames(box, v, title, empty) {
  if (v.live.length === 0) {
    box.innerHTML = '<p class="empty">' + esc(empty) + "</p>";
    return;
  }
  box.innerHTML = v.live.map(g =>
    '<div class="game" id="game-' + g.number + '" data-number="' + g.number + '">' +
    "<h3>" + title(g) + "</h3>" +
    '<div class="board-box">' + g.board_svg + "</div>" +
    playerRow(g, "black") +
    '<p class="moves" aria-label="moves">' + moveList(g) + "</p>" +
    playerRow(g, "white") +
    "</div>").join("");
  for (const list of box.querySelectorAll(".moves")) list.scrollTop = list.scrollHeight;
}

// Clocks: the side to move's time runs from the moment the view was sent
// (`since` ms ago).
function tickGames(v, since) {
  for (const g of v.live) {
    const card = document.getElementById("game-" + g.number);
    if (!card) continue;
    const thinking = g.thinking_ms + since;
    ["white", "black"].forEach((side, i) => {
      const el = card.querySelector(".clock." + side);
      if (!el) return;
      const running = g.turn === side && !v.over;
      let text;
      if (g.clock_ms[i] !== null) {
        const left = g.clock_ms[i] - (running ? thinking : 0);
        text = clockText(left);
        el.classList.toggle("low", left < 10000);
      } else {
        // No clock: the time used, counting up.
        text = clockText(g.used_ms[i] + (running ? thinking : 0)) + " used";
      }
      el.textContent = text;
      el.classList.toggle("running", running);
    });
  }
}

// Follows the view: live by Server-Sent Events from `stream`; when the
// server has no room for another stream (it answers 503), the same view is
// polled from `json` until a stream can be opened again. `update(v)` gets
// every view; `ended()` says, once the last view was the end, how (else
// null).
function follow(stream, json, update, ended) {
  const status = document.getElementById("connection");
  let polling = null;
  function connect() {
    const source = new EventSource(stream);
    source.onopen = () => {
      status.textContent = "live";
      status.classList.add("live");
      if (polling) { clearInterval(polling); polling = null; }
    };
    source.onmessage = e => update(JSON.parse(e.data));
    source.onerror = () => {
      status.classList.remove("live");
      if (ended()) {
        status.textContent = ended();
        source.close();
      } else if (source.readyState === EventSource.CLOSED) {
        status.textContent = "busy: updated every few seconds";
        if (!polling) {
          const poll = () => fetch(json).then(r => r.json()).then(update).catch(() => {});
          poll();
          polling = setInterval(poll, 3000);
        }
        setTimeout(connect, 30000);
      } else {
        status.textContent = "reconnecting…";
      }
    };
  }
  connect();
}

// The standings as a table's rows, best first, the names' column headed
// `who` (Engine, Player).
function standingsRows(standings, who) {
  let t = "<tr><th>#</th><th>" + who + "</th><th>Points</th><th>Games</th><th>+</th><th>=</th><th>−</th></tr>";
  standings.forEach((s, i) => {
    t += "<tr><td>" + (i + 1) + '</td><td class="name">' + esc(s.name) + "</td><td>" + s.points +
      "</td><td>" + s.games + "</td><td>" + s.wins + "</td><td>" + s.draws + "</td><td>" + s.losses + "</td></tr>";
  });
  return t;
}

let view = null;      // the latest view
let receivedAt = 0;   // performance.now() when it arrived

// The page's view followed (see follow): `render(v)` draws each view as it
// comes (the body's data-version then says which), `tick(v, since)` runs
// every 100 ms and after each render with the milliseconds since the view
// came; once a view is the last (`over`), the connection line says `over`.
function watch(stream, json, render, tick, over) {
  const ticked = () => { if (view) tick(view, performance.now() - receivedAt); };
  setInterval(ticked, 100);
  follow(stream, json, v => {
    view = v;
    receivedAt = performance.now();
    render(v);
    ticked();
    document.body.dataset.version = String(v.version);
  }, () => view && view.over ? over : null);
}

