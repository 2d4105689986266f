//! Every search constant in one place.

/// Deepest ply the search reaches (stack size, PV length).
pub const MAX_PLY: usize = 128;
/// Deepest iteration of iterative deepening.
pub const MAX_DEPTH: i32 = 100;

/// The score of being mated now (the mating side sees `MATE - ply`).
pub const MATE: i32 = 32_000;
/// Scores beyond this (in absolute value) are mate scores.
pub const MATE_BOUND: i32 = MATE - MAX_PLY as i32 - 1;
/// Larger than any score.
pub const INFINITE: i32 = 32_001;
/// The score of a draw.
pub const DRAW: i32 = 0;

/// Aspiration: first half-window in centipawns, and the depth it starts at.
pub const ASPIRATION_DELTA: i32 = 20;
/// Depth from which aspiration windows are used.
pub const ASPIRATION_MIN_DEPTH: i32 = 5;
/// After a fail, the half-window grows by itself divided by this ...
pub const ASPIRATION_GROWTH_DIV: i32 = 2;
/// ... plus this many centipawns.
pub const ASPIRATION_GROWTH_ADD: i32 = 5;
/// A half-window wider than this (centipawns) gives way to a full window.
pub const ASPIRATION_MAX_DELTA: i32 = 1000;

/// Reverse futility: deepest depth and margin per ply.
pub const RFP_DEPTH: i32 = 8;
/// Reverse futility margin per ply of depth.
pub const RFP_MARGIN: i32 = 75;

/// Null move: least depth, base reduction, depth divisor, eval divisor.
pub const NMP_DEPTH: i32 = 3;
/// Null-move base reduction.
pub const NMP_BASE: i32 = 3;
/// Null-move extra reduction per this many plies of depth.
pub const NMP_DEPTH_DIV: i32 = 4;
/// Null-move extra reduction per this many centipawns above beta.
pub const NMP_EVAL_DIV: i32 = 200;

/// Futility pruning of quiet moves: deepest depth, base and per-ply margins.
pub const FP_DEPTH: i32 = 6;
/// Futility base margin.
pub const FP_BASE: i32 = 90;
/// Futility margin per ply.
pub const FP_MARGIN: i32 = 90;

/// Late-move pruning: deepest depth.
pub const LMP_DEPTH: i32 = 6;
/// Late-move pruning: quiet moves allowed = LMP_BASE + depth² (halved when not improving).
pub const LMP_BASE: i32 = 3;

/// SEE pruning in the main search: deepest depth and margins per ply.
pub const SEE_DEPTH: i32 = 6;
/// SEE threshold per ply for quiet moves.
pub const SEE_QUIET_MARGIN: i32 = -60;
/// SEE threshold per ply for captures.
pub const SEE_NOISY_MARGIN: i32 = -100;

/// Late-move reductions: least depth, moves tried before reducing, formula constants.
pub const LMR_DEPTH: i32 = 3;
/// Moves searched at full depth before reductions start.
pub const LMR_MOVES: usize = 2;
/// LMR base (x100).
pub const LMR_BASE: f64 = 0.75;
/// LMR divisor.
pub const LMR_DIV: f64 = 2.25;
/// History score worth one ply of reduction.
pub const LMR_HISTORY_DIV: i32 = 8_000;

/// Internal iterative reduction: least depth.
pub const IIR_DEPTH: i32 = 4;

/// History bonus cap and gravity divisor.
pub const HISTORY_MAX: i32 = 16_384;
/// Largest history bonus per update.
pub const HISTORY_BONUS_MAX: i32 = 1_600;

/// Quiet moves remembered per node for the history malus.
pub const MAX_QUIETS_TRIED: usize = 64;

/// Quiescence: delta-pruning margin.
pub const QS_DELTA: i32 = 200;

/// Piece values used by SEE and MVV-LVA (pawn, knight, bishop, rook, queen, king).
pub const SEE_VALUE: [i32; 6] = [100, 320, 330, 500, 950, 0];

/// How often (in nodes) the main thread looks at the clock.
pub const TIME_CHECK_NODES: u64 = 1024;

/// Time management: moves assumed left when the GUI does not say.
pub const MOVES_TO_GO_DEFAULT: i64 = 32;
/// Soft limit never exceeds this share (per mille) of the remaining time.
pub const SOFT_MAX_PERMILLE: i64 = 350;
/// Hard limit never exceeds this share (per mille) of the remaining time.
pub const HARD_MAX_PERMILLE: i64 = 700;
/// Hard limit is at most this multiple of the soft limit.
pub const HARD_FACTOR: i64 = 4;
/// Safety margin kept on the clock, in milliseconds, besides Move Overhead.
pub const CLOCK_SAFETY_MS: i64 = 5;
/// Time management: the increment is spent only while the clock holds more
/// than this many increments.
pub const INC_RESERVE: i64 = 10;
/// Time management: on the last move before the time control (movestogo
/// 1), the soft limit's share (per mille) of the remaining time ...
pub const LAST_MOVE_SOFT_PERMILLE: i64 = 600;
/// ... and the hard limit's.
pub const LAST_MOVE_HARD_PERMILLE: i64 = 850;
/// Time management: the share (per mille) of the increment spent on a move
/// while the clock holds its reserve (see [`INC_RESERVE`]).
pub const INC_SPEND_PERMILLE: i64 = 750;

/// One whole in per mille (the unit of the time-scaling factors below).
pub const PERMILLE: u64 = 1000;
/// Soft-limit scaling by best-move stability, per mille: the best move
/// changed in the last iteration, one iteration ago, two or three ago, or
/// has held longer.
pub const TM_UNSTABLE_PERMILLE: [u64; 4] = [1300, 1100, 900, 750];
/// Soft-limit scaling by a falling score: the largest drop counted, in centipawns ...
pub const TM_DROP_MAX_CP: i32 = 100;
/// ... each centipawn of it adding this much (per mille) to the soft limit.
pub const TM_DROP_PERMILLE_PER_CP: u64 = 5;
/// Soft-limit scaling by effort: this (per mille) less the best move's share
/// of the nodes ...
pub const TM_EFFORT_BASE_PERMILLE: u64 = 1600;
/// ... the share taken when no nodes were counted.
pub const TM_SHARE_UNKNOWN_PERMILLE: u64 = 500;
/// With one legal move and a clock, the search stops once this depth is done.
pub const SINGLE_MOVE_DEPTH: i32 = 4;

/// Reports: milliseconds into a search before aspiration bounds are reported ...
pub const BOUND_REPORT_AFTER_MS: u64 = 1000;
/// ... before `currmove` is reported ...
pub const CURRMOVE_AFTER_MS: u64 = 2000;
/// ... and between two `currline` reports.
pub const CURRLINE_INTERVAL_MS: u64 = 500;
