//! Prints every diagnostic for the files given (a development aid).
use std::io::BufReader;

fn main() -> std::io::Result<()> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mode = if args.first().map(String::as_str) == Some("--strict") {
        args.remove(0);
        rookery_epd::Mode::Strict
    } else {
        rookery_epd::Mode::Lenient
    };
    for path in args {
        let f = BufReader::new(std::fs::File::open(&path)?);
        let s = rookery_epd::verbs::validate(f, mode, |d| println!("{path}:{d}"))?;
        println!("{path}: {s:?}");
    }
    Ok(())
}
