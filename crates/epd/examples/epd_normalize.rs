//! Normalizes a file to stdout and prints records/s to stderr (a benchmark
//! aid without the CLI's dependencies, reading as the CLI does, through
//! [`Latin1Read`](rookery_io::latin1::Latin1Read)):
//! `epd_normalize [--jobs N] FILE > out.epd`.
//! `epd_normalize --generate N > big.epd` writes N records cycled from the
//! test suites (every record line of every suite, files in name order).
use std::io::{BufReader, BufWriter};
use std::time::Instant;

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--generate") {
        let n: usize = args
            .get(1)
            .and_then(|n| n.parse().ok())
            .expect("--generate N");
        return generate(n);
    }
    let usage = "usage: epd_normalize [--jobs N] FILE | --generate N";
    let (jobs, path) = match args.as_slice() {
        [flag, n, path] if flag == "--jobs" => (n.parse::<usize>().expect(usage), path.clone()),
        [path] => (1, path.clone()),
        _ => panic!("{usage}"),
    };
    let input = BufReader::with_capacity(
        1 << 16,
        rookery_io::latin1::Latin1Read::new(std::fs::File::open(&path)?, |_| {}),
    );
    let out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let start = Instant::now();
    if std::env::var_os("EPD_CORE_ONLY").is_some() {
        // The four position fields alone (rookery-core), for comparison.
        use std::io::BufRead;
        let mut n = 0u64;
        let mut legal = 0usize;
        for line in input.split(b'\n') {
            let line = line?;
            if let Ok((setup, _)) =
                rookery_core::Setup::from_epd_prefix(&line, rookery_core::Mode::Lenient)
            {
                if let Ok((pos, _)) = setup.into_position(rookery_core::Mode::Lenient) {
                    n += 1;
                    if std::env::var_os("EPD_MOVEGEN").is_some() {
                        legal += pos.legal_moves().len();
                    }
                }
            }
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "core: {n} positions in {secs:.3} s: {:.0}/s ({legal})",
            n as f64 / secs
        );
        return Ok(());
    }
    if std::env::var_os("EPD_READ_ONLY").is_some() {
        // Reading alone (with validation), for comparison.
        let mut reader =
            rookery_epd::Reader::new(input, rookery_epd::Mode::Lenient).validating(true);
        let mut n = 0u64;
        while let Some(line) = reader.next_line()? {
            n += u64::from(matches!(line.kind, rookery_epd::LineKind::Record(_)));
        }
        let secs = start.elapsed().as_secs_f64();
        eprintln!(
            "read {n} records in {secs:.3} s: {:.0} records/s",
            n as f64 / secs
        );
        return Ok(());
    }
    let sum = rookery_epd::verbs::normalize_with_jobs(
        input,
        out,
        rookery_epd::Mode::Lenient,
        jobs,
        |_| {},
    )?;
    let secs = start.elapsed().as_secs_f64();
    eprintln!(
        "{} records in {secs:.3} s: {:.0} records/s ({sum:?})",
        sum.records,
        sum.records as f64 / secs
    );
    Ok(())
}

fn generate(n: usize) -> std::io::Result<()> {
    use std::io::Write;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/suites");
    let mut names: Vec<_> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    names.retain(|p| p.extension().is_some_and(|x| x == "epd"));
    names.sort();
    let mut lines = Vec::new();
    for path in names {
        for line in std::fs::read(&path)?.split(|&c| c == b'\n') {
            if !line.iter().all(u8::is_ascii_whitespace) && !line.starts_with(b"#") {
                lines.push(line.to_vec());
            }
        }
    }
    let mut out = BufWriter::new(std::io::stdout().lock());
    for line in lines.iter().cycle().take(n) {
        out.write_all(line)?;
        out.write_all(b"\n")?;
    }
    out.flush()
}
