//! pfop keeps everything it does not remove: the position fields, the other
//! operations (parsed again, they are the input's minus the purged ones),
//! the line endings.

use rookery_epd::verbs::purge;
use rookery_epd::{Mode, Record};

const DIR: &str = "tests/data/suites";

fn purge_text(input: &[u8], ops: &[&str]) -> Vec<u8> {
    let mut out = Vec::new();
    purge(input, &mut out, ops, Mode::Lenient, |_| {}).unwrap();
    out
}

#[test]
fn an_operation_glued_to_the_removed_one_keeps_the_fields_intact() {
    let line = b"6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id \"x\";bm Rd8#;\n";
    let out = purge_text(line, &["id"]);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;\n"
    );
}

#[test]
fn line_endings_are_kept() {
    let text =
        b"# suite\r\n6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"x\";\r\nnot a record\r\n\
4k3/8/8/8/8/8/8/4K3 w - - id \"y\";\n";
    let out = purge_text(text, &["id"]);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        "# suite\r\n6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#;\r\nnot a record\r\n\
4k3/8/8/8/8/8/8/4K3 w - -\n"
    );
}

/// Every opcode of every bundled suite, purged one at a time: every record
/// still reads, with the same position and the other operations unchanged.
#[test]
fn purging_any_opcode_of_any_suite_keeps_the_rest_of_every_record() {
    let mut checked = 0usize;
    for entry in std::fs::read_dir(DIR).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "epd") {
            continue;
        }
        let text = std::fs::read(&path).unwrap();
        let lines: Vec<&[u8]> = text.split_inclusive(|&b| b == b'\n').collect();
        let records: Vec<Option<Record>> = lines
            .iter()
            .map(|l| std::str::from_utf8(l).ok()?.trim_end().parse().ok())
            .collect();
        let mut opcodes: Vec<String> = records
            .iter()
            .flatten()
            .flat_map(|r| r.operations().map(|o| o.opcode().to_string()))
            .collect();
        opcodes.sort();
        opcodes.dedup();
        for op in &opcodes {
            let out = purge_text(&text, &[op.as_str()]);
            let out_lines: Vec<&[u8]> = out.split_inclusive(|&b| b == b'\n').collect();
            assert_eq!(
                out_lines.len(),
                lines.len(),
                "{}: line count",
                path.display()
            );
            for (i, (rec, got)) in records.iter().zip(&out_lines).enumerate() {
                let Some(rec) = rec else { continue };
                // The line ending is the input's.
                assert_eq!(
                    lines[i].ends_with(b"\r\n"),
                    got.ends_with(b"\r\n"),
                    "{}:{}",
                    path.display(),
                    i + 1
                );
                let got_text = std::str::from_utf8(got).unwrap().trim_end();
                let mut again: Record = got_text.parse().unwrap_or_else(|e| {
                    panic!(
                        "{}:{}: purged {op}: {got_text:?}: {e}",
                        path.display(),
                        i + 1
                    )
                });
                let mut want = rec.clone();
                want.remove(op);
                // FEN clocks stay in the text (and read as hmvc/fmvn again).
                again.remove(op);
                assert_eq!(
                    again.to_string(),
                    want.to_string(),
                    "{}:{}: purged {op}",
                    path.display(),
                    i + 1
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} records checked");
}
