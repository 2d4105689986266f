//! Test fixtures and a scriptable mock UCI engine for rookery's own tests (work in progress).
