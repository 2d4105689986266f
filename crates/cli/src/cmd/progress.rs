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
