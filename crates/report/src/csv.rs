//! The report as CSV (RFC 4180): one row per position of every run, for a
//! spreadsheet or a script.

use crate::model::SuiteRun;

/// The header row's fields.
pub const COLUMNS: [&str; 18] = [
    "run",
    "suite",
    "engine",
    "index",
    "id",
    "theme",
    "expected",
    "answer",
    "solved",
    "points",
    "max_points",
    "score",
    "depth",
    "nodes",
    "time_ms",
    "time_to_solution_ms",
    "nodes_to_solution",
    "error",
];

/// One field, quoted when it holds a comma, a quote or a line break.
fn field(out: &mut String, s: &str) {
    if s.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// The CSV text: a header, then one row per position (runs numbered from
/// 1); `themes[i][j]` is the theme of position `j` of run `i` (empty if
/// absent). A figure not recorded (nodes, time, depth, ...) is an empty
/// field. Lines end in CRLF, as RFC 4180 says.
pub fn render(runs: &[SuiteRun], themes: &[Vec<String>]) -> String {
    let mut s = COLUMNS.join(",");
    s.push_str("\r\n");
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for (i, run) in runs.iter().enumerate() {
        for (j, p) in run.positions.iter().enumerate() {
            let theme = themes
                .get(i)
                .and_then(|t| t.get(j))
                .map_or("", String::as_str);
            let fields = [
                (i + 1).to_string(),
                run.suite.clone(),
                run.engine.clone(),
                p.index.to_string(),
                p.id.clone().unwrap_or_default(),
                theme.to_string(),
                p.expected_text(),
                p.answer.clone().unwrap_or_default(),
                if !p.is_scorable() {
                    String::new()
                } else {
                    u8::from(p.solved).to_string()
                },
                p.points.to_string(),
                p.max_points.to_string(),
                p.score.map_or(String::new(), |sc| sc.pawns().to_string()),
                opt(p.depth.map(u64::from)),
                opt(p.nodes),
                opt(p.time_ms),
                opt(p.time_to_solution_ms),
                opt(p.nodes_to_solution),
                p.error.clone().unwrap_or_default(),
            ];
            for (k, f) in fields.iter().enumerate() {
                if k > 0 {
                    s.push(',');
                }
                field(&mut s, f);
            }
            s.push_str("\r\n");
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting() {
        let mut s = String::new();
        field(&mut s, "plain");
        s.push('|');
        field(&mut s, "a, \"b\"");
        assert_eq!(s, "plain|\"a, \"\"b\"\"\"");
    }
}
