//! The UCI protocol in both directions: typed messages and the host side that drives external engines (work in progress).
