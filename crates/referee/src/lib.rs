//! The EPD referee server (refcom/refreq over TCP) and tournament management (work in progress).

pub mod stats;
