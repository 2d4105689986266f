//! Gastric-style reports from test-suite results (work in progress).
