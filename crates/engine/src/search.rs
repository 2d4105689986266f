//! The search: iterative deepening, aspiration windows, principal-variation
//! search with pruning and reductions, quiescence search.
//!
//! State comes in three parts. [`crate::Shared`] (transposition table,
//! evaluator) lives as long as the engine; [`Control`] (stop and ponder flags,
//! node counters, clock) lives for one `go` and is shared by every thread;
//! [`Thread`] (board stack, killers, histories, PV) belongs to one thread.
//!
//! Deliberate races: the stop and ponder flags and the node counters are
//! relaxed atomics — a thread may see a stop one node late, and the node sum
//! may lag a little; the table's races are described in [`crate::tt`].

use crate::eval::Evaluator;
use crate::ordering::{piece_index, see_ge, Hints, Picker};
use crate::params::*;
use crate::time::Budget;
use crate::tt::{Bound, Entry};
use crate::{Event, Report, Score, Shared};
use rookery_core::{Move, MoveList, Position};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::time::Instant;

/// What one `go` may do.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Deepest iteration.
    pub depth: i32,
    /// Node limit (summed over threads).
    pub nodes: Option<u64>,
    /// Time budget.
    pub budget: Option<Budget>,
    /// Mate search: find a mate in this many moves, without unsound pruning.
    pub mate: Option<u32>,
    /// Number of principal variations.
    pub multipv: usize,
    /// Report `currline`.
    pub show_currline: bool,
    /// Report `refutation`.
    pub show_refutations: bool,
}

/// Shared by all threads of one search.
pub struct Control {
    /// Set to end the search (by `stop`, limits, or the main thread finishing).
    pub stop: AtomicBool,
    /// Set while pondering: time limits do not apply yet.
    pub pondering: AtomicBool,
    /// Milliseconds after `start` at which the clock started (ponderhit).
    pub clock_start_ms: AtomicU64,
    /// When the search started.
    pub start: Instant,
    /// Nodes per thread.
    pub nodes: Vec<AtomicU64>,
}

impl Control {
    /// A control block for `threads` threads.
    pub fn new(threads: usize, pondering: bool) -> Control {
        Control {
            stop: AtomicBool::new(false),
            pondering: AtomicBool::new(pondering),
            clock_start_ms: AtomicU64::new(0),
            start: Instant::now(),
            nodes: (0..threads.max(1)).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// Milliseconds since the search started.
    pub fn elapsed_ms(&self) -> u64 {
        self.start.elapsed().as_millis() as u64
    }

    /// Nodes searched by all threads.
    pub fn total_nodes(&self) -> u64 {
        self.nodes.iter().map(|n| n.load(Relaxed)).sum()
    }

    /// Milliseconds on our clock (since `go`, or since `ponderhit`).
    fn clock_ms(&self) -> u64 {
        self.elapsed_ms()
            .saturating_sub(self.clock_start_ms.load(Relaxed))
    }
}

/// A move at the root with its latest score and line.
#[derive(Clone, Debug)]
pub struct RootMove {
    /// The move.
    pub mv: Move,
    /// Score of the current iteration (`-INFINITE` until searched).
    pub score: i32,
    /// Score of the previous iteration.
    pub prev_score: i32,
    /// Whether `score` is only a bound.
    pub bound: Bound,
    /// Principal variation starting with `mv`.
    pub pv: Vec<Move>,
    /// Deepest ply reached under it.
    pub seldepth: usize,
    /// Nodes this thread has spent under the move in this search.
    pub nodes: u64,
}

impl RootMove {
    fn display_score(&self) -> i32 {
        if self.score == -INFINITE {
            self.prev_score
        } else {
            self.score
        }
    }
}

#[derive(Copy, Clone, Default)]
struct Frame {
    killers: [Move; 2],
    eval: i32,
    /// The move played from this ply, and the piece index (colour*6+role) that moved.
    mv: Move,
    piece: usize,
}

/// Move-ordering statistics (butterfly, continuation and counter-move
/// histories) that a thread carries from one search to the next of the same
/// game; halved at the start of each search.
#[derive(Clone, Debug)]
pub struct Histories {
    history: Vec<i32>,
    /// Continuation history: (previous piece*64+to)*768 + piece*64+to.
    continuation: Vec<i32>,
    counter: Vec<Move>,
}

impl Default for Histories {
    fn default() -> Self {
        Histories {
            history: vec![0; 2 * 64 * 64],
            continuation: vec![0; 768 * 768],
            counter: vec![Move::NULL; 12 * 64],
        }
    }
}

/// `n` copies of `v`, or `None` if the memory cannot be had.
fn try_filled<T: Clone>(n: usize, v: T) -> Option<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).ok()?;
    out.resize(n, v);
    Some(out)
}

impl Histories {
    /// Fresh (zero) statistics, or `None` if the memory (about 2.4 MB)
    /// cannot be had.
    pub fn try_new() -> Option<Histories> {
        Some(Histories {
            history: try_filled(2 * 64 * 64, 0)?,
            continuation: try_filled(768 * 768, 0)?,
            counter: try_filled(12 * 64, Move::NULL)?,
        })
    }

    /// A placeholder that owns no memory (not usable for a search).
    pub(crate) fn unallocated() -> Histories {
        Histories {
            history: Vec::new(),
            continuation: Vec::new(),
            counter: Vec::new(),
        }
    }

    /// Whether these are real statistics, not [`Histories::unallocated`].
    pub(crate) fn is_allocated(&self) -> bool {
        !self.continuation.is_empty()
    }

    /// Halves every score, so that older searches count less.
    pub fn age(&mut self) {
        for h in self.history.iter_mut().chain(self.continuation.iter_mut()) {
            *h /= 2;
        }
    }
}

/// Per-thread search state.
pub struct Thread<'a> {
    id: usize,
    shared: &'a Shared,
    ctl: &'a Control,
    plan: &'a Plan,
    eval: &'a dyn Evaluator,
    nodes: u64,
    seldepth: usize,
    root_depth: i32,
    pv_idx: usize,
    keys: Vec<u64>,
    stack: Vec<Frame>,
    pv: Vec<[Move; MAX_PLY + 1]>,
    pv_len: [usize; MAX_PLY + 2],
    h: Histories,
    lmr: Vec<[i32; 64]>,
    /// The root moves, best first after each iteration.
    pub root_moves: Vec<RootMove>,
    /// The deepest completed iteration.
    pub completed_depth: i32,
    reporter: Option<&'a mut (dyn FnMut(Event) + Send)>,
    last_currline_ms: Option<u64>,
}

fn mate_in(ply: usize) -> i32 {
    MATE - ply as i32
}

fn mated_in(ply: usize) -> i32 {
    -MATE + ply as i32
}

/// Converts a score to table form (mate scores relative to this node).
fn to_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score + ply as i32
    } else if score <= -MATE_BOUND {
        score - ply as i32
    } else {
        score
    }
}

fn from_tt(score: i32, ply: usize) -> i32 {
    if score >= MATE_BOUND {
        score - ply as i32
    } else if score <= -MATE_BOUND {
        score + ply as i32
    } else {
        score
    }
}

/// Converts an internal score to what UCI shows.
pub fn uci_score(score: i32) -> Score {
    if score >= MATE_BOUND {
        Score::Mate((MATE - score + 1) / 2)
    } else if score <= -MATE_BOUND {
        Score::Mate(-(MATE + score) / 2)
    } else {
        Score::Cp(score)
    }
}

impl<'a> Thread<'a> {
    /// A thread searching `root` (whose ancestors' keys are `history`) for
    /// the moves `root_moves`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        id: usize,
        shared: &'a Shared,
        ctl: &'a Control,
        plan: &'a Plan,
        history: &[u64],
        root_moves: &[Move],
        reporter: Option<&'a mut (dyn FnMut(Event) + Send)>,
        histories: Histories,
    ) -> Thread<'a> {
        let mut lmr = vec![[0i32; 64]; 64];
        for (d, row) in lmr.iter_mut().enumerate().skip(1) {
            for (n, r) in row.iter_mut().enumerate().skip(1) {
                *r = (LMR_BASE + (d as f64).ln() * (n as f64).ln() / LMR_DIV) as i32;
            }
        }
        Thread {
            id,
            shared,
            ctl,
            plan,
            eval: shared.evaluator.as_ref(),
            nodes: 0,
            seldepth: 0,
            root_depth: 0,
            pv_idx: 0,
            keys: history.to_vec(),
            stack: vec![Frame::default(); MAX_PLY + 4],
            pv: vec![[Move::NULL; MAX_PLY + 1]; MAX_PLY + 2],
            pv_len: [0; MAX_PLY + 2],
            h: histories,
            lmr,
            root_moves: root_moves
                .iter()
                .map(|&mv| RootMove {
                    mv,
                    score: -INFINITE,
                    prev_score: -INFINITE,
                    bound: Bound::Exact,
                    pv: vec![mv],
                    seldepth: 0,
                    nodes: 0,
                })
                .collect(),
            completed_depth: 0,
            reporter,
            last_currline_ms: None,
        }
    }

    fn stopped(&self) -> bool {
        self.ctl.stop.load(Relaxed)
    }

    fn emit(&mut self, e: Event) {
        if let Some(r) = self.reporter.as_mut() {
            r(e);
        }
    }

    /// Counts a node; the main thread also watches the clock and node limit.
    fn count_node(&mut self, ply: usize) {
        self.nodes += 1;
        if ply > self.seldepth {
            self.seldepth = ply;
        }
        if self.nodes % TIME_CHECK_NODES == 0 {
            self.ctl.nodes[self.id].store(self.nodes, Relaxed);
            if self.id == 0 {
                self.check_limits(ply);
            }
        }
        if self.id == 0 {
            if let Some(limit) = self.plan.nodes {
                if self.nodes >= limit {
                    self.ctl.stop.store(true, Relaxed);
                }
            }
        }
    }

    fn check_limits(&mut self, ply: usize) {
        if let Some(b) = self.plan.budget {
            if !self.ctl.pondering.load(Relaxed) && self.ctl.clock_ms() >= b.hard {
                self.ctl.stop.store(true, Relaxed);
            }
        }
        if let Some(limit) = self.plan.nodes {
            if self.ctl.total_nodes() >= limit {
                self.ctl.stop.store(true, Relaxed);
            }
        }
        if self.plan.show_currline {
            let now = self.ctl.elapsed_ms();
            if self
                .last_currline_ms
                .is_none_or(|last| now >= last + CURRLINE_INTERVAL_MS)
            {
                self.last_currline_ms = Some(now);
                let line: Vec<Move> = self.stack[..ply].iter().map(|f| f.mv).collect();
                let cpu = (self.ctl.nodes.len() > 1).then_some(1);
                self.emit(Event::CurrLine { cpu, line });
            }
        }
    }

    fn is_repetition(&self, pos: &Position) -> bool {
        let key = pos.hash();
        let n = self.keys.len();
        let limit = (pos.halfmoves() as usize).min(n);
        let mut i = 2;
        while i <= limit {
            if self.keys[n - i] == key {
                return true;
            }
            i += 2;
        }
        false
    }

    /// Runs iterative deepening until a limit or `stop`.
    pub fn iterate(&mut self, root: &Position) {
        let multipv = self.plan.multipv.clamp(1, self.root_moves.len().max(1));
        let max_depth = self.plan.depth.clamp(1, MAX_DEPTH);
        let mut depth = 1;
        let mut trend = Trend {
            stable: 0,
            best: Move::NULL,
            scores: Vec::new(),
        };
        while depth <= max_depth {
            // Helpers skip ahead so that threads spread over depths.
            let search_depth = if self.id > 0 && depth > 1 {
                (depth + (self.id as i32 % 2)).min(MAX_DEPTH)
            } else {
                depth
            };
            for rm in &mut self.root_moves {
                rm.prev_score = rm.display_score();
                rm.score = -INFINITE;
            }
            for pv_idx in 0..multipv {
                self.pv_idx = pv_idx;
                self.seldepth = 0;
                self.aspiration(root, search_depth);
                sort_root(&mut self.root_moves[pv_idx..]);
                if self.stopped() {
                    break;
                }
                sort_root(&mut self.root_moves[..=pv_idx]);
            }
            if self.stopped() {
                // A partial iteration still counts if its best move was searched.
                if self.id == 0 && self.root_moves[0].score != -INFINITE {
                    self.report_pvs(search_depth, multipv, true);
                }
                break;
            }
            self.completed_depth = search_depth;
            if self.id == 0 {
                self.report_pvs(search_depth, multipv, false);
                if self.finish_iteration(search_depth, &mut trend) {
                    break;
                }
            }
            depth += 1;
        }
    }

    /// Decides after a completed iteration whether to stop (main thread only).
    fn finish_iteration(&mut self, depth: i32, trend: &mut Trend) -> bool {
        let best = &self.root_moves[0];
        if let Some(n) = self.plan.mate {
            if best.score >= MATE_BOUND && (MATE - best.score + 1) / 2 <= n as i32 {
                return true;
            }
            if depth >= 2 * n as i32 - 1 + 2 {
                return true;
            }
        }
        if best.mv == trend.best {
            trend.stable += 1;
        } else {
            trend.stable = 0;
            trend.best = best.mv;
        }
        trend.scores.push(best.score);
        if self.root_moves.len() == 1 && self.plan.budget.is_some() && depth >= SINGLE_MOVE_DEPTH {
            // One legal move: no need to think while the clock runs.
            return !self.ctl.pondering.load(Relaxed);
        }
        if let Some(b) = self.plan.budget.filter(|b| b.soft < b.hard) {
            if !self.ctl.pondering.load(Relaxed) {
                let soft = b
                    .soft
                    .saturating_mul(trend.scale_permille(best.nodes, self.nodes))
                    / PERMILLE;
                if self.ctl.clock_ms() >= soft.min(b.hard) {
                    return true;
                }
            }
        }
        false
    }

    fn aspiration(&mut self, root: &Position, depth: i32) {
        self.root_depth = depth;
        let prev = self.root_moves[self.pv_idx].prev_score;
        let use_window = depth >= ASPIRATION_MIN_DEPTH && prev.abs() < MATE_BOUND;
        let mut delta = ASPIRATION_DELTA;
        let (mut alpha, mut beta) = if use_window {
            ((prev - delta).max(-INFINITE), (prev + delta).min(INFINITE))
        } else {
            (-INFINITE, INFINITE)
        };
        loop {
            let score = self.search(root, depth, alpha, beta, 0);
            sort_root(&mut self.root_moves[self.pv_idx..]);
            if self.stopped() {
                return;
            }
            if score <= alpha {
                beta = (alpha + beta) / 2;
                alpha = (score - delta).max(-INFINITE);
                self.root_moves[self.pv_idx].bound = Bound::Upper;
            } else if score >= beta {
                beta = (score + delta).min(INFINITE);
                self.root_moves[self.pv_idx].bound = Bound::Lower;
            } else {
                self.root_moves[self.pv_idx].bound = Bound::Exact;
                return;
            }
            if self.id == 0 && self.ctl.elapsed_ms() > BOUND_REPORT_AFTER_MS {
                self.report_pvs(depth, self.pv_idx + 1, false);
            }
            delta += delta / ASPIRATION_GROWTH_DIV + ASPIRATION_GROWTH_ADD;
            if delta > ASPIRATION_MAX_DELTA {
                alpha = -INFINITE;
                beta = INFINITE;
            }
        }
    }

    fn report_pvs(&mut self, depth: i32, count: usize, partial: bool) {
        self.ctl.nodes[self.id].store(self.nodes, Relaxed);
        let nodes = self.ctl.total_nodes();
        let time = self.ctl.elapsed_ms();
        let hashfull = self.shared.tt.hashfull();
        for i in 0..count.min(self.root_moves.len()) {
            let rm = &self.root_moves[i];
            if partial && rm.score == -INFINITE {
                continue;
            }
            let bound = if i == self.pv_idx {
                rm.bound
            } else {
                Bound::Exact
            };
            let report = Report {
                depth: depth as u32,
                seldepth: rm.seldepth.max(1) as u32,
                multipv: i as u32 + 1,
                score: uci_score(rm.display_score()),
                bound,
                nodes,
                time_ms: time,
                nps: nodes * 1000 / time.max(1),
                hashfull,
                pv: rm.pv.clone(),
            };
            self.emit(Event::Report(report));
        }
    }

    /// Alpha-beta search of `pos` to `depth` plies; `ply` is the distance from the root.
    fn search(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        let pv_node = beta - alpha > 1;
        let root = ply == 0;
        self.pv_len[ply] = 0;
        if !root && self.is_repetition(pos) {
            return DRAW;
        }
        if depth <= 0 && !pos.is_check() {
            return self.qsearch(pos, alpha, beta, ply);
        }
        let depth = depth.max(1);
        self.count_node(ply);
        if !root {
            if self.stopped() {
                return 0;
            }
            if pos.is_fifty_moves() || pos.is_insufficient_material() {
                if pos.is_fifty_moves() && pos.is_checkmate() {
                    return mated_in(ply);
                }
                return DRAW;
            }
            if ply >= MAX_PLY {
                return self.eval.evaluate(pos);
            }
            // Mate-distance pruning.
            alpha = alpha.max(mated_in(ply));
            beta = beta.min(mate_in(ply + 1));
            if alpha >= beta {
                return alpha;
            }
        }

        let key = pos.hash();
        let tt = self.shared.tt.probe(key);
        let mut tt_move = tt.map_or(Move::NULL, |e| e.mv);
        if root {
            tt_move = self.root_moves[self.pv_idx].mv;
        }
        if let Some(e) = tt {
            if !pv_node && e.depth >= depth {
                let s = from_tt(e.score, ply);
                let cut = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        let in_check = pos.is_check();
        let static_eval = if in_check {
            -INFINITE
        } else if let Some(e) = tt {
            e.eval
        } else {
            self.eval.evaluate(pos)
        };
        self.stack[ply].eval = static_eval;
        let improving = !in_check
            && (ply < 2
                || self.stack[ply - 2].eval == -INFINITE
                || static_eval > self.stack[ply - 2].eval);
        self.stack[ply + 1].killers = [Move::NULL; 2];
        let sound = self.plan.mate.is_none();

        if !pv_node && !in_check && sound && !root {
            // Reverse futility pruning.
            if depth <= RFP_DEPTH
                && static_eval - RFP_MARGIN * (depth - i32::from(improving)) >= beta
                && static_eval.abs() < MATE_BOUND
            {
                return static_eval;
            }
            // Null-move pruning.
            if depth >= NMP_DEPTH
                && static_eval >= beta
                && !self.stack[ply - 1].mv.is_null()
                && pos.has_non_pawn_material(pos.turn())
                && beta.abs() < MATE_BOUND
            {
                let r =
                    NMP_BASE + depth / NMP_DEPTH_DIV + ((static_eval - beta) / NMP_EVAL_DIV).min(3);
                let mut child = pos.clone();
                child.play_unchecked(Move::NULL);
                self.stack[ply].mv = Move::NULL;
                self.keys.push(key);
                let score = -self.search(&child, depth - 1 - r, -beta, -beta + 1, ply + 1);
                self.keys.pop();
                if self.stopped() {
                    return 0;
                }
                if score >= beta {
                    return if score >= MATE_BOUND { beta } else { score };
                }
            }
        }

        let mut depth = depth;
        if tt_move.is_null() && depth >= IIR_DEPTH && sound {
            depth -= 1;
        }

        let moves: MoveList = if root {
            let mut l = MoveList::new();
            for rm in &self.root_moves[self.pv_idx..] {
                l.push(rm.mv);
            }
            l
        } else {
            pos.legal_moves()
        };
        if moves.is_empty() {
            return if in_check { mated_in(ply) } else { DRAW };
        }
        let (prev_piece, prev_to) = if ply > 0 {
            let f = self.stack[ply - 1];
            (f.piece, f.mv.to().index())
        } else {
            (0, 0)
        };
        let counter = if ply > 0 && !self.stack[ply - 1].mv.is_null() {
            self.h.counter[prev_piece * 64 + prev_to]
        } else {
            Move::NULL
        };
        let us = pos.turn().index();
        let hist_base = us * 4096;
        let cont_base = [self.cont_base(ply, 1), self.cont_base(ply, 2)];
        let mut picker = {
            let hints = self.hints(tt_move, ply, counter, hist_base, cont_base);
            Picker::new(pos, moves, &hints)
        };

        let mut best_score = -INFINITE;
        let mut best_move = Move::NULL;
        let mut searched = 0usize;
        let mut quiets_tried = [Move::NULL; MAX_QUIETS_TRIED];
        let mut n_quiets = 0usize;
        let original_alpha = alpha;

        while let Some((m, order)) = picker.pick() {
            let quiet = m.is_quiet_in(pos);
            let mut child = pos.clone();
            child.play_unchecked(m);
            let gives_check = child.is_check();
            if !root && sound && best_score > -MATE_BOUND && searched > 0 && !gives_check {
                if quiet && !in_check {
                    let lmp_limit = (LMP_BASE + depth * depth) / if improving { 1 } else { 2 };
                    if depth <= LMP_DEPTH && searched as i32 >= lmp_limit.max(1) {
                        continue;
                    }
                    if !pv_node
                        && depth <= FP_DEPTH
                        && static_eval + FP_BASE + FP_MARGIN * depth <= alpha
                    {
                        continue;
                    }
                    if depth <= SEE_DEPTH && !see_ge(pos, m, SEE_QUIET_MARGIN * depth) {
                        continue;
                    }
                } else if !quiet
                    && depth <= SEE_DEPTH
                    && Picker::is_bad_noisy(order)
                    && !see_ge(pos, m, SEE_NOISY_MARGIN * depth)
                {
                    continue;
                }
            }

            let nodes_before = self.nodes;
            if root && self.id == 0 && self.ctl.elapsed_ms() > CURRMOVE_AFTER_MS {
                self.emit(Event::CurrMove {
                    mv: m,
                    number: (self.pv_idx + searched + 1) as u32,
                    depth: self.root_depth as u32,
                });
            }

            self.stack[ply].mv = m;
            self.stack[ply].piece = piece_index(pos, m);
            let extension = i32::from(gives_check && (ply as i32) < 2 * self.root_depth);
            let new_depth = depth - 1 + extension;
            self.keys.push(key);

            let mut score;
            if searched == 0 {
                score = -self.search(&child, new_depth, -beta, -alpha, ply + 1);
            } else {
                let mut r = 0;
                if depth >= LMR_DEPTH && searched >= LMR_MOVES + usize::from(pv_node) && sound {
                    if quiet {
                        r = self.lmr[depth.min(63) as usize][searched.min(63)];
                        r += i32::from(!improving);
                        r -= i32::from(pv_node);
                        r -= i32::from(gives_check);
                        let hints = self.hints(tt_move, ply, counter, hist_base, cont_base);
                        r -= hints.quiet_score(piece_index(pos, m), m) / LMR_HISTORY_DIV;
                    } else if Picker::is_bad_noisy(order) {
                        r = 1;
                    }
                    r = r.clamp(0, new_depth - 1);
                }
                score = -self.search(&child, new_depth - r, -alpha - 1, -alpha, ply + 1);
                if score > alpha && r > 0 {
                    score = -self.search(&child, new_depth, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta {
                    score = -self.search(&child, new_depth, -beta, -alpha, ply + 1);
                }
            }
            self.keys.pop();
            searched += 1;
            if self.stopped() {
                return 0;
            }

            if root {
                let refute = self.plan.show_refutations && self.id == 0;
                let child_pv: Vec<Move> = self.pv[ply + 1][..self.pv_len[ply + 1]].to_vec();
                let seldepth = self.seldepth;
                let spent = self.nodes - nodes_before;
                if let Some(rm) = self.root_moves.iter_mut().find(|rm| rm.mv == m) {
                    rm.nodes += spent;
                    if searched == 1 || score > alpha {
                        rm.score = score;
                        rm.seldepth = seldepth;
                        rm.pv = std::iter::once(m).chain(child_pv.iter().copied()).collect();
                    } else {
                        rm.score = -INFINITE;
                    }
                }
                if refute {
                    let line = std::iter::once(m)
                        .chain(child_pv.into_iter().take(1))
                        .collect();
                    self.emit(Event::Refutation { line });
                }
            }

            if score > best_score {
                best_score = score;
                if score > alpha {
                    best_move = m;
                    alpha = score;
                    self.update_pv(ply, m);
                    if score >= beta {
                        if quiet {
                            self.update_quiet_stats(
                                pos,
                                ply,
                                m,
                                depth,
                                &quiets_tried[..n_quiets],
                                cont_base,
                            );
                        }
                        break;
                    }
                }
            }
            if quiet && m != best_move && n_quiets < MAX_QUIETS_TRIED {
                quiets_tried[n_quiets] = m;
                n_quiets += 1;
            }
        }

        if searched == 0 {
            // Every move was pruned (cannot happen at the root or in check).
            return alpha;
        }
        let bound = if best_score >= beta {
            Bound::Lower
        } else if alpha > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if !root || self.pv_idx == 0 {
            self.shared.tt.store(
                key,
                Entry {
                    mv: best_move,
                    score: to_tt(best_score, ply),
                    eval: if in_check { 0 } else { static_eval },
                    depth,
                    bound,
                },
            );
        }
        best_score
    }

    /// Where the continuation history after the move `back` plies before
    /// `ply` starts, if there was such a move.
    fn cont_base(&self, ply: usize, back: usize) -> Option<usize> {
        if ply < back {
            return None;
        }
        let f = self.stack[ply - back];
        (!f.mv.is_null()).then(|| (f.piece * 64 + f.mv.to().index()) * 768)
    }

    fn hints(
        &self,
        tt: Move,
        ply: usize,
        counter: Move,
        hist_base: usize,
        cont_base: [Option<usize>; 2],
    ) -> Hints<'_> {
        Hints {
            tt,
            killers: self.stack[ply].killers,
            counter,
            history: &self.h.history[hist_base..hist_base + 4096],
            continuation: cont_base.map(|b| b.map(|b| &self.h.continuation[b..b + 768])),
        }
    }

    fn update_quiet_stats(
        &mut self,
        pos: &Position,
        ply: usize,
        m: Move,
        depth: i32,
        tried: &[Move],
        cont_base: [Option<usize>; 2],
    ) {
        let f = &mut self.stack[ply];
        if f.killers[0] != m {
            f.killers[1] = f.killers[0];
            f.killers[0] = m;
        }
        if ply > 0 && !self.stack[ply - 1].mv.is_null() {
            let p = self.stack[ply - 1];
            self.h.counter[p.piece * 64 + p.mv.to().index()] = m;
        }
        let base = pos.turn().index() * 4096;
        let bonus = (depth * depth * 16).min(HISTORY_BONUS_MAX);
        let butterfly = |mv: Move| base + mv.from().index() * 64 + mv.to().index();
        gravity(&mut self.h.history[butterfly(m)], bonus);
        for &q in tried {
            gravity(&mut self.h.history[butterfly(q)], -bonus);
        }
        let pc = |mv: Move| piece_index(pos, mv) * 64 + mv.to().index();
        for b in cont_base.into_iter().flatten() {
            gravity(&mut self.h.continuation[b + pc(m)], bonus);
            for &q in tried {
                gravity(&mut self.h.continuation[b + pc(q)], -bonus);
            }
        }
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.count_node(ply);
        self.pv_len[ply] = 0;
        if self.stopped() {
            return 0;
        }
        if pos.is_fifty_moves() || pos.is_insufficient_material() {
            return DRAW;
        }
        if ply >= MAX_PLY {
            return self.eval.evaluate(pos);
        }
        let in_check = pos.is_check();
        let key = pos.hash();
        let tt = self.shared.tt.probe(key);
        if let Some(e) = tt {
            let s = from_tt(e.score, ply);
            let cut = match e.bound {
                Bound::Exact => true,
                Bound::Lower => s >= beta,
                Bound::Upper => s <= alpha,
            };
            if cut && beta - alpha == 1 {
                return s;
            }
        }
        let QsNode {
            stand_pat,
            mut best,
            mut picker,
        } = match QsNode::begin(pos, in_check, &mut alpha, beta, ply, || {
            tt.map_or_else(|| self.eval.evaluate(pos), |e| e.eval)
        }) {
            Ok(node) => node,
            Err(score) => return score,
        };
        while let Some((m, _)) = picker.pick() {
            if !in_check && qs_prunes(pos, m, stand_pat, alpha) {
                continue;
            }
            let mut child = pos.clone();
            child.play_unchecked(m);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if self.stopped() {
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    // The line goes on through the captures and evasions
                    // searched here: a mate found in them is reported with
                    // the moves that give it.
                    self.update_pv(ply, m);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        best
    }

    /// `m`, then the line of the node after it, as the line at `ply`.
    fn update_pv(&mut self, ply: usize, m: Move) {
        let n = self.pv_len[ply + 1].min(MAX_PLY - 1);
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply][0] = m;
        head[ply][1..=n].copy_from_slice(&tail[0][..n]);
        self.pv_len[ply] = n + 1;
    }

    /// The thread's move-ordering statistics, to carry into the next search.
    pub fn into_histories(self) -> Histories {
        self.h
    }

    /// Nodes searched by this thread.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Publishes this thread's final node count.
    pub fn flush_nodes(&self) {
        self.ctl.nodes[self.id].store(self.nodes, Relaxed);
    }
}

/// Moves a history score toward the bonus's sign, the more slowly the closer
/// it already is to `HISTORY_MAX` in that direction.
#[inline]
fn gravity(h: &mut i32, bonus: i32) {
    *h += bonus - *h * bonus.abs() / HISTORY_MAX;
}

/// What the main thread remembers between iterations to decide when to stop.
struct Trend {
    /// Iterations in a row that kept the best move.
    stable: i32,
    /// The best move of the last iteration.
    best: Move,
    /// The best score of each completed iteration.
    scores: Vec<i32>,
}

impl Trend {
    /// How much of the soft time limit to use, in per mille, from three signs
    /// that more thought pays: the best move keeps changing, the score is
    /// falling, and the best move's subtree took a small share of the nodes
    /// (its rivals were hard to refute).
    fn scale_permille(&self, best_nodes: u64, total_nodes: u64) -> u64 {
        let stability: u64 = match self.stable {
            0 => TM_UNSTABLE_PERMILLE[0],
            1 => TM_UNSTABLE_PERMILLE[1],
            2..=3 => TM_UNSTABLE_PERMILLE[2],
            _ => TM_UNSTABLE_PERMILLE[3],
        };
        // Score falling against the iteration before last and the one before
        // that (the last one alone swings with odd and even depths).
        let now = self.scores.last().copied().unwrap_or(0);
        let drop = self
            .scores
            .iter()
            .rev()
            .skip(2)
            .take(2)
            .map(|&s| s - now)
            .max()
            .unwrap_or(0)
            .clamp(0, TM_DROP_MAX_CP) as u64;
        let falling = PERMILLE + drop * TM_DROP_PERMILLE_PER_CP;
        let share = (best_nodes * PERMILLE)
            .checked_div(total_nodes)
            .unwrap_or(TM_SHARE_UNKNOWN_PERMILLE)
            .min(PERMILLE);
        let effort = TM_EFFORT_BASE_PERMILLE - share;
        stability * falling / PERMILLE * effort / PERMILLE
    }
}

fn sort_root(moves: &mut [RootMove]) {
    moves.sort_by_key(|m| std::cmp::Reverse(m.score));
}

/// The quiet position a quiescence search of `pos` settles on: the leaf of
/// its principal variation (captures and promotions that pass the same delta
/// and SEE tests as the search's own quiescence, all evasions in check), and
/// the score of `pos` for the side to move. `None` when the leaf is in check
/// (mate, or a check the search does not resolve), which has no static score.
///
/// The Texel tuner labels these leaves with game results, so it fits the
/// evaluation on the positions the search actually evaluates.
pub fn quiet_leaf(pos: &Position, eval: &dyn Evaluator) -> Option<(Position, i32)> {
    let mut line = Vec::new();
    let score = leaf_search(pos, eval, -INFINITE, INFINITE, 0, &mut line);
    let mut leaf = pos.clone();
    for m in line {
        leaf.play_unchecked(m);
    }
    (!leaf.is_check()).then_some((leaf, score))
}

/// The start of a quiescence node, shared by the search and [`quiet_leaf`]:
/// the stand-pat score (`-INFINITE` in check), the best score so far, and the
/// moves to try (all evasions in check, else captures and promotions).
struct QsNode {
    stand_pat: i32,
    best: i32,
    picker: Picker,
}

impl QsNode {
    /// Stands pat (raising `alpha`) unless in check; `Err` holds the score
    /// when the node ends here: a stand-pat cutoff or checkmate. Always
    /// inlined, so that the move list is built in its caller's frame rather
    /// than copied out.
    #[inline(always)]
    fn begin(
        pos: &Position,
        in_check: bool,
        alpha: &mut i32,
        beta: i32,
        ply: usize,
        static_eval: impl FnOnce() -> i32,
    ) -> Result<QsNode, i32> {
        let (stand_pat, moves) = if in_check {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                return Err(mated_in(ply));
            }
            (-INFINITE, moves)
        } else {
            let e = static_eval();
            if e >= beta {
                return Err(e);
            }
            *alpha = (*alpha).max(e);
            (e, pos.noisy_moves())
        };
        Ok(QsNode {
            stand_pat,
            best: stand_pat,
            picker: Picker::noisy(pos, moves),
        })
    }
}

/// Quiescence pruning of a noisy move when not in check: delta pruning (even
/// winning the captured piece cannot reach `alpha`) or a losing exchange.
/// Shared by the search and [`quiet_leaf`], so the two cannot drift apart.
#[inline]
fn qs_prunes(pos: &Position, m: Move, stand_pat: i32, alpha: i32) -> bool {
    let gain = pos.captured_role(m).map_or(0, |r| SEE_VALUE[r.index()])
        + m.promotion().map_or(0, |r| SEE_VALUE[r.index()] - 100);
    stand_pat + gain + QS_DELTA <= alpha || !see_ge(pos, m, 0)
}

fn leaf_search(
    pos: &Position,
    eval: &dyn Evaluator,
    mut alpha: i32,
    beta: i32,
    ply: usize,
    line: &mut Vec<Move>,
) -> i32 {
    line.clear();
    let in_check = pos.is_check();
    if ply >= MAX_PLY || pos.is_fifty_moves() || pos.is_insufficient_material() {
        return eval.evaluate(pos);
    }
    let QsNode {
        stand_pat,
        mut best,
        mut picker,
    } = match QsNode::begin(pos, in_check, &mut alpha, beta, ply, || eval.evaluate(pos)) {
        Ok(node) => node,
        Err(score) => return score,
    };
    let mut child_line = Vec::new();
    while let Some((m, _)) = picker.pick() {
        if !in_check && qs_prunes(pos, m, stand_pat, alpha) {
            continue;
        }
        let mut child = pos.clone();
        child.play_unchecked(m);
        let score = -leaf_search(&child, eval, -beta, -alpha, ply + 1, &mut child_line);
        if score > best {
            best = score;
            if score > alpha {
                alpha = score;
                line.clear();
                line.push(m);
                line.extend_from_slice(&child_line);
                if score >= beta {
                    break;
                }
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Classical;

    fn fen(s: &str) -> Position {
        Position::from_fen(s).expect("test FEN")
    }

    #[test]
    fn quiet_leaf_takes_the_hanging_queen() {
        let e = Classical::default();
        let pos = fen("4k3/8/8/3q4/8/8/3R4/4K3 w - - 0 1");
        let (leaf, score) = quiet_leaf(&pos, &e).expect("quiet leaf");
        assert_eq!(leaf.fen(), "4k3/8/8/3R4/8/8/8/4K3 b - - 0 1");
        assert_eq!(score, -e.evaluate(&leaf));
    }

    #[test]
    fn quiet_leaf_of_a_quiet_position_is_itself() {
        let e = Classical::default();
        let pos = fen("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3");
        let (leaf, score) = quiet_leaf(&pos, &e).expect("quiet leaf");
        assert_eq!(leaf.fen(), pos.fen());
        assert_eq!(score, e.evaluate(&pos));
    }

    #[test]
    fn quiet_leaf_skips_a_losing_capture() {
        // Qxd5 wins a pawn but loses the queen to exd5: the leaf is the root.
        let e = Classical::default();
        let pos = fen("4k3/8/4p3/3p4/8/8/8/3QK3 w - - 0 1");
        let (leaf, _) = quiet_leaf(&pos, &e).expect("quiet leaf");
        assert_eq!(leaf.fen(), pos.fen());
    }

    #[test]
    fn quiet_leaf_of_mate_is_none() {
        let e = Classical::default();
        let pos = fen("R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
        assert!(quiet_leaf(&pos, &e).is_none());
    }

    #[test]
    fn time_scale_follows_stability_score_and_effort() {
        let trend = |stable, scores: &[i32]| Trend {
            stable,
            best: Move::NULL,
            scores: scores.to_vec(),
        };
        let calm = trend(6, &[30, 32, 31, 30]);
        let unsure = trend(0, &[30, 32, 31, 30]);
        let falling = trend(6, &[30, 32, 31, -40]);
        // A best move that took 90% of the nodes ends the search soonest.
        let easy = calm.scale_permille(900, 1000);
        assert!(easy < 1000, "{easy}");
        assert!(calm.scale_permille(300, 1000) > easy);
        assert!(unsure.scale_permille(900, 1000) > easy);
        assert!(falling.scale_permille(900, 1000) > easy);
        // Mate scores and empty counts stay in range.
        let mated = trend(0, &[MATE - 5, MATE - 5, -MATE + 5]);
        assert!(mated.scale_permille(0, 0) <= 1300 * 1500 / 1000 * 1600 / 1000);
        assert!(trend(0, &[]).scale_permille(0, 0) > 0);
    }
}
