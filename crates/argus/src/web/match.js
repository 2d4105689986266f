// The match page: renders the match view pushed by /api/stream
// (Server-Sent Events): standings, statistics, the LLR's path as a chart,
// the pace, the games in progress (live.js) and the finished games.
"use strict";

// esc, renderGames, tickGames, watch and the latest view are live.js's.

function num(x, digits) {
  return x === null || x === undefined ? "n/a" : x.toFixed(digits);
}

function percent(x) {
  return x === null || x === undefined ? "n/a" : (100 * x).toFixed(1) + " %";
}

// Seconds as "1 h 02 min", "3 min 05 s", "12 s".
function duration(s) {
  s = Math.max(0, Math.round(s));
  const h = Math.floor(s / 3600), m = Math.floor(s / 60) % 60, sec = s % 60;
  if (h > 0) return h + " h " + String(m).padStart(2, "0") + " min";
  if (m > 0) return m + " min " + String(sec).padStart(2, "0") + " s";
  return sec + " s";
}

function renderStandings(v) {
  document.getElementById("standings").innerHTML = standingsRows(v.standings, "Engine");
}

// Elo with its 95 % interval: "12.3 ± 20.1 [-7.8, 32.4]"; an interval
// with an infinite end (null in JSON) is shown by its ends only.
function eloText(e) {
  if (!e) return "n/a";
  const lo = e.elo_lower, hi = e.elo_upper;
  const end = x => x === null ? "∞" : x.toFixed(1);
  if (lo === null || hi === null || e.elo === null) {
    return (e.elo === null ? "∞" : e.elo.toFixed(1)) + " [" + (lo === null ? "−∞" : end(lo)) + ", " + end(hi) + "]";
  }
  return e.elo.toFixed(1) + " ± " + ((hi - lo) / 2).toFixed(1) + " [" + lo.toFixed(1) + ", " + hi.toFixed(1) + "]";
}

function renderStats(v) {
  const box = document.getElementById("stats-box");
  const s = v.stats;
  box.hidden = !s;
  if (!s) return;
  const first = v.players[0] + " vs " + v.players[1];
  const e = s.estimate;
  const rows = [
    ["stat-pair", "Engines", esc(first)],
    ["stat-games", "Games", String(s.wdl.wins + s.wdl.draws + s.wdl.losses)],
    ["stat-wdl", "W / D / L", s.wdl.wins + " / " + s.wdl.draws + " / " + s.wdl.losses],
    ["stat-ptnml", "Pentanomial [0–2]", s.ptnml ? "[" + s.ptnml.join(", ") + "]" : "no pair yet"],
    ["stat-score", "Score", percent(s.score)],
    ["stat-elo", "Elo (95 %)", esc(eloText(e))],
    ["stat-basis", "Counted", e ? esc(e.basis.model + ", " + e.basis.samples + " " +
      (e.basis.model === "pentanomial" ? "pairs" : "games")) : "n/a"],
    ["stat-los", "LOS", percent(e ? e.los : null)],
    ["stat-draws", "Draw ratio", percent(s.draw_ratio)],
  ];
  if (s.sprt) rows.push(["stat-llr", "LLR", num(s.sprt.llr, 2) + " (" + num(s.sprt.lower, 2) + ", " + num(s.sprt.upper, 2) + ")"]);
  document.getElementById("stats").innerHTML = rows.map(([id, label, value]) =>
    '<tr id="' + id + '"><th>' + label + "</th><td>" + value + "</td></tr>").join("");
}

// The LLR's path between its bounds, as SVG: x the games, y the LLR.
function llrChart(path, lower, upper) {
  const W = 640, H = 240, L = 48, R = 12, T = 12, B = 28;
  const lo = Math.min(lower, ...path.map(p => p.llr)), hi = Math.max(upper, ...path.map(p => p.llr));
  const maxGames = Math.max(2, ...path.map(p => p.games));
  const x = g => L + (W - L - R) * g / maxGames;
  const y = v => T + (H - T - B) * (hi - v) / (hi - lo || 1);
  const line = (v, cls) => '<line class="' + cls + '" x1="' + L + '" x2="' + (W - R) + '" y1="' + y(v).toFixed(1) +
    '" y2="' + y(v).toFixed(1) + '"></line><text class="axis" x="' + (L - 4) + '" y="' + (y(v) + 4).toFixed(1) +
    '" text-anchor="end">' + v.toFixed(2) + "</text>";
  const points = [[0, 0]].concat(path.map(p => [p.games, p.llr]))
    .map(([g, v]) => x(g).toFixed(1) + "," + y(v).toFixed(1)).join(" ");
  return '<svg class="llr" viewBox="0 0 ' + W + " " + H + '" width="' + W + '" height="' + H + '" role="img" aria-label="LLR by games">' +
    line(upper, "bound upper") + line(lower, "bound lower") + line(0, "zero") +
    '<polyline id="llr-path" class="path" data-points="' + path.length + '" points="' + points + '"></polyline>' +
    '<text class="axis" x="' + (W - R) + '" y="' + (H - 8) + '" text-anchor="end">' + maxGames + " games</text>" +
    '<text class="axis" x="' + L + '" y="' + (H - 8) + '">0</text></svg>';
}

function renderSprt(v) {
  const box = document.getElementById("sprt-box");
  const status = v.stats && v.stats.sprt;
  box.hidden = !v.sprt || !status;
  if (box.hidden) return;
  const c = v.sprt;
  const verdict = v.decided === "AcceptH1" ? "H1 accepted" : v.decided === "AcceptH0" ? "H0 accepted" : "running";
  document.getElementById("sprt-info").textContent =
    "elo0 " + c.elo0 + ", elo1 " + c.elo1 + ", alpha " + c.alpha + ", beta " + c.beta + " (" + c.model + ")" +
    " · LLR " + num(status.llr, 2) + " between " + num(status.lower, 2) + " and " + num(status.upper, 2) + " · " + verdict;
  document.getElementById("llr-chart").innerHTML = llrChart(v.llr_path, status.lower, status.upper);
}

// The pace and ETA as of the last result; the time running goes on
// from when the view was sent (`since` ms ago).
function renderPace(v, since) {
  const p = v.pace;
  const gone = since / 1000;
  let t = v.games_done + " of " + v.total_games + " games counted";
  t += " · " + (p.games_per_minute === null ? "n/a" : p.games_per_minute.toFixed(1)) + " games per minute";
  if (v.over) t += " · over" + (v.stopped ? " (" + v.stopped + ")" : "");
  else if (p.eta_s === null) t += " · ETA unknown";
  else t += " · ETA " + (p.eta_is_bound ? "at most " : "") + duration(p.eta_s);
  t += " · running for " + duration(p.elapsed_s + (v.over ? 0 : gone));
  document.getElementById("pace").textContent = t;
}

function renderFinished(v) {
  const games = v.finished;
  document.getElementById("finished-info").textContent = v.finished_total + " finished by this run" +
    (games.length < v.finished_total ? " (the last " + games.length + " below)" : "");
  document.getElementById("finished").innerHTML = games.length === 0
    ? '<tr><td class="empty">No game finished yet.</td></tr>'
    : "<tr><th>Game</th><th>White</th><th>Black</th><th>Result</th><th>Moves</th><th>Ending</th></tr>" +
      games.slice().reverse().map(f => '<tr class="game-row" data-number="' + f.number + '"><td>' + f.number +
        '</td><td class="name">' + esc(f.white) + '</td><td class="name">' + esc(f.black) +
        '</td><td class="result">' + esc(f.result) + "</td><td>" + Math.ceil(f.plies / 2) +
        '</td><td class="name">' + esc(f.reason) + "</td></tr>").join("");
}

function render(v) {
  document.getElementById("match-name").textContent = v.name;
  document.title = v.name + " · rookery match";
  const limits = v.players.map((p, i) => p + " " + (v.limits[i] || "")).join(", ");
  document.getElementById("match-info").textContent = limits +
    (v.shard ? " · shard " + v.shard : "") + (v.pool ? " · pool " + v.pool : "");
  renderStandings(v);
  renderStats(v);
  renderSprt(v);
  renderGames(document.getElementById("live"), v, g =>
    "Game " + g.number + ": " + esc(g.white) + " – " + esc(g.black),
    v.over ? "The match is over." : "No game in progress.");
  renderFinished(v);
}

function tick(v, since) {
  tickGames(v, since);
  renderPace(v, since);
}

watch("/api/stream", "/api/match", render, tick, "the match is over");
