//! An engine of either protocol as one [`Player`]: [`EngineConfig::start`]
//! starts the program of a configuration in the protocol of its `proto=`
//! word, a [`UciPlayer`] or an [`XboardPlayer`], as an [`EnginePlayer`].

use crate::player::{
    EngineConfig, EngineLog, MoveReply, MoveRequest, Player, PlayerError, Protocol,
};
use crate::uci::UciPlayer;
use crate::xboard::XboardPlayer;
use rookery_core::Position;
use rookery_uci::host::Timeouts;

impl EngineConfig {
    /// Starts the engine in the protocol of its `proto=` word. Every line
    /// sent and received goes to `log` when given.
    ///
    /// # Errors
    /// [`PlayerError::Start`].
    pub fn start(
        &self,
        timeouts: Timeouts,
        log: Option<EngineLog>,
    ) -> Result<EnginePlayer, PlayerError> {
        match self.proto {
            Protocol::Uci => UciPlayer::start(self.clone(), timeouts, log)
                .map(|p| EnginePlayer::Uci(Box::new(p))),
            Protocol::Xboard => XboardPlayer::start(self.clone(), timeouts, log)
                .map(|p| EnginePlayer::Xboard(Box::new(p))),
        }
    }
}

/// An engine of an [`EngineConfig`], in the protocol it speaks.
pub enum EnginePlayer {
    /// A UCI engine (or the built-in one).
    Uci(Box<UciPlayer>),
    /// An xboard engine.
    Xboard(Box<XboardPlayer>),
}

impl EnginePlayer {
    /// Options of its configuration the engine does not have, skipped when
    /// it started (unless [`EngineConfig::strict_options`]).
    pub fn skipped_options(&self) -> &[String] {
        match self {
            EnginePlayer::Uci(p) => p.skipped_options(),
            EnginePlayer::Xboard(p) => p.skipped_options(),
        }
    }

    /// Options of its configuration set to a value the engine does not
    /// take, skipped when it started (xboard engines: none; their options
    /// are not checked): (option, value).
    pub fn refused_values(&self) -> &[(String, String)] {
        match self {
            EnginePlayer::Uci(p) => p.refused_values(),
            EnginePlayer::Xboard(_) => &[],
        }
    }

    fn inner(&mut self) -> &mut dyn Player {
        match self {
            EnginePlayer::Uci(p) => p.as_mut(),
            EnginePlayer::Xboard(p) => p.as_mut(),
        }
    }
}

impl Player for EnginePlayer {
    fn name(&self) -> &str {
        match self {
            EnginePlayer::Uci(p) => p.name(),
            EnginePlayer::Xboard(p) => p.name(),
        }
    }
    fn new_game(&mut self, chess960: bool) -> Result<(), PlayerError> {
        self.inner().new_game(chess960)
    }
    fn prepare(&mut self, request: &MoveRequest<'_>) -> Result<(), PlayerError> {
        self.inner().prepare(request)
    }
    fn request_move(&mut self, request: &MoveRequest<'_>) -> Result<MoveReply, PlayerError> {
        self.inner().request_move(request)
    }
    fn restart(&mut self) -> Result<(), PlayerError> {
        self.inner().restart()
    }
    fn quit(&mut self) {
        self.inner().quit();
    }
    fn game_over(&mut self, record: &crate::record::GameRecord, last: &Position) {
        self.inner().game_over(record, last);
    }
}
