// The spectator page: renders the event view pushed by /api/stream
// (Server-Sent Events) and ticks the clocks between updates.
"use strict";

let view = null;      // the latest event view
let receivedAt = 0;   // performance.now() when it arrived

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

function moveList(g) {
  const n = g.moves.length;
  // The side that made the first move: the side to move now, if the
  // number of moves is even.
  const firstBlack = (n % 2 === 0) === (g.turn === "black");
  const cells = g.moves.map((m, i) =>
    '<span class="' + (i === n - 1 ? "last" : "") + '" title="' +
    esc((m.time_ms / 1000).toFixed(1) + " s" + (m.depth != null ? ", depth " + m.depth : "")) +
    '">' + esc(m.san) + "</span>");
  if (firstBlack) cells.unshift("<span>…</span>");
  let out = "";
  for (let i = 0; i < cells.length; i += 2) {
    out += "<li>" + cells[i] + (cells[i + 1] || "") + "</li>";
  }
  return out;
}

function playerRow(g, side) {
  const i = side === "white" ? 0 : 1;
  return '<div class="player ' + side + '"><span class="name">' + esc(g[side]) +
    '</span><span class="eval" title="last score/depth">' + esc(evalText(g.evals[i])) +
    '</span><span class="clock ' + side + '" data-side="' + side + '"></span></div>';
}

function renderLive(v) {
  const box = document.getElementById("live");
  if (v.live.length === 0) {
    box.innerHTML = '<p class="empty">' + (v.over ? "The event is over." : "No game in progress.") + "</p>";
    return;
  }
  box.innerHTML = v.live.map(g =>
    '<div class="game" id="game-' + g.number + '" data-number="' + g.number + '">' +
    "<h3>Game " + g.number + " · round " + esc(g.round) + ": " + esc(g.white) + " – " + esc(g.black) +
    ' · <a href="/games/' + g.number + '.pgn">PGN</a></h3>' +
    '<div class="board-box">' + g.board_svg + "</div>" +
    playerRow(g, "black") +
    '<ol class="moves">' + moveList(g) + "</ol>" +
    playerRow(g, "white") +
    "</div>").join("");
  for (const ol of box.querySelectorAll(".moves")) ol.scrollTop = ol.scrollHeight;
}

function renderStandings(v) {
  let t = "<tr><th>#</th><th>Player</th><th>Points</th><th>Games</th><th>+</th><th>=</th><th>−</th></tr>";
  v.standings.forEach((s, i) => {
    t += "<tr><td>" + (i + 1) + '</td><td class="name">' + esc(s.name) + "</td><td>" + s.points +
      "</td><td>" + s.games + "</td><td>" + s.wins + "</td><td>" + s.draws + "</td><td>" + s.losses + "</td></tr>";
  });
  document.getElementById("standings").innerHTML = t;
  let c = "<tr><th></th>" + v.players.map((_, j) => "<th>" + (j + 1) + "</th>").join("") + "</tr>";
  v.cross_table.forEach((row, i) => {
    c += '<tr><td class="name">' + (i + 1) + ". " + esc(v.players[i]) + "</td>" +
      row.map(cell => cell === null ? '<td class="self"></td>' : "<td>" + esc(cell) + "</td>").join("") + "</tr>";
  });
  document.getElementById("cross-table").innerHTML = c;
}

function renderFinished(v) {
  const el = document.getElementById("finished");
  if (v.finished.length === 0) {
    el.innerHTML = '<tr><td class="empty">No game finished yet.</td></tr>';
    return;
  }
  el.innerHTML = "<tr><th>Game</th><th>White</th><th>Black</th><th>Result</th><th>Moves</th><th>Ending</th><th>PGN</th></tr>" +
    v.finished.map(f => "<tr><td>" + f.number + '</td><td class="name">' + esc(f.white) +
      '</td><td class="name">' + esc(f.black) + "</td><td>" + esc(f.result) + "</td><td>" +
      Math.ceil(f.plies / 2) + '</td><td class="name">' + esc(f.reason) + '</td><td><a href="' +
      esc(f.pgn) + '" download>' + "download</a></td></tr>").join("");
}

function render(v) {
  document.getElementById("event-name").textContent = v.name;
  const playing = v.schedule.filter(g => g.state === "playing").length;
  const done = v.schedule.filter(g => g.state === "finished").length;
  document.getElementById("event-info").textContent =
    (v.site ? v.site + " · " : "") + "time control " + v.time_control + " · " +
    done + " of " + v.schedule.length + " games finished, " + playing + " playing" +
    (v.over ? " · event over" : "");
  renderLive(v);
  renderStandings(v);
  renderFinished(v);
  tick();
}

// Clocks: the side to move's time runs from the moment the view was sent.
function tick() {
  if (!view) return;
  const since = performance.now() - receivedAt;
  for (const g of view.live) {
    const card = document.getElementById("game-" + g.number);
    if (!card) continue;
    const thinking = g.thinking_ms + since;
    ["white", "black"].forEach((side, i) => {
      const el = card.querySelector(".clock." + side);
      if (!el) return;
      const running = g.turn === side && !view.over;
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

function connect() {
  const status = document.getElementById("connection");
  const source = new EventSource("/api/stream");
  source.onopen = () => { status.textContent = "live"; status.classList.add("live"); };
  source.onmessage = e => {
    view = JSON.parse(e.data);
    receivedAt = performance.now();
    render(view);
    document.body.dataset.version = String(view.version);
  };
  source.onerror = () => {
    status.textContent = view && view.over ? "the event is over" : "reconnecting…";
    status.classList.remove("live");
  };
}

setInterval(tick, 100);
connect();
