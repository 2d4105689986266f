//! `XboardPlayer` against xboard engines written from the protocol's text
//! (CECP §8-§11) as shell scripts: each logs every line it receives, and
//! misbehaves on cue. Games go through the one game loop
//! (`play_game`) against a player of fixed moves, so what is checked is the
//! game record (moves, result, termination, the engine's comments) and the
//! conversation.

use rookery_core::{Position, Score};
use rookery_game::adjudicate::Rules;
use rookery_game::engine::EnginePlayer;
use rookery_game::game::{play_game, FinishedGame, GameSetup};
use rookery_game::player::{
    EngineConfig, MoveReply, MoveRequest, Offer, Player, PlayerError, Protocol,
};
use rookery_game::record::{GameOutcome, GameRecord, Termination};
use rookery_game::xboard::XboardPlayer;
use rookery_testkit::TempDir;
use rookery_uci::host::Timeouts;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// White's moves of the test line, and Black's replies.
const WHITE: [&str; 6] = ["e2e4", "g1f3", "f1c4", "d2d3", "c2c3", "e1g1"];
const BLACK: [&str; 6] = ["e7e5", "b8c6", "g8f6", "f8c5", "d7d6", "e8g8"];

/// A CECP engine as a shell script. It appends every line it receives to
/// `log` (and `start` when it starts), answers `protover 2` with
/// `features` (whole lines; `banner` it prints at once), `ping N` with `pong N`, and when on move
/// (after `go`, or after a move while it plays a side) runs `turn`, which by
/// default prints a thinking line and the next of `replies` (`$n` counts
/// the turns). `extra` holds `case` branches tried before the others.
struct Engine<'a> {
    /// Printed at start (before any command).
    banner: &'a str,
    features: &'a [&'a str],
    replies: &'a [&'a str],
    turn: &'a str,
    extra: &'a str,
}

impl Default for Engine<'_> {
    fn default() -> Self {
        Engine {
            banner: "",
            features: &[
                "feature done=0",
                "feature ping=1 setboard=1 usermove=1 myname=\"Mock 1\"",
                "feature done=1",
            ],
            replies: &BLACK,
            turn: "reply",
            extra: "",
        }
    }
}

impl Engine<'_> {
    fn script(&self, t: &TempDir, name: &str) -> PathBuf {
        let log = t.join(format!("{name}.log"));
        let features: String = self
            .features
            .iter()
            .map(|f| format!("      echo '{f}'\n"))
            .collect();
        t.script(
            name,
            &format!(
                r#"log='{log}'
echo start >> "$log"
{banner}
replies='{replies}'
n=0
playing=0
reply() {{
  n=$((n+1))
  m=$(echo $replies | cut -d' ' -f$n)
  echo "3 25 10 1234 $m"
  echo "move $m"
}}
turn() {{
  {turn}
}}
while IFS= read -r line; do
  echo "$line" >> "$log"
  case "$line" in
{extra}
    "protover 2")
{features}      ;;
    "ping "*) echo "pong ${{line#ping }}" ;;
    new) playing=0; n=0 ;;
    force|result*) playing=0 ;;
    go) playing=1; turn ;;
    quit) exit 0 ;;
    "usermove "*|[a-h][1-8][a-h][1-8]*) if [ $playing = 1 ]; then turn; fi ;;
  esac
done
"#,
                log = log.display(),
                replies = self.replies.join(" "),
                turn = self.turn,
                banner = if self.banner.is_empty() {
                    String::new()
                } else {
                    format!("echo '{}'", self.banner)
                },
                extra = self.extra,
            ),
        )
    }
}

/// The lines the engine `name` received (and `start` for each start),
/// without the empty lines a silent engine gets in the feature wait.
fn log(t: &TempDir, name: &str) -> Vec<String> {
    std::fs::read_to_string(t.join(format!("{name}.log")))
        .unwrap_or_default()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_string)
        .collect()
}

fn timeouts() -> Timeouts {
    Timeouts {
        handshake: Duration::from_secs(10),
        ready: Duration::from_secs(10),
        ..Timeouts::default()
    }
}

fn config(script: &Path, words: &[&str]) -> EngineConfig {
    let mut c = EngineConfig::builtin();
    c.apply(&format!("cmd={}", script.display())).unwrap();
    c.apply("proto=xboard").unwrap();
    c.apply("tc=10+0.1").unwrap();
    for w in words {
        c.apply(w).unwrap();
    }
    c
}

fn xboard(script: &Path, words: &[&str]) -> XboardPlayer {
    XboardPlayer::start(config(script, words), timeouts(), None).expect("the mock starts")
}

/// A player of fixed moves (with an offer each, if any), which notes the
/// draw offers it was told of and how the game ended.
struct Fixed {
    moves: VecDeque<(&'static str, Option<Offer>)>,
    offered: Vec<bool>,
    over: Option<String>,
}

fn fixed(moves: &[&'static str]) -> Fixed {
    Fixed {
        moves: moves.iter().map(|m| (*m, None)).collect(),
        offered: Vec::new(),
        over: None,
    }
}

impl Player for Fixed {
    fn name(&self) -> &str {
        "fixed"
    }
    fn new_game(&mut self, _: bool) -> Result<(), PlayerError> {
        Ok(())
    }
    fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        self.offered.push(req.draw_offered);
        let (m, offer) = self
            .moves
            .pop_front()
            .ok_or_else(|| PlayerError::Crashed("out of moves".into()))?;
        Ok(MoveReply {
            offer,
            ..MoveReply::just(m.parse().unwrap())
        })
    }
    fn restart(&mut self) -> Result<(), PlayerError> {
        Ok(())
    }
    fn quit(&mut self) {}
    fn game_over(&mut self, record: &GameRecord, _: &Position) {
        self.over = Some(record.reason.clone());
    }
}

fn setup(start: &str, max_moves: u32, tc: &str) -> GameSetup {
    let mut t = rookery_game::clock::TimeControl::default();
    t.set("tc", tc).unwrap();
    GameSetup {
        event: "xboard tests".into(),
        site: "here".into(),
        start: Position::from_fen(start).unwrap(),
        margin: [Duration::from_millis(200); 2],
        rules: Rules {
            max_moves: Some(max_moves),
            ..Rules::default()
        },
        stall_timeout: Duration::from_secs(10),
        ..GameSetup::new(0, [t, t])
    }
}

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

fn play(setup: &GameSetup, white: &mut dyn Player, black: &mut dyn Player) -> FinishedGame {
    play_game(setup, white, black, None, &mut |_| Ok(())).expect("the game is recorded")
}

/// The first `n` moves of each side of the test line, in order.
fn line(n: usize) -> Vec<&'static str> {
    WHITE[..n]
        .iter()
        .zip(&BLACK[..n])
        .flat_map(|(w, b)| [*w, *b])
        .collect()
}

fn ucis(g: &FinishedGame) -> Vec<&str> {
    g.record.moves.iter().map(|m| m.uci.as_str()).collect()
}

/// The index of the first line equal to `want` at or after `from`.
fn find(lines: &[String], want: &str, from: usize) -> usize {
    lines[from..]
        .iter()
        .position(|l| l == want)
        .map(|i| i + from)
        .unwrap_or_else(|| panic!("no {want:?} after line {from} in {lines:#?}"))
}

/// A whole game in step: features agreed (done=0 .. done=1), `new`,
/// `force`, `post`, `easy`, `level`, `ping`; the opponent's moves as
/// `usermove` after `time`/`otim`; the thinking output in the record; the
/// result at the end.
#[test]
fn a_game_in_step_with_the_protocol() {
    let t = TempDir::new("xboard-step");
    let script = Engine::default().script(&t, "mock");
    let mut black = xboard(&script, &[]);
    assert_eq!(black.name(), "Mock 1");
    let mut white = fixed(&WHITE);
    let g = play(&setup(START, 4, "10+0.1"), &mut white, &mut black);
    assert_eq!(ucis(&g), line(4));
    assert_eq!(g.record.termination, Termination::Adjudication);
    assert_eq!(g.record.black, "Mock 1");
    let m = &g.record.moves[1];
    assert_eq!(
        (m.score, m.depth, m.nodes),
        (Some(Score::Cp(25)), Some(3), Some(1234))
    );
    drop(black);
    let lines = log(&t, "mock");
    assert_eq!(
        lines[..8],
        [
            "start",
            "xboard",
            "protover 2",
            "accepted done",
            "accepted ping",
            "accepted setboard",
            "accepted usermove",
            "accepted myname",
        ]
    );
    let new = find(&lines, "new", 0);
    assert_eq!(
        lines[new..new + 6],
        ["new", "force", "post", "easy", "level 0 0:10 0.1", "ping 1"]
    );
    // The first move in force mode, then the clocks, then go.
    let first = find(&lines, "usermove e2e4", new);
    assert!(lines[first + 1].starts_with("time ") && lines[first + 2].starts_with("otim "));
    assert_eq!(lines[first + 3], "go");
    // Later moves: the clocks, then the move (the engine replies to it).
    let second = find(&lines, "usermove g1f3", first);
    assert!(lines[second - 2].starts_with("time ") && lines[second - 1].starts_with("otim "));
    let result = find(
        &lines,
        "result 1/2-1/2 {Draw by adjudication: 4 moves each}",
        second,
    );
    assert_eq!(lines[result + 1], "force");
    assert_eq!(lines.last().map(String::as_str), Some("quit"));
}

/// A protocol version 1 engine (a banner, no features: the host waits the
/// protocol's two seconds) plays with bare moves, without ping, and gets a position
/// with Black to move through edit mode (`a2a3` first, CECP §8).
#[test]
fn a_version_1_engine_gets_bare_moves_and_edit_mode() {
    let t = TempDir::new("xboard-v1");
    let engine = Engine {
        banner: "Chess",
        features: &[],
        replies: &["e7e5", "b8c6", "g8f6"],
        ..Engine::default()
    };
    let script = engine.script(&t, "old");
    let mut black = xboard(&script, &[]);
    assert_eq!(black.name(), "old", "no myname: the program's name");
    assert_eq!(black.features().map(|f| f.ping), Some(false));
    let after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mut white = fixed(&["g1f3", "f1c4"]);
    let g = play(&setup(after_e4, 2, "10+0.1"), &mut white, &mut black);
    assert_eq!(ucis(&g), ["e7e5", "g1f3", "b8c6", "f1c4"]);
    drop(black);
    let lines = log(&t, "old");
    assert!(!lines
        .iter()
        .any(|l| l.starts_with("ping") || l.starts_with("accepted")));
    let edit = find(&lines, "edit", 0);
    assert_eq!(lines[edit - 1], "a2a3", "Black to move: a move before edit");
    assert_eq!(lines[edit + 1], "#");
    let color = find(&lines, "c", edit);
    let done = find(&lines, ".", color);
    let white_pieces: Vec<&str> = lines[edit + 2..color].iter().map(String::as_str).collect();
    assert_eq!(white_pieces.len(), 16);
    assert!(white_pieces.contains(&"Pe4") && white_pieces.contains(&"Ke1"));
    assert!(!white_pieces.contains(&"Pe2"));
    assert_eq!(done - color - 1, 16, "Black's pieces");
    assert!(lines[color + 1..done].contains(&"Ke8".to_string()));
    assert_eq!(lines[done + 1], "force");
    assert_eq!(lines[done + 4], "go", "after the clocks");
    // The opponent's move bare (no usermove feature).
    assert!(lines.contains(&"g1f3".to_string()));
}

/// With `san=1` the engine gets SAN and may answer in SAN; as White it is
/// set going with `go` at the start.
#[test]
fn san_both_ways_and_the_engine_as_white() {
    let t = TempDir::new("xboard-san");
    let engine = Engine {
        features: &["feature san=1 usermove=1 ping=1 done=1"],
        replies: &["e4", "Nf3", "Bc4", "d3", "c3", "O-O"],
        ..Engine::default()
    };
    let script = engine.script(&t, "san");
    let mut white = xboard(&script, &[]);
    let mut black = fixed(&BLACK);
    let g = play(&setup(START, 6, "10+0.1"), &mut white, &mut black);
    assert_eq!(ucis(&g), line(6));
    drop(white);
    let lines = log(&t, "san");
    let go = find(&lines, "go", 0);
    assert!(lines[go - 1].starts_with("otim"), "{lines:#?}");
    let mut at = go;
    for m in [
        "usermove e5",
        "usermove Nc6",
        "usermove Nf6",
        "usermove Bc5",
        "usermove d6",
    ] {
        at = find(&lines, m, at);
    }
}

/// `resign` and a claim of the engine's own loss end the game.
#[test]
fn resignations() {
    let t = TempDir::new("xboard-resign");
    for (name, words) in [
        ("resigner", "echo resign"),
        ("claimer", "echo '1-0 {Black resigns}'"),
    ] {
        let turn = format!("if [ $n -ge 1 ]; then {words}; else reply; fi");
        let engine = Engine {
            turn: &turn,
            ..Engine::default()
        };
        let script = engine.script(&t, name);
        let mut black = xboard(&script, &[]);
        let mut white = fixed(&WHITE);
        let g = play(&setup(START, 10, "10+0.1"), &mut white, &mut black);
        assert_eq!(ucis(&g), ["e2e4", "e7e5", "g1f3"], "{name}");
        assert_eq!(g.record.outcome, GameOutcome::WhiteWins, "{name}");
        assert_eq!(g.record.termination, Termination::Normal, "{name}");
        assert_eq!(g.record.reason, "Black resigns", "{name}");
    }
    // GNU Chess resigns right after its move: with that move, or (when the
    // word comes late) at its next turn; the game is lost either way.
    let engine = Engine {
        turn: "reply; if [ $n = 2 ]; then echo resign; fi",
        ..Engine::default()
    };
    let script = engine.script(&t, "after");
    let mut black = xboard(&script, &[]);
    let g = play(&setup(START, 10, "10+0.1"), &mut fixed(&WHITE), &mut black);
    assert_eq!(g.record.reason, "Black resigns");
    assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
    assert!([3, 5].contains(&g.record.moves.len()), "{:?}", ucis(&g));
}

/// The opponent's draw offer is relayed with `draw` (before its move);
/// `offer draw` accepts it. An engine that ignores it plays on.
#[test]
fn draw_offers_accepted_and_declined() {
    let t = TempDir::new("xboard-draw");
    let accepting = Engine {
        extra: "    draw) echo 'offer draw' ;;",
        ..Engine::default()
    }
    .script(&t, "accepting");
    let declining = Engine::default().script(&t, "declining");
    for (script, name) in [(&accepting, "accepting"), (&declining, "declining")] {
        let mut black = xboard(script, &[]);
        let mut white = fixed(&WHITE);
        white.moves[1].1 = Some(Offer::Draw);
        let g = play(&setup(START, 3, "10+0.1"), &mut white, &mut black);
        drop(black);
        let lines = log(&t, name);
        let draw = find(&lines, "draw", 0);
        assert_eq!(
            lines[draw + 3],
            "usermove g1f3",
            "draw, the clocks, the move"
        );
        if name == "accepting" {
            assert_eq!(g.record.reason, "Draw by agreement");
            assert_eq!(g.record.outcome, GameOutcome::Draw);
            assert_eq!(ucis(&g), ["e2e4", "e7e5", "g1f3"]);
        } else {
            assert_eq!(g.record.termination, Termination::Adjudication);
            assert_eq!(ucis(&g), line(3));
        }
    }
}

/// The engine's `offer draw` before its move goes to the opponent with
/// that move.
#[test]
fn the_engines_draw_offer_reaches_the_opponent() {
    let t = TempDir::new("xboard-offer");
    let engine = Engine {
        turn: "if [ $n = 1 ]; then echo 'offer draw'; fi; reply",
        ..Engine::default()
    };
    let script = engine.script(&t, "offering");
    let mut black = xboard(&script, &[]);
    let mut white = fixed(&WHITE);
    let g = play(&setup(START, 3, "10+0.1"), &mut white, &mut black);
    assert_eq!(ucis(&g), line(3));
    // White is asked three times; the second time, after Black's second
    // move (its turn number 1), with the offer.
    assert_eq!(white.offered, [false, false, true]);
}

/// A result the rules do not give: claimed after a move, the game goes on
/// (invalid claims cost nothing by default) but the engine plays no more,
/// which loses; claimed instead of a move, it loses at once.
#[test]
fn false_claims_lose() {
    let t = TempDir::new("xboard-claim");
    for (name, turn) in [
        (
            "after",
            "reply; if [ $n = 2 ]; then echo '1/2-1/2 {Draw by repetition}'; fi",
        ),
        (
            "instead",
            "if [ $n -ge 1 ]; then echo '0-1 {Black mates}'; else reply; fi",
        ),
    ] {
        let engine = Engine {
            turn,
            ..Engine::default()
        };
        let script = engine.script(&t, name);
        let mut black = xboard(&script, &[]);
        let mut white = fixed(&WHITE);
        let g = play(&setup(START, 10, "10+0.1"), &mut white, &mut black);
        assert_eq!(
            g.record.outcome,
            GameOutcome::WhiteWins,
            "{name}: {}",
            g.record.reason
        );
        assert_eq!(g.record.termination, Termination::RulesInfraction, "{name}");
        let moves = if name == "after" { 5 } else { 3 };
        assert_eq!(g.record.moves.len(), moves, "{name}: {}", g.record.reason);
        assert!(
            g.record.reason.contains("claim"),
            "{name}: {}",
            g.record.reason
        );
    }
}

/// An illegal move from the engine, and the engine refusing a legal move
/// of its opponent.
#[test]
fn illegal_moves_both_ways() {
    let t = TempDir::new("xboard-illegal");
    let bad = Engine {
        replies: &["e7e5", "e7e5"],
        ..Engine::default()
    }
    .script(&t, "bad");
    let mut black = xboard(&bad, &[]);
    let g = play(&setup(START, 10, "10+0.1"), &mut fixed(&WHITE), &mut black);
    assert_eq!(g.record.termination, Termination::IllegalMove);
    assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
    assert!(g.record.reason.contains("e7e5"), "{}", g.record.reason);

    let refusing = Engine {
        extra: r#"    "usermove g1f3") echo 'Illegal move (no reason): g1f3' ;;"#,
        ..Engine::default()
    }
    .script(&t, "refusing");
    let mut black = xboard(&refusing, &[]);
    let g = play(&setup(START, 10, "10+0.1"), &mut fixed(&WHITE), &mut black);
    assert_eq!(g.record.termination, Termination::RulesInfraction);
    assert!(
        g.record.reason.contains("rejects the move g1f3 as illegal"),
        "{}",
        g.record.reason
    );
}

/// A crash in the middle of a game (with its last words on stderr), and an
/// engine that stops answering on a clock: `?` is sent, then it loses on
/// time.
#[test]
fn crash_and_hang() {
    let t = TempDir::new("xboard-fail");
    let crashing = Engine {
        turn: "if [ $n -ge 1 ]; then echo 'mock: out of memory' >&2; exit 3; fi; reply",
        ..Engine::default()
    }
    .script(&t, "crashing");
    let mut black = xboard(&crashing, &[]);
    let g = play(&setup(START, 10, "10+0.1"), &mut fixed(&WHITE), &mut black);
    assert_eq!(g.record.termination, Termination::Abandoned);
    assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
    assert!(
        g.record.reason.contains("out of memory"),
        "{}",
        g.record.reason
    );
    assert!(black.restart().is_ok(), "a crashed engine starts again");

    let hanging = Engine {
        turn: "if [ $n -ge 1 ]; then :; else reply; fi",
        ..Engine::default()
    }
    .script(&t, "hanging");
    let mut black = xboard(&hanging, &[]);
    let g = play(&setup(START, 10, "1+0"), &mut fixed(&WHITE), &mut black);
    assert_eq!(g.record.termination, Termination::TimeForfeit);
    assert_eq!(g.record.outcome, GameOutcome::WhiteWins);
    drop(black);
    assert!(log(&t, "hanging").contains(&"?".to_string()));
}

/// A move the engine prints about an earlier game (here when it gets
/// `new`) is consumed by the ping before the next game starts, not taken
/// as its first move.
#[test]
fn a_stale_move_is_not_taken_for_the_next_game() {
    let t = TempDir::new("xboard-stale");
    let script = Engine {
        extra: "    new) playing=0; n=0; echo 'move h7h6' ;;",
        ..Engine::default()
    }
    .script(&t, "stale");
    let mut black = xboard(&script, &[]);
    for _ in 0..2 {
        let g = play(&setup(START, 2, "10+0.1"), &mut fixed(&WHITE), &mut black);
        assert_eq!(ucis(&g), line(2));
    }
    drop(black);
    let pings = log(&t, "stale")
        .iter()
        .filter(|l| l.starts_with("ping "))
        .count();
    // One when it starts (its limits are checked then), one per game.
    assert_eq!(pings, 3, "one sync per game and one at the start");
}

/// An engine that cannot play two games in one process (`reuse=0`) is
/// started afresh for the second.
#[test]
fn reuse_0_means_a_process_per_game() {
    let t = TempDir::new("xboard-reuse");
    let script = Engine {
        features: &["feature reuse=0 ping=1 usermove=1 done=1"],
        ..Engine::default()
    }
    .script(&t, "once");
    let mut black = xboard(&script, &[]);
    for _ in 0..2 {
        let g = play(&setup(START, 2, "10+0.1"), &mut fixed(&WHITE), &mut black);
        assert_eq!(ucis(&g), line(2));
    }
    drop(black);
    let starts = log(&t, "once").iter().filter(|l| *l == "start").count();
    assert_eq!(starts, 2);
}

/// Time controls as CECP says them; a node limit needs `nps`, and an
/// engine that does not know it cannot play one.
#[test]
fn time_controls_and_node_limits() {
    let t = TempDir::new("xboard-tc");
    let script = Engine::default().script(&t, "tc");
    for words in [
        &["st=2", "tc=inf"][..],
        &["nodes=5000", "tc=inf", "depth=7"],
    ] {
        let mut black = xboard(&script, words);
        black.new_game(false).unwrap();
    }
    let lines = log(&t, "tc");
    let st = find(&lines, "st 2", 0);
    assert_eq!(lines[st + 1], "ping 1");
    let nodes = find(&lines, "st 1", st);
    assert_eq!(lines[nodes + 1..nodes + 4], ["nps 5000", "sd 7", "ping 1"]);

    let no_nps = Engine {
        extra: r#"    "nps "*) echo "Error (unknown command): nps" ;;"#,
        ..Engine::default()
    }
    .script(&t, "no-nps");
    // Refused when it starts, before any game (issue 43: it lost every
    // game it was given "at new game").
    let start = |words: &[&str]| {
        XboardPlayer::start(config(&no_nps, words), timeouts(), None)
            .err()
            .expect("refused when it starts")
    };
    let err = start(&["nodes=5000", "tc=inf"]);
    assert!(matches!(err, PlayerError::Start { .. }), "{err}");
    assert!(
        err.to_string().contains("nodes=5000") && err.to_string().contains("nps"),
        "{err}"
    );
    let err = start(&["nodes=5000", "tc=1+0.1"]);
    assert!(err.to_string().contains("cannot tell"), "{err}");
}

/// Options: declared ones as `option NAME=VALUE` (checked), `Hash` as
/// `memory`; an unknown option is skipped, or stops a strict start.
#[test]
fn engine_options() {
    let t = TempDir::new("xboard-options");
    let script = Engine {
        features: &[
            "feature done=0 memory=1 ping=1",
            "feature option=\"Style -combo Solid /// *Normal /// Risky\"",
            "feature option=\"Resign Threshold -spin 800 200 1200\"",
            "feature done=1",
        ],
        ..Engine::default()
    }
    .script(&t, "opts");
    let black = xboard(
        &script,
        &[
            "option.style=risky",
            "option.Resign Threshold=900",
            "option.Hash=32",
        ],
    );
    drop(black);
    let lines = log(&t, "opts");
    let first = find(&lines, "option Style=Risky", 0);
    assert_eq!(
        lines[first + 1..first + 3],
        ["option Resign Threshold=900", "memory 32"]
    );
    // An option it does not have is skipped (as cutechess-cli does), or
    // stops the start with strict options; a bad value always does.
    let skipping = xboard(&script, &["option.Threads=2"]);
    assert_eq!(skipping.skipped_options(), ["Threads"]);
    for (word, strict) in [
        ("option.Threads=2", true),
        ("option.Resign Threshold=5", false),
    ] {
        let mut c = config(&script, &[word]);
        c.strict_options = strict;
        let err = XboardPlayer::start(c, timeouts(), None).err().unwrap();
        assert!(matches!(err, PlayerError::Start { .. }), "{word}: {err}");
    }
}

/// Chess960: `variant fischerandom` and `setboard` with the X-FEN, for an
/// engine that lists the variant; one that does not cannot play.
#[test]
fn chess960_needs_the_variant() {
    let t = TempDir::new("xboard-960");
    let start = "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1";
    let frc = Engine {
        features: &["feature variants=\"normal,fischerandom\" setboard=1 ping=1 done=1"],
        replies: &["a7a6"],
        ..Engine::default()
    }
    .script(&t, "frc");
    let mut black = xboard(&frc, &[]);
    let g = play(
        &setup(start, 1, "10+0.1"),
        &mut fixed(&["a2a3"]),
        &mut black,
    );
    assert_eq!(ucis(&g), ["a2a3", "a7a6"]);
    drop(black);
    let lines = log(&t, "frc");
    let v = find(&lines, "variant fischerandom", 0);
    assert_eq!(lines[v - 1], "new");
    let setboard = lines
        .iter()
        .find(|l| l.starts_with("setboard "))
        .expect("setboard");
    assert_eq!(
        Position::from_fen(&setboard["setboard ".len()..]).unwrap(),
        Position::from_fen(start).unwrap()
    );

    let normal = Engine {
        features: &["feature variants=\"normal\" ping=1 done=1"],
        ..Engine::default()
    }
    .script(&t, "normal");
    let mut black = xboard(&normal, &[]);
    let g = play(
        &setup(start, 1, "10+0.1"),
        &mut fixed(&["a2a3"]),
        &mut black,
    );
    assert_eq!(g.record.termination, Termination::Abandoned);
    assert!(g.record.reason.contains("Chess960"), "{}", g.record.reason);
}

/// What cannot start: no such program, and the built-in engine (UCI).
#[test]
fn engines_that_cannot_start() {
    let t = TempDir::new("xboard-absent");
    let err = XboardPlayer::start(config(&t.join("no-such-engine"), &[]), timeouts(), None)
        .err()
        .unwrap();
    assert!(matches!(err, PlayerError::Start { .. }), "{err}");
    let mut builtin = EngineConfig::builtin();
    builtin.apply("proto=xboard").unwrap();
    let err = builtin.start(timeouts(), None).err().unwrap();
    assert!(err.to_string().contains("speaks UCI"), "{err}");
}

/// `proto=`: read from the engine words, an `EnginePlayer` of its kind,
/// and journals written before it existed still read (as UCI).
#[test]
fn the_proto_word_and_old_journals() {
    let t = TempDir::new("xboard-proto");
    let script = Engine::default().script(&t, "p");
    let started = config(&script, &[]).start(timeouts(), None).unwrap();
    assert!(matches!(started, EnginePlayer::Xboard(_)));
    let mut c = EngineConfig::builtin();
    assert!(c.apply("proto=cecp").is_err());
    c.apply("proto=xboard").unwrap();
    assert_eq!(c.proto, Protocol::Xboard);
    let mut json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["proto"], "xboard");
    json.as_object_mut().unwrap().remove("proto");
    let old: EngineConfig = serde_json::from_value(json).unwrap();
    assert_eq!(old.proto, Protocol::Uci);
}
