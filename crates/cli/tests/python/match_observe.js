// What the match page (`rookery match --web`) shows, for spectator_cdp.py:
// the fields its waits read (mark, boards, fen, clocks, moves) about the
// first game in progress, and the match's standings, statistics, LLR
// chart, pace and finished games, as text the page displays.
(() => {
  const g = document.querySelector('#live .game');
  const svg = g ? g.querySelector('svg.board') : null;
  const title = svg ? svg.querySelector('title') : null;
  const text = sel => { const e = g ? g.querySelector(sel) : null; return e ? e.textContent : null; };
  const cell = id => { const e = document.querySelector('#' + id + ' td'); return e ? e.textContent : null; };
  const path = document.getElementById('llr-path');
  const box = document.getElementById('sprt-box');
  return JSON.stringify({
    mark: window.__spectatorMark || null,
    boards: document.querySelectorAll('#live svg.board').length,
    fen: title ? title.textContent : null,
    white_clock: text('.clock.white'),
    black_clock: text('.clock.black'),
    moves: g ? Array.from(g.querySelectorAll('.moves span.move')).map(e => e.textContent) : [],
    connection: document.getElementById('connection').textContent,
    version: document.body.dataset.version || null,
    standings: Array.from(document.querySelectorAll('#standings tr')).slice(1)
      .map(r => Array.from(r.cells).map(c => c.textContent)),
    wdl: cell('stat-wdl'),
    ptnml: cell('stat-ptnml'),
    elo: cell('stat-elo'),
    llr: cell('stat-llr'),
    sprt_shown: box ? !box.hidden : false,
    llr_points: path ? parseInt(path.dataset.points, 10) : 0,
    llr_polyline: path ? path.getAttribute('points').trim().split(/\s+/).length : 0,
    bounds: document.querySelectorAll('#llr-chart line.bound').length,
    pace: document.getElementById('pace').textContent,
    finished: Array.from(document.querySelectorAll('#finished tr.game-row'))
      .map(r => [parseInt(r.dataset.number, 10), r.querySelector('.result').textContent]),
    finished_info: document.getElementById('finished-info').textContent,
    scripts: Array.from(document.scripts).map(s => s.src),
  });
})()
