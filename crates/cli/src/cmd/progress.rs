//! Progress bars on stderr (indicatif hides them when stderr is not a terminal).

use indicatif::{ProgressBar, ProgressStyle};

/// A bar for `total` units (a spinner with a count when unknown), with an ETA.
pub fn bar(what: &str, total: Option<u64>) -> ProgressBar {
    let pb = match total {
        Some(n) => ProgressBar::new(n),
        None => ProgressBar::new_spinner(),
    };
    let template = if total.is_some() {
        "{msg} [{bar:30}] {pos}/{len} {elapsed} ETA {eta}"
    } else {
        "{msg} {spinner} {pos} {elapsed}"
    };
    if let Ok(style) = ProgressStyle::with_template(template) {
        pb.set_style(style.progress_chars("=> "));
    }
    pb.set_message(what.to_string());
    pb
}

/// The number of non-empty lines of a file, counted in constant memory (for a
/// progress bar's total); `None` for stdin or a file that cannot be read.
pub fn count_lines(path: &std::path::Path) -> Option<u64> {
    use std::io::Read;
    if path.as_os_str() == "-" {
        return None;
    }
    // The text, decompressed if the file is compressed.
    let mut file = rookery_io::input::Input::open(path).ok()?;
    let mut buf = vec![0u8; 1 << 16];
    let (mut lines, mut in_line) = (0u64, false);
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        for &b in &buf[..n] {
            if b == b'\n' {
                lines += u64::from(in_line);
                in_line = false;
            } else {
                in_line = true;
            }
        }
    }
    Some(lines + u64::from(in_line))
}

/// Progress as lines on stderr, for a run whose stderr is not a terminal
/// (a cluster's job log, where a bar would be invisible or a mess): one
/// line every `every` items with the count, the rate and the time left.
pub struct Log {
    what: String,
    unit: &'static str,
    total: u64,
    every: u64,
    next: u64,
    start: std::time::Instant,
    /// Items done when the log started (a resumed run's): not counted in
    /// the rate.
    base: u64,
}

impl Log {
    /// A log of `total` items named `unit`, a line every `every` (none
    /// when `every` is 0 or stderr is a terminal, which has its bar).
    pub fn new(what: &str, unit: &'static str, total: u64, every: u64) -> Log {
        use std::io::IsTerminal;
        let every = if std::io::stderr().is_terminal() {
            0
        } else {
            every
        };
        Log {
            what: what.to_owned(),
            unit,
            total,
            every,
            next: every,
            start: std::time::Instant::now(),
            base: 0,
        }
    }

    /// Whether a line is due at `done` items (the caller may do its own
    /// periodic work then).
    pub fn due(&self, done: u64) -> bool {
        self.every > 0 && done >= self.next
    }

    /// Logs a line if one is due at `done` items; whether it did.
    pub fn set(&mut self, done: u64) -> bool {
        if !self.due(done) {
            return false;
        }
        while self.next <= done {
            self.next += self.every;
        }
        eprintln!("{}", self.line(done));
        true
    }

    /// Items done before this run (a resumed one): left out of the rate.
    pub fn resumed_at(&mut self, done: u64) {
        self.base = done;
    }

    /// The line for `done` items.
    fn line(&self, done: u64) -> String {
        let secs = self.start.elapsed().as_secs_f64();
        let fresh = done.saturating_sub(self.base);
        let rate = if secs > 0.0 { fresh as f64 / secs } else { 0.0 };
        let left = self.total.saturating_sub(done);
        let eta = if rate > 0.0 {
            duration(left as f64 / rate)
        } else {
            "?".to_owned()
        };
        let pct = if self.total > 0 {
            100.0 * done as f64 / self.total as f64
        } else {
            100.0
        };
        format!(
            "{}: {done}/{} {} ({pct:.1}%), {rate:.1} {}/s, ETA {eta}",
            self.what, self.total, self.unit, self.unit
        )
    }
}

/// Seconds as `1h02m03s`, `2m03s` or `3s`.
fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    let (h, m, s) = (s / 3600, s / 60 % 60, s % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}
