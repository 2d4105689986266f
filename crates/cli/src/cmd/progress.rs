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
