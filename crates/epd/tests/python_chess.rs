//! Differential test: python-chess reads our normalized output and finds the
//! same position and the same operations (bm/am/pv as moves, id, and every
//! other operand) as it reads from the original, line for line.
//!
//! Needs `python3` with the `chess` package; fails if `CI` is set and they
//! are missing, skips with a note otherwise.

use rookery_epd::{verbs::normalize, Mode};
use rookery_testkit::cmd::Cmd;

const SCRIPT: &str = r##"
import json, sys
import chess

def ops_as_data(board, ops):
    out = {}
    for k, v in ops.items():
        if isinstance(v, chess.Move):
            v = v.uci()
        elif isinstance(v, list):
            v = [m.uci() if isinstance(m, chess.Move) else m for m in v]
            if k in ("bm", "am"):
                v = sorted(v)
        out[k] = v
    return out

result = {"compared": 0, "orig_unreadable": 0, "mismatches": []}
for orig_path, norm_path in zip(sys.argv[1::2], sys.argv[2::2]):
    orig = open(orig_path, encoding="utf-8").read().splitlines()
    norm = open(norm_path, encoding="utf-8").read().splitlines()
    if len(orig) != len(norm):
        result["mismatches"].append([orig_path, 0, "line count %d != %d" % (len(orig), len(norm))])
        continue
    for i, (a, b) in enumerate(zip(orig, norm), 1):
        if not a.strip() or a.lstrip().startswith("#"):
            if a != b:
                result["mismatches"].append([orig_path, i, "passed-through line changed"])
            continue
        try:
            ba, oa = chess.Board.from_epd(a)
        except Exception:
            result["orig_unreadable"] += 1
            continue
        try:
            bb, ob = chess.Board.from_epd(b)
        except Exception as e:
            result["mismatches"].append([orig_path, i, "normalized unreadable: %s" % e])
            continue
        result["compared"] += 1
        if ba.epd() != bb.epd():
            result["mismatches"].append([orig_path, i, "position %s != %s" % (ba.epd(), bb.epd())])
        da, db = ops_as_data(ba, oa), ops_as_data(bb, ob)
        if da != db:
            result["mismatches"].append([orig_path, i, "ops %r != %r" % (da, db)])
print(json.dumps(result))
"##;

#[test]
fn python_chess_reads_normalized_output_the_same() {
    let Some(python) = rookery_testkit::peer::python_chess() else {
        return;
    };
    let dir = rookery_testkit::TempDir::new("epd-python");
    let mut args = Vec::new();
    for entry in std::fs::read_dir("tests/data/suites").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|x| x != "epd") {
            continue;
        }
        let data = std::fs::read(&path).unwrap();
        let mut out = Vec::new();
        normalize(data.as_slice(), &mut out, Mode::Lenient, |_| {}).unwrap();
        let norm = dir.join(path.file_name().unwrap());
        std::fs::write(&norm, out).unwrap();
        args.push(path.canonicalize().unwrap());
        args.push(norm);
    }
    let out = Cmd::new(&python).arg("-c").arg(SCRIPT).args(&args).run();
    drop(dir);
    out.assert_code(0);
    let stdout = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(v["mismatches"], serde_json::json!([]), "{stdout}");
    // python-chess reads every record of the suites except the six-field
    // FEN lines (ccr-one-hour: 25, nullmove-zugzwang: 5) and the Chest-style
    // `bm #N` of mates2000 (2000): 5587 record lines in all.
    assert_eq!(v["orig_unreadable"], 2030, "{stdout}");
    assert_eq!(v["compared"], 5587 - 2030, "{stdout}");
}
