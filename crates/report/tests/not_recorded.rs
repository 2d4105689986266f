//! A suite nobody analysed is an input error, said once; records some of
//! which were not analysed are each an error at their line; a figure no
//! record carries (nodes, time) is shown as not recorded (an en dash in
//! text and HTML, an empty CSV field, JSON `null`), never as a 0 nobody
//! measured; the text table's columns are wide enough for what they hold.

use rookery_report::{load_input, Input, Report, ReportError, ThemeSource};

/// Three records of Win At Chess (the wac suite), as the suite has them:
/// best moves and ids, no analysis.
const SUITE: &str =
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";\n\
8/7p/5k2/5p2/p1p2P2/Pr1pPK2/1P1R3P/8 b - - bm Rxb2; id \"WAC.002\";\n\
5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - bm Rg3; id \"WAC.003\";\n";

fn load(name: &str, text: &str) -> Input {
    load_input(name, text.as_bytes(), &ThemeSource::IdPrefix).expect("EPD is read")
}

fn report(input: Input) -> Report {
    Report::from_inputs(vec![input], &ThemeSource::IdPrefix, 0.05)
}

#[test]
fn a_suite_nobody_analysed_is_one_input_error() {
    let input = load("wac.epd", &format!("# Win At Chess\n{SUITE}"));
    let problems: Vec<String> = input.problems.iter().map(ToString::to_string).collect();
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .starts_with("wac.epd:2:1: no record is analysed (none of the 3 has pm, pv or ce)"),
        "{problems:?}"
    );
    // The run is still there, every position an error.
    let r = report(input);
    assert_eq!((r.summaries[0].total, r.summaries[0].errors), (3, 3));
}

#[test]
fn each_record_not_analysed_among_analysed_ones_is_an_error_at_its_line() {
    let mut lines: Vec<String> = SUITE.lines().map(str::to_owned).collect();
    lines[1].push_str(" pm Rxb2; acn 1000;");
    let input = load("part.epd", &(lines.join("\n") + "\n"));
    let problems: Vec<(usize, String)> = input
        .problems
        .iter()
        .map(|p| match p {
            ReportError::Epd { line, message, .. } => (*line, message.clone()),
            other => panic!("{other}"),
        })
        .collect();
    let not = "not analysed: no pm, pv or ce".to_string();
    assert_eq!(problems, [(1, not.clone()), (3, not)]);
}

const ANALYSED_NO_FIGURES: &str =
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"m.1\"; pm Rd8#;\n\
     k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"m.2\"; pm Kb6;\n";

#[test]
fn figures_not_recorded_are_not_zeros() {
    let input = load("bare.epd", ANALYSED_NO_FIGURES);
    assert!(input.problems.is_empty(), "{:?}", input.problems);
    let r = report(input);
    assert_eq!((r.summaries[0].time_ms, r.summaries[0].nodes), (None, None));
    // Text: an en dash in the time and nodes columns.
    let text = r.text();
    let row = text.lines().nth(1).expect("a row");
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells[cells.len() - 3..],
        ["\u{2013}", "\u{2013}", "0"],
        "{row}"
    );
    // JSON: null.
    let json: serde_json::Value = serde_json::from_str(&r.json()).unwrap();
    assert_eq!(json["summaries"][0]["nodes"], serde_json::Value::Null);
    assert_eq!(json["summaries"][0]["time_ms"], serde_json::Value::Null);
    assert_eq!(
        json["runs"][0]["positions"][0]["nodes"],
        serde_json::Value::Null
    );
    assert_eq!(
        json["runs"][0]["positions"][0]["time_ms"],
        serde_json::Value::Null
    );
    // CSV: empty fields (nodes, time_ms).
    let csv = r.csv();
    let header: Vec<&str> = csv.lines().next().unwrap().split(',').collect();
    let row: Vec<&str> = csv.lines().nth(1).unwrap().split(',').collect();
    for column in ["nodes", "time_ms"] {
        let i = header.iter().position(|h| *h == column).unwrap();
        assert_eq!(row[i], "", "{column} in {csv}");
    }
    // HTML: the totals row.
    #[cfg(feature = "html")]
    {
        let page = r.html("t").unwrap();
        let totals = page
            .split("<tr class=\"run\">")
            .nth(1)
            .and_then(|t| t.split("</tr>").next())
            .unwrap();
        assert_eq!(totals.matches("<td>\u{2013}</td>").count(), 3, "{totals}");
    }
    // Recorded figures, zeros included, are shown.
    let with = ANALYSED_NO_FIGURES.replace("pm Kb6;", "pm Kb6; acn 0; acs 2;");
    let r = report(load("with.epd", &with));
    assert_eq!(
        (r.summaries[0].time_ms, r.summaries[0].nodes),
        (Some(2000), Some(0))
    );
    let row = r.text().lines().nth(1).unwrap().to_owned();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(cells[cells.len() - 3..], ["2.0", "0", "0"], "{row}");
}

#[test]
fn the_limits_column_holds_what_an_epd_run_says() {
    let r = report(load("bare.epd", ANALYSED_NO_FIGURES));
    let text = r.text();
    let limits = &r.summaries[0].limits;
    assert!(limits.len() > 18, "a long entry: {limits}");
    assert!(
        text.lines().nth(1).unwrap().contains(limits.as_str()),
        "{text}"
    );
    // The header's columns stand over the rows' columns.
    let header = text.lines().next().unwrap();
    let row = text.lines().nth(1).unwrap();
    assert_eq!(
        header.find("solved").map(|i| i + 6),
        row.find("2/2").map(|i| i + 3)
    );
}
