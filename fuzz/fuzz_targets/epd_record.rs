//! EPD record reader: any bytes, both modes. Whatever reads must validate
//! without panicking and write text that reads back to the same text; the
//! streaming verbs must keep one output line per input line.

#![no_main]

use libfuzzer_sys::fuzz_target;
use rookery_epd::{verbs, Mode, Record};

fuzz_target!(|data: &[u8]| {
    for mode in [Mode::Strict, Mode::Lenient] {
        if let Ok((rec, _)) = Record::parse(data, mode) {
            let _ = rec.validate(mode);
            let text = rec.to_string();
            let (again, _) = Record::parse(text.as_bytes(), Mode::Lenient)
                .unwrap_or_else(|e| panic!("our output does not read back: {text}: {e}"));
            assert_eq!(again.to_string(), text);
            let _ = rec.to_fen();
        }
    }
    // Lines of input: every '\n', plus a last line without one.
    let lines = data.iter().filter(|&&c| c == b'\n').count()
        + usize::from(data.last().is_some_and(|&c| c != b'\n'));
    let mut out = Vec::new();
    verbs::normalize(data, &mut out, Mode::Lenient, |_| {}).expect("writing to a Vec");
    assert_eq!(out.iter().filter(|&&c| c == b'\n').count(), lines);
    out.clear();
    verbs::purge(data, &mut out, &["bm", "id"], Mode::Lenient, |_| {}).expect("writing to a Vec");
    // purge keeps each line's ending as it was, a missing last one included.
    let purged = out.iter().filter(|&&c| c == b'\n').count()
        + usize::from(out.last().is_some_and(|&c| c != b'\n'));
    assert_eq!(purged, lines);
});
