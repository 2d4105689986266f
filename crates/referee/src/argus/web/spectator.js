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
    '<p class="moves" aria-label="moves">' + moveList(g) + "</p>" +
    playerRow(g, "white") +
    "</div>").join("");
  for (const list of box.querySelectorAll(".moves")) list.scrollTop = list.scrollHeight;
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

// The schedule and the finished games: the view carries a window of each
// (the current games, the last ones recorded); the pager fetches others
// from /api/schedule and /api/finished and holds them until "current".
const PAGE = 50;

function finishedRows(games) {
  if (games.length === 0) return '<tr><td class="empty">No game finished yet.</td></tr>';
  return "<tr><th>Game</th><th>White</th><th>Black</th><th>Result</th><th>Moves</th><th>Ending</th><th>PGN</th></tr>" +
    games.map(f => "<tr><td>" + f.number + '</td><td class="name">' + esc(f.white) +
      '</td><td class="name">' + esc(f.black) + "</td><td>" + esc(f.result) + "</td><td>" +
      Math.ceil(f.plies / 2) + '</td><td class="name">' + esc(f.reason) + '</td><td><a href="' +
      esc(f.pgn) + '" download>' + "download</a></td></tr>").join("");
}

function scheduleRows(games) {
  if (games.length === 0) return '<tr><td class="empty">Every game is finished.</td></tr>';
  return "<tr><th>Game</th><th>Round</th><th>White</th><th>Black</th><th>State</th></tr>" +
    games.map(g => "<tr><td>" + g.number + "</td><td>" + g.round + '</td><td class="name">' +
      esc(g.white) + '</td><td class="name">' + esc(g.black) + "</td><td>" +
      esc(g.result || g.state) + "</td></tr>").join("");
}

const lists = {
  finished: {
    route: "/api/finished",
    rows: finishedRows,
    page: null,
    current: v => ({ total: v.finished_total, from: Math.max(1, v.finished_total - v.finished.length + 1), games: v.finished }),
  },
  schedule: {
    route: "/api/schedule",
    rows: scheduleRows,
    page: null,
    current: v => ({ total: v.schedule_total, from: v.schedule.length ? v.schedule[0].number : v.schedule_total + 1, games: v.schedule }),
  },
};

function showList(name) {
  const l = lists[name];
  const now = l.current(view);
  const shown = l.page || now;
  document.getElementById(name).innerHTML = l.rows(shown.games);
  const last = shown.from + shown.games.length - 1;
  const pager = document.getElementById(name + "-pager");
  const button = (label, from, off) =>
    '<button type="button" data-list="' + name + '" data-from="' + from + '"' + (off ? " disabled" : "") + ">" + label + "</button>";
  pager.innerHTML = [
    shown.games.length ? "games " + shown.from + "–" + last + " of " + shown.total : shown.total + " games",
    button("« first", 1, shown.from <= 1),
    button("‹ earlier", Math.max(1, shown.from - PAGE), shown.from <= 1),
    button("later ›", shown.from + PAGE, last >= shown.total),
    button(name === "finished" ? "latest »" : "current »", 0, !l.page),
  ].join(" ");
}

function goTo(name, from) {
  const l = lists[name];
  if (from === 0 || from === l.current(view).from) {
    l.page = null;
    showList(name);
    return;
  }
  fetch(l.route + "?from=" + from + "&count=" + PAGE)
    .then(r => r.json())
    .then(p => { l.page = p; showList(name); })
    .catch(() => {});
}

document.addEventListener("click", e => {
  const b = e.target.closest("button[data-list]");
  if (b && view) goTo(b.dataset.list, parseInt(b.dataset.from, 10));
});

function render(v) {
  document.getElementById("event-name").textContent = v.name;
  document.getElementById("event-info").textContent =
    (v.site ? v.site + " · " : "") + "time control " + v.time_control + " · " +
    v.finished_total + " of " + v.schedule_total + " games finished, " + v.live.length + " playing" +
    (v.over ? " · event over" : "");
  renderLive(v);
  renderStandings(v);
  showList("schedule");
  showList("finished");
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

function update(v) {
  view = v;
  receivedAt = performance.now();
  render(view);
  document.body.dataset.version = String(view.version);
}

// Live by Server-Sent Events; when the referee has no room for another
// stream (it answers 503), the same view is polled from /api/event until
// a stream can be opened again.
let polling = null;

function connect() {
  const status = document.getElementById("connection");
  const source = new EventSource("/api/stream");
  source.onopen = () => {
    status.textContent = "live";
    status.classList.add("live");
    if (polling) { clearInterval(polling); polling = null; }
  };
  source.onmessage = e => update(JSON.parse(e.data));
  source.onerror = () => {
    status.classList.remove("live");
    if (view && view.over) {
      status.textContent = "the event is over";
      source.close();
    } else if (source.readyState === EventSource.CLOSED) {
      status.textContent = "busy: updated every few seconds";
      if (!polling) {
        const poll = () => fetch("/api/event").then(r => r.json()).then(update).catch(() => {});
        poll();
        polling = setInterval(poll, 3000);
      }
      setTimeout(connect, 30000);
    } else {
      status.textContent = "reconnecting…";
    }
  };
}

setInterval(tick, 100);
connect();
