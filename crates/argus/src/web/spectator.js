// The spectator page: renders the event view pushed by /api/stream
// (Server-Sent Events) and ticks the clocks between updates.
"use strict";

// esc, renderGames, tickGames, watch and the latest view are live.js's.

function renderLive(v) {
  renderGames(document.getElementById("live"), v, g =>
    "Game " + g.number + " · round " + esc(g.round) + ": " + esc(g.white) + " – " + esc(g.black) +
    ' · <a href="/games/' + g.number + '.pgn">PGN</a>',
    v.over ? "The event is over." : "No game in progress.");
}

function renderStandings(v) {
  document.getElementById("standings").innerHTML = standingsRows(v.standings, "Player");
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
}

watch("/api/stream", "/api/event", render, tickGames, "the event is over");
