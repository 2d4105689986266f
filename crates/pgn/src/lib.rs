//! Streaming PGN reading and writing, game trees and PGN <-> EPD conversion (work in progress).
