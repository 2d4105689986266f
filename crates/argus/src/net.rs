//! [`NetPlayer`]: a client of the referee, connected over a network, as a
//! [`Player`] of the one game loop ([`rookery_game::game::play_game`]).
//!
//! It knows nothing of sockets: a [`Link`] gives it a way to send
//! [`RefereeRecord`]s and an inbox of the client's replies, which the
//! transport (the tokio server) fills. `request_move` sends `refcom
//! respond` (the position before the opponent's last move, that move as
//! `sm`, the clocks as `cc`, `hmvc`/`fmvn`, a pending `draw_offer`) and
//! waits for the `refreq reply`; `game_over` sends an `inform` with the
//! `Result` tag, then `conclude`.
//!
//! A game resumed from the journal ([`NetPlayer::replaying`]) is replayed
//! to the client after `reset` and `inform` as `execute` records (§8.1.3),
//! one per move with the time used after it as `cc`; the next `respond`
//! carries the restored clocks. A game put on hold ([`NetPlayer::holding`],
//! a player's program restarted by the supervisor) ends without `inform`
//! and `conclude`: it is resumed, not over.

use super::protocol::{ClientRecord, Command, RefereeRecord, Request, SuppliedMove};
use rookery_core::{CastlingMode, Position, UciMove};
use rookery_game::game::GameError;
use rookery_game::player::{MoveReply, MoveRequest, Offer, Player, PlayerError};
use rookery_game::record::{Clocks, GameRecord, MoveRecord};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the transport hands the game from a client.
#[derive(Clone, Debug)]
pub enum Inbound {
    /// A `refreq reply`, with when it was read off the wire.
    Reply(Box<ClientRecord>, Instant),
    /// The client signed off, its connection closed or the supervisor took
    /// the game away (the reason).
    Gone(String),
}

/// Sends one record to a client; false when the client is gone.
pub type Sender = Box<dyn Fn(RefereeRecord) -> bool + Send>;

/// A signed-on client as a game sees it.
pub struct Link {
    /// The player's registered name.
    pub name: String,
    /// The client's network address (for `tcri`).
    pub address: String,
    /// Sends a record to the client.
    pub send: Sender,
    /// The client's replies (the transport forwards only replies it was
    /// asked for: see `awaiting`).
    pub inbox: Receiver<Inbound>,
    /// Set while a `respond` is outstanding: the transport refuses a reply
    /// out of turn with a fault instead of forwarding it.
    pub awaiting: Arc<AtomicBool>,
}

/// Referee latencies of one event: reply read off the wire to the next
/// `respond` handed to the transport.
pub type Latencies = Arc<Mutex<Vec<Duration>>>;

/// A network client as a [`Player`].
pub struct NetPlayer {
    link: Link,
    tags: Vec<(String, String)>,
    quiet: Duration,
    start: Position,
    /// When the last reply of this game (either side) was read, shared by
    /// both players of the game.
    last_reply: Arc<Mutex<Option<Instant>>>,
    latencies: Latencies,
    used: [Duration; 2],
    replay: Vec<RefereeRecord>,
    hold: Option<Arc<AtomicBool>>,
    offers: Option<Arc<Mutex<Option<Offer>>>>,
}

impl NetPlayer {
    /// A player over `link` for one game from `start`, told the PGN `tags`
    /// (Seven Tag Roster and `TimeControl`) before the first move; `quiet`
    /// is the pause after `reset` (§8.1.6). `last_reply` is shared with the
    /// opponent; latencies are pushed to `latencies`.
    pub fn new(
        link: Link,
        start: Position,
        tags: Vec<(String, String)>,
        quiet: Duration,
        last_reply: Arc<Mutex<Option<Instant>>>,
        latencies: Latencies,
    ) -> NetPlayer {
        NetPlayer {
            link,
            tags,
            quiet,
            start,
            last_reply,
            latencies,
            used: [Duration::ZERO; 2],
            replay: Vec::new(),
            hold: None,
            offers: None,
        }
    }

    /// Replays the first `count` of a resumed game's `moves` (from the
    /// start position) to the client after `reset` and `inform`, as
    /// `execute` records: the position before the move, the move as `sm`
    /// and the time used by both sides after it as `cc`.
    ///
    /// # Errors
    /// [`GameError::Resume`] for a move that does not replay.
    pub fn replaying(mut self, moves: &[MoveRecord], count: usize) -> Result<NetPlayer, GameError> {
        let mut pos = self.start.clone();
        let mut clocks = Clocks::default();
        let mut reached_by = None;
        for r in moves.iter().take(count) {
            let m = r
                .uci
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .ok_or_else(|| GameError::Resume(format!("move {} is not legal", r.uci)))?;
            clocks.charge(usize::from(pos.turn() == rookery_core::Color::Black), r);
            let mut e = RefereeRecord::new(Command::Execute, pos.clone()).reached_by(reached_by);
            e.sm = Some(m);
            e.cc = Some(clocks.used());
            e.receiver = Some((self.link.address.clone(), self.link.name.clone()));
            self.replay.push(e);
            pos.play_unchecked(m);
            reached_by = Some(m);
        }
        Ok(self)
    }

    /// While `hold` is set when the game ends, the client is not told the
    /// game is over: it is to be resumed.
    pub fn holding(mut self, hold: Arc<AtomicBool>) -> NetPlayer {
        self.hold = Some(hold);
        self
    }

    /// Each reply's offer (or none) is left in `to` (for the journal).
    pub fn reporting_offers(mut self, to: Arc<Mutex<Option<Offer>>>) -> NetPlayer {
        self.offers = Some(to);
        self
    }

    /// Gives the link back (the game is over).
    pub fn into_link(self) -> Link {
        self.link
    }

    fn record(&self, command: Command, position: Position) -> RefereeRecord {
        let mut r = RefereeRecord::new(command, position);
        r.cc = Some(self.used);
        r.receiver = Some((self.link.address.clone(), self.link.name.clone()));
        r
    }

    fn send(&self, r: RefereeRecord) -> Result<(), PlayerError> {
        if (self.link.send)(r) {
            Ok(())
        } else {
            Err(PlayerError::Crashed(format!("{} is gone", self.link.name)))
        }
    }
}

impl Player for NetPlayer {
    fn name(&self) -> &str {
        &self.link.name
    }

    fn new_game(&mut self, _chess960: bool) -> Result<(), PlayerError> {
        // Anything left in the inbox belongs to an earlier game.
        while let Ok(msg) = self.link.inbox.try_recv() {
            if let Inbound::Gone(why) = msg {
                return Err(PlayerError::Crashed(why));
            }
        }
        self.send(self.record(Command::Reset, self.start.clone()))?;
        std::thread::sleep(self.quiet);
        let mut inform = self.record(Command::Inform, self.start.clone());
        inform.tags = self.tags.clone();
        self.send(inform)?;
        for r in std::mem::take(&mut self.replay) {
            self.send(r)?;
        }
        Ok(())
    }

    fn request_move(&mut self, req: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        self.used = req.used;
        let mut before = req.start.clone();
        let mut current = req.start.clone();
        // The last move, and the one before it (which reached `before`).
        let (mut last, mut previous) = (None, None);
        for &m in req.moves {
            before = current.clone();
            current.play_unchecked(m);
            previous = last;
            last = Some(m);
        }
        let mut r = if last.is_some() {
            self.record(Command::Respond, before).reached_by(previous)
        } else {
            self.record(Command::Respond, current.clone())
        };
        r.sm = last;
        r.draw_offer = req.draw_offered;
        self.link.awaiting.store(true, Ordering::SeqCst);
        let at = Instant::now();
        if let Some(t) = self.last_reply.lock().map(|mut g| g.take()).unwrap_or(None) {
            if let Ok(mut l) = self.latencies.lock() {
                l.push(at.saturating_duration_since(t));
            }
        }
        self.send(r)?;
        let deadline = at + req.deadline;
        let reply = loop {
            match self
                .link
                .inbox
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
            {
                Ok(Inbound::Reply(rec, when)) if rec.request == Request::Reply => {
                    if let Ok(mut g) = self.last_reply.lock() {
                        *g = Some(when);
                    }
                    break *rec;
                }
                Ok(Inbound::Reply(..)) => continue,
                Ok(Inbound::Gone(why)) => {
                    self.link.awaiting.store(false, Ordering::SeqCst);
                    return Err(PlayerError::Crashed(why));
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.link.awaiting.store(false, Ordering::SeqCst);
                    return Err(PlayerError::Timeout {
                        after: req.deadline,
                        responsive: true,
                    });
                }
                Err(RecvTimeoutError::Disconnected) => {
                    self.link.awaiting.store(false, Ordering::SeqCst);
                    return Err(PlayerError::Crashed(format!("{} is gone", self.link.name)));
                }
            }
        };
        // §8 step 10: the reply's position is the one the client moves from
        // (its clocks only where the reply carries them).
        if !reply.is_on(&current) {
            return Err(PlayerError::Protocol(format!(
                "reply on {}, not on the game's position {}",
                reply.position_text(),
                rookery_core::Fen::from_position(&current)
            )));
        }
        if let Some(o) = &self.offers {
            if let Ok(mut o) = o.lock() {
                *o = reply.offer;
            }
        }
        let mode = if req.start.is_chess960_castling() {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let search = reply.search();
        match (reply.sm, reply.offer) {
            (_, Some(o @ (Offer::Resign | Offer::Accept))) => {
                let mut r = MoveReply::just(UciMove::Null);
                r.offer = Some(o);
                Ok(r)
            }
            (Some(SuppliedMove::Legal(m)), offer) => {
                let mut r = MoveReply::just(UciMove::from_move(&current, m, mode));
                r.offer = offer;
                (r.score, r.depth, r.nodes) = search;
                Ok(r)
            }
            (Some(SuppliedMove::Illegal(text)), _) => Err(PlayerError::IllegalMove(text)),
            (None, _) => Err(PlayerError::IllegalMove("(no move)".into())),
        }
    }

    fn restart(&mut self) -> Result<(), PlayerError> {
        Err(PlayerError::Start {
            name: self.link.name.clone(),
            reason: "a network client restarts itself".into(),
        })
    }

    fn quit(&mut self) {
        self.link.awaiting.store(false, Ordering::SeqCst);
    }

    fn game_over(&mut self, record: &GameRecord, last: &Position) {
        self.link.awaiting.store(false, Ordering::SeqCst);
        if self.hold.as_ref().is_some_and(|h| h.load(Ordering::SeqCst)) {
            return;
        }
        let mut clocks = Clocks::default();
        let mut pos = match rookery_core::Position::from_fen(&record.start_fen) {
            Ok(p) => p,
            Err(_) => self.start.clone(),
        };
        let mut reached_by = None;
        for m in &record.moves {
            let side = usize::from(pos.turn() == rookery_core::Color::Black);
            clocks.charge(side, m);
            match m
                .uci
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
            {
                Some(mv) => {
                    pos.play_unchecked(mv);
                    reached_by = Some(mv);
                }
                None => break,
            }
        }
        self.used = clocks.used();
        // The final position, as the move that reached it writes it (§4.4);
        // a record that does not replay to it says nothing of that move.
        let reached_by = reached_by.filter(|_| pos == *last);
        let mut conclude = self
            .record(Command::Conclude, last.clone())
            .reached_by(reached_by);
        conclude.note = Some(record.reason.clone());
        let mut inform = self
            .record(Command::Inform, last.clone())
            .reached_by(reached_by);
        inform.tags = self
            .tags
            .iter()
            .filter(|(k, _)| k != "Result")
            .cloned()
            .chain([
                ("Result".to_string(), record.outcome.as_str().to_string()),
                (
                    "Termination".to_string(),
                    record.termination.as_str().to_string(),
                ),
            ])
            .collect();
        // The result first: nothing about the game follows `conclude`
        // (§8.1.1). A client that is gone is not told; the game is recorded
        // anyway.
        let _ = self.send(inform).and_then(|()| self.send(conclude));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rookery_core::{Move, San};
    use rookery_game::player::ThinkLimits;
    use std::sync::mpsc;

    struct Wire {
        sent: mpsc::Receiver<RefereeRecord>,
        replies: mpsc::Sender<Inbound>,
        awaiting: Arc<AtomicBool>,
    }

    fn player() -> (NetPlayer, Wire) {
        let (out_tx, sent) = mpsc::channel();
        let (replies, inbox) = mpsc::channel();
        let awaiting = Arc::new(AtomicBool::new(false));
        let link = Link {
            name: "Alpha".into(),
            address: "here".into(),
            send: Box::new(move |r| out_tx.send(r).is_ok()),
            inbox,
            awaiting: awaiting.clone(),
        };
        let p = NetPlayer::new(
            link,
            Position::startpos(),
            vec![("White".into(), "Alpha".into())],
            Duration::ZERO,
            Arc::new(Mutex::new(None)),
            Arc::new(Mutex::new(Vec::new())),
        );
        (
            p,
            Wire {
                sent,
                replies,
                awaiting,
            },
        )
    }

    fn san(pos: &Position, s: &str) -> Move {
        s.parse::<San>().unwrap().to_move(pos).unwrap()
    }

    fn move_record(uci: &str, ms: u64) -> MoveRecord {
        MoveRecord {
            time_ms: ms,
            ..MoveRecord::new(uci, uci)
        }
    }

    /// A game from the start with `moves`, won by Black.
    fn game_record(moves: Vec<MoveRecord>) -> GameRecord {
        GameRecord {
            number: 0,
            event: "E".into(),
            site: "S".into(),
            round: "1".into(),
            white: "Alpha".into(),
            black: "Beta".into(),
            white_tc: Default::default(),
            black_tc: Default::default(),
            start_fen: rookery_core::Fen::from_position(&Position::startpos()).to_string(),
            moves,
            outcome: rookery_game::record::GameOutcome::BlackWins,
            termination: rookery_game::record::Termination::Unterminated,
            reason: "gone".into(),
            started: (String::new(), String::new()),
            date: None,
            duration_ms: 0,
        }
    }

    /// The position after `moves` (SAN) from the start, and the moves.
    fn line(moves: &[&str]) -> (Position, Vec<Move>) {
        let mut pos = Position::startpos();
        let mut out = Vec::new();
        for s in moves {
            let m = san(&pos, s);
            pos.play_unchecked(m);
            out.push(m);
        }
        (pos, out)
    }

    fn ask(
        p: &mut NetPlayer,
        moves: &[Move],
        reply: Option<ClientRecord>,
        w: &Wire,
    ) -> Result<MoveReply, PlayerError> {
        if let Some(r) = reply {
            w.replies
                .send(Inbound::Reply(Box::new(r), Instant::now()))
                .unwrap();
        }
        let start = Position::startpos();
        let req = MoveRequest {
            start: &start,
            moves,
            limits: ThinkLimits::default(),
            deadline: Duration::from_millis(200),
            used: [Duration::from_secs(3), Duration::from_secs(5)],
            draw_offered: true,
        };
        p.request_move(&req)
    }

    #[test]
    fn respond_relays_the_last_move_from_the_position_before_it() {
        let (mut p, w) = player();
        let start = Position::startpos();
        let e4 = san(&start, "e4");
        let mut after = start.clone();
        after.play_unchecked(e4);
        let mut reply = ClientRecord::new(Request::Reply, after.clone());
        let e5 = san(&after, "e5");
        reply.sm = Some(SuppliedMove::Legal(e5));
        reply.offer = Some(Offer::Reject);
        let got = ask(&mut p, &[e4], Some(reply), &w).unwrap();
        assert_eq!(got.mv.to_string(), "e7e5");
        assert_eq!(got.offer, Some(Offer::Reject));
        let sent = w.sent.recv().unwrap();
        assert_eq!(sent.command, Command::Respond);
        assert_eq!(sent.position, start);
        assert_eq!(sent.sm, Some(e4));
        assert!(sent.draw_offer);
        assert_eq!(
            sent.cc,
            Some([Duration::from_secs(3), Duration::from_secs(5)])
        );
        assert_eq!(sent.receiver, Some(("here".into(), "Alpha".into())));
        assert!(
            w.awaiting.load(Ordering::SeqCst),
            "the transport was told a reply is due"
        );
    }

    #[test]
    fn the_engines_score_depth_and_nodes_cross_the_wire() {
        let (mut p, w) = player();
        let start = Position::startpos();
        for (score, ce) in [
            (rookery_core::Score::Cp(-37), "ce -37;"),
            (rookery_core::Score::Mate(2), "ce 32764;"),
        ] {
            let mut reply = ClientRecord::new(Request::Reply, start.clone());
            reply.sm = Some(SuppliedMove::Legal(san(&start, "d4")));
            reply.set_search(Some(score), Some(9), Some(12_345));
            let line = reply.to_line();
            for op in [ce, "acd 9;", "acn 12345;"] {
                assert!(line.contains(op), "{op} missing: {line}");
            }
            // As the referee reads it off the wire.
            let read = ClientRecord::parse(line.as_bytes()).unwrap();
            let got = ask(&mut p, &[], Some(read), &w).unwrap();
            assert_eq!(got.mv.to_string(), "d2d4");
            assert_eq!(
                (got.score, got.depth, got.nodes),
                (Some(score), Some(9), Some(12_345))
            );
        }
        // A reply without them carries none.
        let mut plain = ClientRecord::new(Request::Reply, start.clone());
        plain.sm = Some(SuppliedMove::Legal(san(&start, "d4")));
        let got = ask(&mut p, &[], Some(plain), &w).unwrap();
        assert_eq!((got.score, got.depth, got.nodes), (None, None, None));
    }

    #[test]
    fn a_resumed_game_is_replayed_as_execute_records_after_reset_and_inform() {
        let (p, w) = player();
        let start = Position::startpos();
        let e4 = san(&start, "e4");
        let mut after = start.clone();
        after.play_unchecked(e4);
        let e5 = san(&after, "e5");
        let rec = move_record;
        let moves = [rec("e2e4", 1500), rec("e7e5", 2500)];
        let mut p = p.replaying(&moves, 2).unwrap();
        p.new_game(false).unwrap();
        let got: Vec<RefereeRecord> = w.sent.try_iter().collect();
        let commands: Vec<Command> = got.iter().map(|r| r.command).collect();
        assert_eq!(
            commands,
            [
                Command::Reset,
                Command::Inform,
                Command::Execute,
                Command::Execute
            ]
        );
        assert_eq!((got[2].position.clone(), got[2].sm), (start, Some(e4)));
        assert_eq!((got[3].position.clone(), got[3].sm), (after, Some(e5)));
        assert_eq!(
            got[3].cc,
            Some([Duration::from_millis(1500), Duration::from_millis(2500)])
        );
        let (p, _) = player();
        assert!(p.replaying(&[rec("e2e5", 1)], 1).is_err());
    }

    #[test]
    fn a_game_on_hold_is_not_concluded() {
        let (p, w) = player();
        let hold = Arc::new(AtomicBool::new(true));
        let mut p = p.holding(hold.clone());
        let record = game_record(Vec::new());
        p.game_over(&record, &Position::startpos());
        assert!(w.sent.try_recv().is_err(), "nothing is sent while on hold");
        hold.store(false, Ordering::SeqCst);
        p.game_over(&record, &Position::startpos());
        assert_eq!(w.sent.try_recv().unwrap().command, Command::Inform);
    }

    #[test]
    fn a_reply_without_hmvc_and_fmvn_is_on_the_games_position() {
        // 1. Nf3 e5: White to move at move 2 with a halfmove clock of 0,
        // and after 2. Nc3 Nc6 at move 3 with a clock of 2.
        for (moves, reply) in [
            (&["Nf3", "e5"][..], "Nc3"),
            (&["Nf3", "e5", "Nc3", "Nc6"][..], "d3"),
        ] {
            let (mut p, w) = player();
            let (pos, played) = line(moves);
            let four = rookery_epd::Record::new(pos.clone()).to_string();
            // What a client writes from §8.1 alone: the four fields and sm.
            let text = format!("{four} refreq reply; sm {reply};");
            let read = ClientRecord::parse(text.as_bytes()).unwrap();
            let got = ask(&mut p, &played, Some(read), &w);
            let want = UciMove::from_move(&pos, san(&pos, reply), CastlingMode::Standard);
            assert!(matches!(&got, Ok(r) if r.mv == want), "{text}: {got:?}");
            // The clocks it carries are checked: a wrong one breaks the rules.
            for wrong in ["fmvn 1;", "hmvc 7;"] {
                let text = format!("{four} {wrong} refreq reply; sm {reply};");
                let read = ClientRecord::parse(text.as_bytes()).unwrap();
                let got = ask(&mut p, &played, Some(read), &w);
                assert!(
                    matches!(&got, Err(PlayerError::Protocol(m)) if m.contains(wrong)),
                    "{text}: {got:?}"
                );
            }
        }
    }

    #[test]
    fn records_write_the_en_passant_square_of_a_double_advance() {
        // 1. e4 c5: no capture is possible, but §4.4 writes e3, then c6.
        let (mut p, w) = player();
        let (pos, played) = line(&["e4", "c5"]);
        let mut reply = ClientRecord::new(Request::Reply, pos.clone());
        reply.sm = Some(SuppliedMove::Legal(san(&pos, "Nf3")));
        ask(&mut p, &played, Some(reply), &w).unwrap();
        let respond = w.sent.recv().unwrap().to_line();
        assert!(
            respond.starts_with("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 ")
                && respond.contains(" fmvn 1; hmvc 0; refcom respond; sm c5;"),
            "{respond}"
        );
        // The records after the last move carry the final position.
        let record = game_record(vec![move_record("e2e4", 0), move_record("c7c5", 0)]);
        p.game_over(&record, &pos);
        let sent: Vec<String> = w.sent.try_iter().map(|r| r.to_line()).collect();
        assert_eq!(sent.len(), 2, "{sent:?}");
        for (line, command) in sent.iter().zip(["inform", "conclude"]) {
            assert!(
                line.starts_with("rnbqkbnr/pp1ppppp/8/2p5/4P3/8/PPPP1PPP/RNBQKBNR w KQkq c6 ")
                    && line.contains(" fmvn 2; hmvc 0; ")
                    && line.contains(&format!(" refcom {command};")),
                "{line}"
            );
        }
    }

    #[test]
    fn wrong_position_illegal_move_silence_and_departure() {
        let (mut p, w) = player();
        let start = Position::startpos();
        // A reply on the start position when e4 was played: not the game's.
        let e4 = san(&start, "e4");
        let wrong = ClientRecord::new(Request::Reply, start.clone());
        assert!(matches!(
            ask(&mut p, &[e4], Some(wrong), &w),
            Err(PlayerError::Protocol(_))
        ));
        let mut bad = ClientRecord::new(Request::Reply, start.clone());
        bad.sm = Some(SuppliedMove::Illegal("Ke5".into()));
        assert!(
            matches!(ask(&mut p, &[], Some(bad), &w), Err(PlayerError::IllegalMove(m)) if m == "Ke5")
        );
        assert!(matches!(
            ask(&mut p, &[], None, &w),
            Err(PlayerError::Timeout { .. })
        ));
        assert!(!w.awaiting.load(Ordering::SeqCst));
        let mut resign = ClientRecord::new(Request::Reply, start.clone());
        resign.offer = Some(Offer::Resign);
        assert_eq!(
            ask(&mut p, &[], Some(resign), &w).unwrap().offer,
            Some(Offer::Resign)
        );
        w.replies.send(Inbound::Gone("signed off".into())).unwrap();
        assert!(matches!(
            ask(&mut p, &[], None, &w),
            Err(PlayerError::Crashed(_))
        ));
    }
}
