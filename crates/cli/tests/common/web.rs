//! What the tests of rookery's web pages share: plain HTTP/1.0 requests
//! written without rookery's code ([`get`]), a Server-Sent Events reader
//! ([`Events`]), a JSON feed read and polled ([`json`], [`poll`]), a
//! child's output read line by line on a thread ([`lines`]), and a page
//! looked at in headless Chromium ([`Browser`]), every wait bounded.

use rookery_testkit::peer;
use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::{Duration, Instant};

/// The longest one read from a page's server may block.
const READ_WAIT: Duration = Duration::from_secs(120);

/// A response: status, headers (lower-case names), body.
pub struct Reply {
    /// The status code (0 when the status line could not be read).
    pub status: u16,
    /// The status line and headers, lower-case.
    pub head: String,
    /// The body as text.
    pub body: String,
}

/// `GET path` over HTTP/1.0 (the server closes the connection after the
/// body, so no chunking).
pub fn get(addr: &str, path: &str) -> Reply {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(READ_WAIT)).unwrap();
    write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let raw = String::from_utf8(raw).unwrap();
    let (head, body) = raw.split_once("\r\n\r\n").unwrap_or((&raw, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    Reply {
        status,
        head: head.to_ascii_lowercase(),
        body: body.to_string(),
    }
}

/// The JSON at `path`: answered 200, as `application/json`.
pub fn json(web: &str, path: &str) -> Value {
    let r = get(web, path);
    assert_eq!(r.status, 200, "{path}: {}", r.body);
    assert!(
        r.head.contains("content-type: application/json"),
        "{path}: {}",
        r.head
    );
    serde_json::from_str(&r.body).unwrap()
}

/// Reads the JSON at `path` every 100 ms until `ok` holds, for at most
/// `wait` (`what` names it in the failure).
pub fn poll(
    web: &str,
    path: &str,
    what: &str,
    wait: Duration,
    ok: impl Fn(&Value) -> bool,
) -> Value {
    let t = Instant::now();
    loop {
        let v = json(web, path);
        if ok(&v) {
            return v;
        }
        assert!(t.elapsed() < wait, "no {what} within {wait:?}: {v}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// An open Server-Sent Events stream.
pub struct Events(BufReader<TcpStream>);

impl Events {
    /// Opens the stream at `path`: answered 200, as `text/event-stream`.
    pub fn open(addr: &str, path: &str) -> Events {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_read_timeout(Some(READ_WAIT)).unwrap();
        write!(s, "GET {path} HTTP/1.0\r\nHost: {addr}\r\n\r\n").unwrap();
        let mut r = BufReader::new(s);
        let mut head = String::new();
        loop {
            let mut line = String::new();
            r.read_line(&mut line).unwrap();
            if line.trim_end().is_empty() {
                break;
            }
            head.push_str(&line.to_ascii_lowercase());
        }
        assert!(
            head.starts_with("http/1.") && head.contains(" 200"),
            "{head}"
        );
        assert!(head.contains("content-type: text/event-stream"), "{head}");
        Events(r)
    }

    /// The next event's data (its `data:` lines joined), skipping comments.
    pub fn next(&mut self) -> String {
        let mut data: Vec<String> = Vec::new();
        loop {
            let mut line = String::new();
            let n = self.0.read_line(&mut line).unwrap();
            assert!(n > 0, "the stream ended");
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if data.is_empty() {
                    continue;
                }
                return data.join("\n");
            }
            if let Some(d) = line.strip_prefix("data:") {
                data.push(d.strip_prefix(' ').unwrap_or(d).to_string());
            }
        }
    }
}

/// Spawns `rookery referee serve --config CFG` on loopback with its
/// spectator page, from `cmd` (`rookery` itself, or a shell that runs it
/// under a limit): its stdin and stdout piped, its stderr written to
/// `dir/serve.stderr`.
pub fn spawn_referee(mut cmd: Command, cfg: &Path, dir: &Path) -> Child {
    let stderr = std::fs::File::create(dir.join("serve.stderr")).unwrap();
    cmd.args(["referee", "serve", "--config"])
        .arg(cfg)
        .args(["--listen", "127.0.0.1:0", "--web", "127.0.0.1:0"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// The `host:port` of the spectator page at `url`, as the referee prints
/// it (`http://host:port/`).
pub fn page_host(url: &str) -> String {
    url.strip_prefix("http://")
        .and_then(|u| u.strip_suffix('/'))
        .unwrap_or_else(|| panic!("not a page address: {url:?}"))
        .to_string()
}

/// The lines of a child's output, read on a thread of their own until it
/// closes it or the receiver is gone.
pub fn lines(out: impl Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = channel();
    std::thread::spawn(move || {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    rx
}

/// The next line of `rx`, waiting at most `wait` (`what` names it in the
/// failure).
pub fn next_line(rx: &Receiver<String>, what: &str, wait: Duration) -> String {
    rx.recv_timeout(wait)
        .unwrap_or_else(|e| panic!("no {what} within {wait:?}: {e}"))
}

/// Headless Chromium driven over the DevTools protocol by one of the
/// scripts of tests/python, run with python3.
pub struct Browser {
    chromium: PathBuf,
    python: PathBuf,
}

impl Browser {
    /// Chromium and python3, or `None` for the test to return early (a
    /// missing one fails the test under `CI`, see [`peer::missing`]).
    pub fn find() -> Option<Browser> {
        let chromium = peer::chromium()?;
        let python = peer::require("python3", &["python3"], None)?;
        Some(Browser { chromium, python })
    }

    /// Runs `tests/python/SCRIPT CHROMIUM URL PROFILE ARGS...` (`profile`:
    /// the browser's own profile directory) and returns the JSON it prints,
    /// which must report no `error` from a script that succeeded.
    pub fn look(&self, script: &str, url: &str, profile: &Path, args: &[&str]) -> Value {
        let out = Command::new(&self.python)
            .arg(python_script(script))
            .arg(&self.chromium)
            .arg(url)
            .arg(profile)
            .args(args)
            .output()
            .unwrap();
        let said = String::from_utf8_lossy(&out.stdout);
        let seen: Value = serde_json::from_str(said.trim())
            .unwrap_or_else(|e| panic!("{e}: {said}\n{}", String::from_utf8_lossy(&out.stderr)));
        assert!(
            out.status.success() && seen.get("error").is_none(),
            "{seen}"
        );
        seen
    }
}

/// The path of `name` in tests/python.
pub fn python_script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/python")
        .join(name)
}
