//! The rookery chess engine: evaluation, search and its UCI loop (work in progress).
