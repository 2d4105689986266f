//! The command line's tests, one test binary (ripgrep's layout: one link
//! instead of one a file). Each module is one area, run against the built
//! `rookery` and `rookery-engine`; `cargo test -p rookery --test main
//! referee_argus::` runs one module's tests. What they share is in
//! [`common`].

mod common;

mod analysis;
mod book_cli;
mod cli_core;
mod cluster_slurm;
mod compressed;
mod data_safety;
mod db_cli;
mod db_headers;
mod db_scan;
mod db_serve;
mod db_shard;
mod engine_bench;
mod engine_extremes;
mod epd_cli;
mod guide_runs;
mod match_cli;
mod match_compat;
mod match_frameworks;
mod match_knockout;
mod match_ponder;
mod match_shard;
mod match_web;
mod perft_stockfish;
mod pgn_annotate;
mod pgn_cli;
mod pgn_collection;
mod pgn_eco;
mod pgn_filter;
mod referee_argus;
mod referee_hostile;
mod referee_resume;
mod referee_runner;
mod referee_spec_client;
mod referee_web;
mod referee_web_limits;
mod report_chromium;
mod report_cli;
mod shard_cli;
mod shard_copy;
mod shard_suite;
mod snapshots;
mod uci_hostile;
mod uci_python;
mod usage;
mod verdicts;
mod xboard_match;
