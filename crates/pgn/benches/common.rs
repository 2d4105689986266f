//! Visitors shared by the parse benchmark and the speed example: each one
//! parses, resolves every mainline SAN and plays it (variations skipped),
//! starting from the FEN tag when there is one.

#![allow(dead_code, missing_docs)]

use std::ops::ControlFlow;

/// rookery: parse + SAN + play.
pub struct RookeryPlayer {
    pub pos: rookery_core::Position,
    pub fen: Option<String>,
    pub plies: u64,
    pub errors: u64,
    dead: bool,
}

impl Default for RookeryPlayer {
    fn default() -> Self {
        Self::new()
    }
}

impl RookeryPlayer {
    pub fn new() -> Self {
        RookeryPlayer {
            pos: rookery_core::Position::startpos(),
            fen: None,
            plies: 0,
            errors: 0,
            dead: false,
        }
    }
}

impl rookery_pgn::Visitor for RookeryPlayer {
    type Output = ();
    fn begin_game(&mut self, _at: rookery_pgn::Location) {
        self.fen = None;
        self.dead = false;
    }
    fn tag(&mut self, name: &[u8], value: rookery_pgn::RawTag<'_>) {
        if name == b"FEN" {
            self.fen = Some(value.decode());
        }
    }
    fn end_tags(&mut self) -> rookery_pgn::Skip {
        self.pos = match self.fen.take() {
            None => rookery_core::Position::startpos(),
            Some(f) => match rookery_core::Position::from_fen_lenient(&f) {
                Ok((p, _)) => p,
                Err(_) => {
                    self.errors += 1;
                    return rookery_pgn::Skip(true);
                }
            },
        };
        rookery_pgn::Skip(false)
    }
    fn san(&mut self, san: rookery_core::SanPlus, _token: &[u8], _at: rookery_pgn::Location) {
        if self.dead {
            return;
        }
        match san.san.to_move(&self.pos) {
            Ok(m) => {
                self.pos.play_unchecked(m);
                self.plies += 1;
            }
            Err(_) => {
                self.errors += 1;
                self.dead = true;
            }
        }
    }
    fn begin_variation(&mut self) -> rookery_pgn::Skip {
        rookery_pgn::Skip(true)
    }
    fn end_game(&mut self) {}
}

/// The position of a FEN tag, by shakmaty (castling read as Chess960,
/// which takes standard castling too).
fn fen_position(value: pgn_reader::RawTag<'_>) -> Option<shakmaty::Chess> {
    shakmaty::fen::Fen::from_ascii(value.as_bytes())
        .ok()
        .and_then(|f| f.into_position(shakmaty::CastlingMode::Chess960).ok())
}

/// pgn-reader with shakmaty: parse + SAN + play.
pub struct ShakmatyPlayer {
    pub plies: u64,
    pub errors: u64,
}

impl pgn_reader::Visitor for ShakmatyPlayer {
    type Tags = Option<shakmaty::Chess>;
    type Movetext = Option<shakmaty::Chess>;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue(None)
    }
    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<()> {
        if name == b"FEN" {
            match fen_position(value) {
                Some(p) => *tags = Some(p),
                None => self.errors += 1,
            }
        }
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Self::Movetext> {
        ControlFlow::Continue(Some(tags.unwrap_or_default()))
    }
    fn san(&mut self, pos: &mut Self::Movetext, san: pgn_reader::SanPlus) -> ControlFlow<()> {
        use shakmaty::Position as _;
        if let Some(p) = pos {
            match san.san.to_move(p) {
                Ok(m) => {
                    p.play_unchecked(m);
                    self.plies += 1;
                }
                Err(_) => {
                    self.errors += 1;
                    *pos = None;
                }
            }
        }
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _m: &mut Self::Movetext) -> ControlFlow<(), pgn_reader::Skip> {
        ControlFlow::Continue(pgn_reader::Skip(true))
    }
    fn end_game(&mut self, _m: Self::Movetext) {}
}

/// pgn-reader with shakmaty writing what `rookery pgn to-epd` writes: one
/// EPD record a mainline position (`fmvn`, `hmvc`, `id` from the tags, game
/// index and ply, `sm` the move played from it in SAN), a game with an
/// illegal move left out. The peer of `to-epd` in whole-process timings.
pub struct ShakmatyEpdWriter<W> {
    pub out: W,
    pub games: u64,
    pub lines: u64,
    pub errors: u64,
}

/// What a game's tags give [`ShakmatyEpdWriter`].
#[derive(Default)]
pub struct EpdTags {
    pos: Option<shakmaty::Chess>,
    /// White, Black, Event, Date.
    named: [Option<String>; 4],
    bad_fen: bool,
}

/// A game being written by [`ShakmatyEpdWriter`].
pub struct EpdGame {
    pos: shakmaty::Chess,
    /// `; id "` and the id up to the ply number.
    id_open: String,
    ply: u64,
    lines: Vec<u8>,
    dead: bool,
}

impl EpdGame {
    /// The record of the current position, with `sm` when a move is given.
    fn record(&mut self, m: Option<shakmaty::Move>) {
        use shakmaty::Position as _;
        shakmaty::fen::Epd::from_position(&self.pos, shakmaty::EnPassantMode::Legal)
            .append_ascii_to(&mut self.lines);
        use std::io::Write as _;
        let (fmvn, hmvc) = (self.pos.fullmoves(), self.pos.halfmoves());
        // Writing to a Vec cannot fail.
        let _ = write!(self.lines, " fmvn {fmvn}; hmvc {hmvc}");
        self.lines.extend_from_slice(self.id_open.as_bytes());
        let _ = write!(self.lines, "{}\";", self.ply);
        if let Some(m) = m {
            self.lines.extend_from_slice(b" sm ");
            shakmaty::san::SanPlus::from_move_and_play_unchecked(&mut self.pos, m)
                .append_ascii_to(&mut self.lines);
            self.lines.push(b';');
            self.ply += 1;
        }
        self.lines.push(b'\n');
    }
}

/// `s` as an EPD string, quoted and escaped.
fn epd_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

impl<W: std::io::Write> pgn_reader::Visitor for ShakmatyEpdWriter<W> {
    type Tags = EpdTags;
    type Movetext = EpdGame;
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<(), Self::Tags> {
        ControlFlow::Continue(EpdTags::default())
    }
    fn tag(
        &mut self,
        tags: &mut Self::Tags,
        name: &[u8],
        value: pgn_reader::RawTag<'_>,
    ) -> ControlFlow<()> {
        let slot = match name {
            b"White" => 0,
            b"Black" => 1,
            b"Event" => 2,
            b"Date" => 3,
            b"FEN" => {
                let pos = fen_position(value);
                tags.bad_fen = pos.is_none();
                tags.pos = pos;
                return ControlFlow::Continue(());
            }
            _ => return ControlFlow::Continue(()),
        };
        tags.named[slot] = Some(value.decode_utf8_lossy().into_owned());
        ControlFlow::Continue(())
    }
    fn begin_movetext(&mut self, tags: Self::Tags) -> ControlFlow<(), Self::Movetext> {
        let known = |i: usize| {
            tags.named[i]
                .as_deref()
                .filter(|v| !v.is_empty() && !v.starts_with('?'))
        };
        let mut prefix = String::new();
        if let (Some(w), Some(b)) = (known(0), known(1)) {
            prefix.push_str(&format!("{w} - {b}, "));
        }
        for i in [2, 3] {
            if let Some(v) = known(i) {
                prefix.push_str(&format!("{v}, "));
            }
        }
        prefix.push_str(&format!("game {}, ply ", self.games + 1));
        let mut id_open = String::from("; id ");
        epd_string(&mut id_open, &prefix);
        id_open.pop();
        ControlFlow::Continue(EpdGame {
            pos: tags.pos.unwrap_or_default(),
            id_open,
            ply: 0,
            lines: Vec::new(),
            dead: tags.bad_fen,
        })
    }
    fn san(&mut self, game: &mut Self::Movetext, san: pgn_reader::SanPlus) -> ControlFlow<()> {
        if !game.dead {
            match san.san.to_move(&game.pos) {
                Ok(m) => game.record(Some(m)),
                Err(_) => game.dead = true,
            }
        }
        ControlFlow::Continue(())
    }
    fn begin_variation(&mut self, _m: &mut Self::Movetext) -> ControlFlow<(), pgn_reader::Skip> {
        ControlFlow::Continue(pgn_reader::Skip(true))
    }
    fn end_game(&mut self, mut game: Self::Movetext) {
        self.games += 1;
        if game.dead {
            self.errors += 1;
            return;
        }
        game.record(None);
        self.lines += game.ply + 1;
        // A failed write shows as missing output; the timing run checks it.
        let _ = self.out.write_all(&game.lines);
    }
}

/// One of the `run_*` functions: reads the bytes, returns (games, plies or
/// lines, errors).
pub type Runner = fn(&[u8]) -> (u64, u64, u64);

/// The corpora: the shared throughput files when present, else the test data.
pub fn corpora() -> Vec<(String, Vec<u8>)> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for name in ["twic0920.pgn", "tcec-superfinals-s6-s18.pgn"] {
        let p = root.join("../../../shared/data/pgn").join(name);
        if let Ok(bytes) = std::fs::read(&p) {
            out.push((name.to_owned(), bytes));
        }
    }
    if out.is_empty() {
        let mut all = Vec::new();
        let mut names: Vec<_> = std::fs::read_dir(root.join("tests/data"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "pgn"))
            .collect();
        names.sort();
        for p in names {
            all.extend(std::fs::read(p).unwrap_or_default());
            all.extend_from_slice(b"\n\n");
        }
        out.push(("tests/data (all files)".to_owned(), all));
    }
    out
}

/// Runs rookery's player over `bytes`: (games, plies, errors).
pub fn run_rookery(bytes: &[u8]) -> (u64, u64, u64) {
    let mut r = rookery_pgn::Reader::new(bytes);
    let mut v = RookeryPlayer::new();
    let mut games = 0;
    while let Ok(Some(())) = r.read_game(&mut v) {
        games += 1;
    }
    (games, v.plies, v.errors)
}

/// Runs rookery's full game-tree builder over `bytes`: (games, mainline plies, errors).
pub fn run_rookery_tree(bytes: &[u8]) -> (u64, u64, u64) {
    let (mut games, mut plies, mut errors) = (0, 0, 0);
    for g in rookery_pgn::Games::new(bytes).flatten() {
        games += 1;
        plies += g.game.mainline.nodes.len() as u64;
        errors += u64::from(g.error.is_some());
    }
    (games, plies, errors)
}

/// Runs the `rookery pgn stats` pipeline (`stream::run`, one thread) over
/// `bytes`: (games, mainline plies, error games).
pub fn run_rookery_stats(bytes: &[u8]) -> (u64, u64, u64) {
    run_rookery_task(bytes, rookery_pgn::stream::Task::Stats)
}

/// [`run_rookery_stats`] on two threads (`--jobs 2`).
pub fn run_rookery_stats_2(bytes: &[u8]) -> (u64, u64, u64) {
    run_rookery_task_on(bytes, rookery_pgn::stream::Task::Stats, 2)
}

/// Runs the `rookery pgn validate` pipeline (one thread, warnings not
/// reported) over `bytes`: (games, 0, error games).
pub fn run_rookery_validate(bytes: &[u8]) -> (u64, u64, u64) {
    run_rookery_task(bytes, rookery_pgn::stream::Task::Validate)
}

/// Runs the `rookery pgn to-epd` pipeline (one thread, the text made and
/// thrown away) over `bytes`: (games, EPD lines, error games).
pub fn run_rookery_to_epd(bytes: &[u8]) -> (u64, u64, u64) {
    let task = rookery_pgn::stream::Task::ToEpd {
        fen: false,
        opts: rookery_pgn::convert::EpdOptions::default(),
    };
    run_rookery_task(bytes, task)
}

/// Runs `stream::run` with `task` on one thread, quiet, over `bytes`:
/// (games, mainline plies for stats or lines of text, error games).
fn run_rookery_task(bytes: &[u8], task: rookery_pgn::stream::Task) -> (u64, u64, u64) {
    run_rookery_task_on(bytes, task, 1)
}

/// [`run_rookery_task`] on `jobs` threads; with more than one, as
/// `rookery pgn` reads a file (`Source::file`: each thread reads its own
/// pieces).
fn run_rookery_task_on(
    bytes: &[u8],
    task: rookery_pgn::stream::Task,
    jobs: usize,
) -> (u64, u64, u64) {
    use rookery_pgn::source::Source;
    use rookery_pgn::stream::{run, Part, Plan, Stats};
    let mut stats = Stats::default();
    let mut lines = 0u64;
    let mut plan = Plan::new(task);
    plan.quiet = true;
    plan.jobs = jobs;
    let mut sink = |part: Part| {
        lines += memchr::memchr_iter(b'\n', &part.text).count() as u64;
        stats.merge(part.stats);
        Ok::<(), std::io::Error>(())
    };
    let source = if jobs > 1 {
        Source::file(bytes).with_len(bytes.len() as u64)
    } else {
        Source::reader(bytes)
    };
    let _ = run(&plan, source, "bench", &mut |_| {}, &mut sink);
    (stats.games, stats.moves.max(lines), stats.error_games)
}

/// Runs pgn-reader + shakmaty over `bytes`: (games, plies, errors).
pub fn run_pgn_reader(bytes: &[u8]) -> (u64, u64, u64) {
    let mut r = pgn_reader::Reader::new(bytes);
    let mut v = ShakmatyPlayer {
        plies: 0,
        errors: 0,
    };
    let mut games = 0;
    while let Ok(Some(())) = r.read_game(&mut v) {
        games += 1;
    }
    (games, v.plies, v.errors)
}
