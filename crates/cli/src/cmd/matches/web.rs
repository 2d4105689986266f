//! `rookery match --web ADDR`: the match's live page (standings, W/D/L and
//! pairs, Elo, the LLR's path, pace and ETA, the games in progress and the
//! finished ones), served by the Argus spectator page's server with its
//! limits while the match runs. With `--pool`, the counts are the pool's,
//! read again every few seconds.

use anyhow::Context;
use rookery_argus::web::{match_router, MatchPage, PoolFollower, WebServer};
use rookery_event::pool::Pool;
use rookery_event::tournament::MatchPlan;

/// Where the page listens when `--web` names no address: this machine
/// only, a free port.
pub(super) const DEFAULT_ADDRESS: &str = "127.0.0.1:0";

/// The page of a match in progress: its server runs on a runtime of its
/// own, apart from the match's threads, until this is dropped.
pub(super) struct Web {
    page: MatchPage,
    /// Reads the pool for the page (dropped before the runtime).
    _pool: Option<PoolFollower>,
    _runtime: tokio::runtime::Runtime,
}

impl Web {
    /// Binds `address` and serves the page of `plan`'s match; says where on
    /// standard error (`match page: http://ADDR/`).
    pub(super) fn start(address: &str, plan: &MatchPlan) -> anyhow::Result<Web> {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("match-web")
            .enable_all()
            .build()
            .context("cannot start the page's runtime")?;
        let server = runtime
            .block_on(WebServer::bind(address))
            .map_err(|e| crate::output::usage(format!("--web: {e}")))?;
        let bound = server.local_addr();
        let page = MatchPage::new(plan);
        let routes = match_router(page.feed(), server.limits());
        runtime.spawn(async move {
            if let Err(e) = server.serve(routes).await {
                eprintln!("match page stopped: {e}");
            }
        });
        eprintln!("match page: http://{bound}/");
        crate::cmd::referee::warn_if_open("match page", &bound.to_string());
        // The pool as the shards see it; one that cannot be opened is the
        // match's to report (it opens the same).
        let pool = match (&plan.pool, plan.shard, plan.schedule()) {
            (Some(dir), Some(shard), Ok(schedule)) => {
                Pool::open(dir, &plan.identity(), shard, schedule, plan.labels())
                    .ok()
                    .map(|p| page.follow_pool(p))
            }
            _ => None,
        };
        Ok(Web {
            page,
            _pool: pool,
            _runtime: runtime,
        })
    }

    /// What the match tells the page.
    pub(super) fn page(&self) -> &MatchPage {
        &self.page
    }
}
