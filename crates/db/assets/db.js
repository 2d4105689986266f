// The database's page: a board (click a piece, then its square), the
// explorer's table from /lichess (click a move to play it), the games
// through the position, a search (/search) and a game viewer (/api/game/N).
'use strict';
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const GLYPHS = { K: '\u2654', Q: '\u2655', R: '\u2656', B: '\u2657', N: '\u2658', P: '\u2659',
  k: '\u265a', q: '\u265b', r: '\u265c', b: '\u265d', n: '\u265e', p: '\u265f' };
const state = { fen: START, play: [], position: null, selected: null };
const $ = id => document.getElementById(id);

function el(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

async function getJSON(url) {
  const r = await fetch(url);
  const v = await r.json();
  if (!r.ok) throw new Error(v.error || r.statusText);
  return v;
}

function query() {
  return 'fen=' + encodeURIComponent(state.fen) + '&play=' + encodeURIComponent(state.play.join(','));
}

// The squares of a FEN's board: { e4: 'P', ... }.
function pieces(fen) {
  const out = {};
  fen.split(' ')[0].split('/').forEach((row, r) => {
    let f = 0;
    for (const c of row) {
      if (/[1-8]/.test(c)) { f += Number(c); continue; }
      out['abcdefgh'[f] + (8 - r)] = c;
      f += 1;
    }
  });
  return out;
}

function drawBoard() {
  const board = $('board');
  board.replaceChildren();
  const on = pieces(state.position.fen);
  const targets = state.selected
    ? state.position.legal.filter(m => m.uci.startsWith(state.selected)).map(m => m.uci.slice(2, 4))
    : [];
  for (let r = 8; r >= 1; r--) {
    for (const f of 'abcdefgh') {
      const sq = f + r;
      const dark = ('abcdefgh'.indexOf(f) + r) % 2 === 1;
      const cell = el('div', { class: 'sq ' + (dark ? 'dark' : 'light'), 'data-square': sq, role: 'gridcell' },
        on[sq] ? GLYPHS[on[sq]] : '');
      if (sq === state.selected) cell.classList.add('selected');
      if (targets.includes(sq)) cell.classList.add('target');
      cell.addEventListener('click', () => clickSquare(sq));
      board.appendChild(cell);
    }
  }
  $('fen').textContent = state.position.fen;
  $('line').textContent = state.position.line.join(' ');
  const o = state.position.opening;
  $('opening').textContent = o ? o.eco + ' ' + o.name : '';
}

function clickSquare(sq) {
  const legal = state.position.legal;
  if (state.selected) {
    const from = state.selected;
    const moves = legal.filter(m => m.uci.slice(0, 4) === from + sq);
    state.selected = null;
    if (moves.length) {
      const queen = moves.find(m => m.uci.length === 4 || m.uci.endsWith('q'));
      play((queen || moves[0]).uci);
      return;
    }
  }
  state.selected = legal.some(m => m.uci.startsWith(sq)) ? sq : null;
  drawBoard();
}

function play(uci) {
  state.play.push(uci);
  refresh();
}

function bar(w, d, b) {
  const n = w + d + b || 1;
  const div = el('div', { class: 'bar' });
  for (const [cls, v] of [['w', w], ['d', d], ['b', b]]) {
    const pct = Math.round(100 * v / n);
    const s = el('span', { class: cls }, pct >= 12 ? pct + '%' : '');
    s.style.width = (100 * v / n) + '%';
    div.appendChild(s);
  }
  return div;
}

function gameRow(g, onClick) {
  const tr = el('tr', { class: 'game-row', 'data-id': g.id });
  const who = p => p.name + (p.rating ? ' (' + p.rating + ')' : '');
  const res = g.winner === 'white' ? '1-0' : g.winner === 'black' ? '0-1' : '\u00bd';
  tr.append(el('td', {}, who(g.white)), el('td', {}, who(g.black)), el('td', {}, res),
    el('td', {}, g.month || g.year || ''), el('td', {}, g.uci || ''));
  tr.addEventListener('click', () => onClick(g.id));
  return tr;
}

function drawExplorer(ex) {
  const body = $('moves').querySelector('tbody');
  body.replaceChildren();
  for (const m of ex.moves) {
    const n = m.white + m.draws + m.black;
    const tr = el('tr', { class: 'move-row', 'data-uci': m.uci });
    const bars = el('td');
    bars.appendChild(bar(m.white, m.draws, m.black));
    tr.append(el('td', { class: 'san' }, m.san), el('td', { class: 'games' }, String(n)), bars,
      el('td', {}, m.averageRating == null ? '' : String(m.averageRating)));
    tr.addEventListener('click', () => play(m.uci));
    body.appendChild(tr);
  }
  for (const [id, list] of [['top-games', ex.topGames], ['recent-games', ex.recentGames]]) {
    const b = $(id).querySelector('tbody');
    b.replaceChildren(...list.map(g => gameRow(g, showGame)));
  }
}

async function refresh() {
  const at = query();
  try {
    const [position, ex] = await Promise.all([
      getJSON('/api/position?' + at),
      getJSON('/lichess?' + at + '&moves=40&topGames=8&recentGames=8'),
    ]);
    state.position = position;
    state.selected = null;
    drawBoard();
    drawExplorer(ex);
    $('status').textContent = (ex.white + ex.draws + ex.black) + ' games';
    document.body.dataset.fen = position.fen;
  } catch (e) {
    state.play.pop();
    $('status').textContent = String(e.message || e);
  }
}

// Game `id` in the viewer; with `ply`, the board at that ply of it (0: its
// start), as a click on its move would show it.
async function showGame(id, ply) {
  const g = await getJSON('/api/game/' + encodeURIComponent(id));
  const v = $('viewer');
  v.replaceChildren();
  const t = g.tags;
  v.appendChild(el('p', { class: 'players' },
    (t.White || '?') + ' \u2013 ' + (t.Black || '?') + '  ' + (t.Result || '') + '  ' + (t.Date || '') + '  ' + (t.Event || '')));
  const moves = el('div', { class: 'moves', 'data-id': g.id });
  g.moves.forEach((m, i) => {
    if (i % 2 === 0) moves.append((i / 2 + 1) + '. ');
    const s = el('span', { 'data-ply': String(i + 1) }, m.san);
    s.addEventListener('click', () => {
      for (const o of moves.querySelectorAll('span.current')) o.classList.remove('current');
      s.classList.add('current');
      state.fen = g.start;
      state.play = g.moves.slice(0, i + 1).map(x => x.uci);
      refresh();
    });
    moves.append(s, ' ');
  });
  v.appendChild(moves);
  v.appendChild(el('a', { href: '/game/' + g.id }, 'PGN'));
  if (ply === 0) {
    state.fen = g.start;
    state.play = [];
    refresh();
  } else if (ply > 0) {
    const s = moves.querySelector('span[data-ply="' + ply + '"]');
    if (s) s.click();
  }
}

$('search').addEventListener('submit', async ev => {
  ev.preventDefault();
  const f = new FormData(ev.target);
  const q = new URLSearchParams();
  for (const k of ['player', 'elo', 'result', 'query']) if (f.get(k)) q.set(k, f.get(k));
  if (f.get('here')) q.set('fen', state.position.fen);
  const body = $('found').querySelector('tbody');
  try {
    const r = await getJSON('/search?' + q.toString());
    // A query's games open at the first ply it is met at, which the row shows.
    body.replaceChildren(...r.games.map(g => gameRow({
      id: g.id, white: { name: g.white, rating: g.whiteElo }, black: { name: g.black, rating: g.blackElo },
      winner: g.result === '1-0' ? 'white' : g.result === '0-1' ? 'black' : null, month: g.date,
      uci: g.matched ? 'ply ' + g.matched.join(',') : '',
    }, id => showGame(id, g.matched ? g.matched[0] : undefined))));
  } catch (e) {
    body.replaceChildren(el('tr', {}, String(e.message || e)));
  }
});
$('back').addEventListener('click', () => { state.play.pop(); refresh(); });
$('reset').addEventListener('click', () => { state.fen = START; state.play = []; refresh(); });
refresh();
