//! Server-Sent Events: `/api/stream` and `/games/N/stream`.
//!
//! A stream sends what it renders of the state at once and after every
//! change; a reader that falls behind skips states (the watch channel keeps
//! only the latest), so what a stream holds is one rendering at a time. The
//! view's rendering is shared by every subscriber of a version
//! ([`super::Feed::framed_view`]). A subscriber that does not read at all is
//! dropped by the connection's write-stall limit ([`super::WebLimits`]),
//! and the number of streams open at once is bounded
//! ([`super::WebLimits::max_streams`]).

use super::pgn::{self, Stored};
use axum::body::{Body, Bytes};
use axum::http::{header, HeaderValue};
use axum::response::Response;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{watch, OwnedSemaphorePermit};

/// A comment line goes out on a quiet event stream this often, so that
/// proxies and browsers keep it open.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// One Server-Sent Event carrying `text` (one `data:` line per line).
pub(super) fn event(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for line in text.split('\n') {
        out.push_str("data: ");
        out.push_str(line.trim_end_matches('\r'));
        out.push('\n');
    }
    out.push('\n');
    out
}

/// One rendering of a page's view as a Server-Sent Event, shared by every
/// subscriber of its version (rendered at most once per version).
#[derive(Clone, Default)]
pub(super) struct Framed(Arc<Mutex<Option<(u64, Bytes)>>>);

impl Framed {
    /// The event of `version`, `render`ed (to JSON) if not yet.
    pub(super) fn get(&self, version: u64, render: impl FnOnce() -> String) -> Bytes {
        let mut cache = self.0.lock().unwrap_or_else(|e| e.into_inner());
        match &*cache {
            Some((v, bytes)) if *v == version => bytes.clone(),
            _ => {
                let bytes = Bytes::from(event(&render()));
                *cache = Some((version, bytes.clone()));
                bytes
            }
        }
    }
}

/// What a stream sends next.
pub(super) enum Next {
    /// Nothing new.
    Nothing,
    /// This event, ready.
    Event(Bytes),
    /// A recorded game, to read from where it is stored and send as an
    /// event; the stream's last.
    Last(PathBuf, Stored),
}

struct Watch<T, F> {
    rx: watch::Receiver<T>,
    render: F,
    first: bool,
    done: bool,
    _slot: OwnedSemaphorePermit,
}

/// A Server-Sent Events response: `render` of the state at once and after
/// every change; the stream ends after [`Next::Last`], or when the event is
/// gone. `slot` is held as long as the stream is open. Any page's state
/// will do: the Argus event's and a match's share this.
pub(super) fn respond<T, F>(
    rx: watch::Receiver<T>,
    slot: OwnedSemaphorePermit,
    render: F,
) -> Response
where
    T: Send + Sync + 'static,
    F: FnMut(&T, bool) -> Next + Send + 'static,
{
    let state = Watch {
        rx,
        render,
        first: true,
        done: false,
        _slot: slot,
    };
    let stream = futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if s.done {
                return None;
            }
            if !s.first {
                match tokio::time::timeout(KEEP_ALIVE, s.rx.changed()).await {
                    Err(_) => {
                        let ping = Bytes::from_static(b": keep-alive\n\n");
                        return Some((Ok::<Bytes, std::io::Error>(ping), s));
                    }
                    // The event is gone: what it left is the last word.
                    Ok(Err(_)) => s.done = true,
                    Ok(Ok(())) => {}
                }
            }
            let first = std::mem::take(&mut s.first);
            let next = {
                let state = s.rx.borrow_and_update();
                (s.render)(&state, first)
            };
            match next {
                Next::Nothing => {}
                Next::Event(bytes) => return Some((Ok(bytes), s)),
                Next::Last(file, stored) => {
                    s.done = true;
                    let text = match pgn::load(file, vec![stored]).await {
                        Ok(b) => b,
                        Err(e) => return Some((Err(e), s)),
                    };
                    let text = String::from_utf8_lossy(&text);
                    let event = event(text.strip_suffix('\n').unwrap_or(&text));
                    return Some((Ok(Bytes::from(event)), s));
                }
            }
        }
    });
    let mut r = Response::new(Body::from_stream(stream));
    let h = r.headers_mut();
    h.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/event-stream"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_framed_line_by_line() {
        assert_eq!(event("a\nb"), "data: a\ndata: b\n\n");
        assert_eq!(event("a\r\n"), "data: a\ndata: \n\n");
    }
}
