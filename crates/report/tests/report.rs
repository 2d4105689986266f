//! Reports on a fixture of two runs over one three-position suite, with
//! totals and comparisons worked out by hand.

use rookery_report::{parse, Expected, PositionResult, Report, Score, SuiteRun};

fn pos(
    index: usize,
    solved: bool,
    answer: &str,
    score: i32,
    tts: Option<u64>,
    nodes: u64,
) -> PositionResult {
    PositionResult {
        index,
        id: Some(format!("T.{index:03}")),
        fen: "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -".into(),
        expected: Expected {
            bm: vec!["Rd8#".into()],
            ..Expected::default()
        },
        answer: Some(answer.into()),
        pv: vec![answer.into()],
        score: Some(Score::Cp(score)),
        depth: Some(5),
        nodes: Some(nodes),
        time_ms: Some(100),
        solved,
        points: u32::from(solved),
        max_points: 1,
        time_to_solution_ms: tts,
        nodes_to_solution: tts.map(|t| t * 1000),
        error: None,
    }
}

fn fixture() -> Vec<SuiteRun> {
    let a = SuiteRun {
        suite: "tiny".into(),
        engine: "alpha".into(),
        limits: "movetime 100 ms".into(),
        started: None,
        positions: vec![
            pos(1, true, "Rd8#", 30000, Some(5), 2_000),
            pos(2, true, "Rd8#", 300, Some(40), 50_000),
            pos(3, false, "h3", 10, None, 90_000),
        ],
    };
    let mut b = a.clone();
    b.engine = "beta".into();
    b.positions[1] = pos(2, false, "Kf1", 0, None, 60_000);
    b.positions[2] = pos(3, true, "Rd8#", 200, Some(70), 80_000);
    vec![a, b]
}

#[test]
fn totals_and_comparison() {
    let report = Report::new(fixture());
    let (a, b) = (&report.summaries[0], &report.summaries[1]);
    assert_eq!((a.solved, a.missed, a.total, a.points), (2, 1, 3, 2));
    assert_eq!((b.solved, b.missed), (2, 1));
    assert_eq!(a.nodes, Some(142_000));
    assert_eq!(a.time_ms, Some(300));
    // Median of 5 and 40.
    assert_eq!(a.median_time_to_solution_ms, Some(22));
    assert_eq!(a.missed_indices, vec![3]);

    assert_eq!(report.comparisons.len(), 1);
    let c = &report.comparisons[0];
    assert_eq!(c.solved_by_all, 1);
    assert!(c.solved_by_none.is_empty());
    assert_eq!(c.only_solved_by, vec![vec![2], vec![3]]);
    // Positions 2 and 3 differ in solving; position 1 agrees (same score).
    let idx: Vec<usize> = c.differences.iter().map(|d| d.index).collect();
    assert_eq!(idx, vec![2, 3]);
    assert_eq!(c.differences[0].score_spread, Some(300));
}

#[test]
fn text_report() {
    let text = Report::new(fixture()).text();
    assert!(text.contains("2/3"), "{text}");
    assert!(text.contains("missed by alpha on tiny (1):"), "{text}");
    assert!(text.contains("T.003 (bm Rd8# played h3)"), "{text}");
    assert!(text.contains("only alpha: 1 (#2)"), "{text}");
    assert!(text.contains("only beta: 1 (#3)"), "{text}");
}

#[test]
fn json_round_trip() {
    let runs = fixture();
    let json = serde_json::to_string(&runs).unwrap();
    assert_eq!(parse(&json).unwrap(), runs);
    let one = serde_json::to_string(&runs[0]).unwrap();
    assert_eq!(parse(&one).unwrap(), vec![runs[0].clone()]);
    let report: serde_json::Value = serde_json::from_str(&Report::new(runs).json()).unwrap();
    assert_eq!(report["summaries"][1]["solved"], 2);
    assert_eq!(report["comparisons"][0]["solved_by_all"], 1);
}

#[test]
fn json_errors_have_position() {
    let err = parse("{\n  \"suite\": 3\n}").unwrap_err();
    assert_eq!((err.line(), err.column()), (2, 12));
}

#[test]
#[cfg(feature = "html")]
fn html_report() {
    let html = Report::new(fixture()).html("tiny suite").unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.contains("<title>tiny suite</title>"));
    assert_eq!(html.matches("<tr class=\"run\">").count(), 2);
    // One solved chart, and time + nodes histograms per run.
    assert_eq!(html.matches("data-chart=\"solved\"").count(), 1);
    assert_eq!(html.matches("data-chart=\"time-to-solution\"").count(), 2);
    assert_eq!(html.matches("data-chart=\"nodes\"").count(), 2);
    // One diagram per missed position (one per run).
    assert_eq!(html.matches("<svg class=\"board\"").count(), 2);
    assert!(!html.contains("<script"));
    assert!(
        !html.contains("http://")
            || html.matches("http://").count()
                == html.matches("xmlns=\"http://www.w3.org/2000/svg\"").count()
    );
}

#[test]
fn paired_comparison_themes_curves_and_gates() {
    use rookery_report::{Gate, WorseRule};
    let report = Report::new(fixture());
    assert_eq!(report.paired.len(), 1);
    let p = &report.paired[0];
    assert_eq!((p.before, p.after), (0, 1));
    assert_eq!(p.gained, ["T.003"]);
    assert_eq!(p.lost, ["T.002"]);
    assert_eq!((p.matched, p.both_solved, p.neither_solved), (3, 1, 0));
    assert_eq!(p.p_value, 1.0);
    // Every id is "T.00n": one theme.
    assert_eq!(report.themes[0].rows.len(), 1);
    assert_eq!(report.themes[0].rows[0].theme, "T");
    assert_eq!(report.themes[0].rows[0].solved, 2);
    // Curves: alpha solves at 5 and 40 ms, beta at 5 and 70 ms.
    assert_eq!(report.curves.curves[0].points, vec![(5, 1), (40, 2)]);
    assert_eq!(report.curves.curves[1].points, vec![(5, 1), (70, 2)]);
    let text = report.text();
    assert!(text.contains("newly lost (1): T.002"), "{text}");
    // Gates: beta solves 2/3 = 66.7%, and loses as many as it gains.
    let gate = |fail_under, fail_if_worse| Gate {
        fail_under,
        fail_if_worse,
        alpha: 0.05,
    };
    assert!(report.gate(&gate(Some(66.0), None)).unwrap().is_empty());
    assert_eq!(report.gate(&gate(Some(67.0), None)).unwrap().len(), 1);
    assert!(report
        .gate(&gate(None, Some(WorseRule::MoreLost)))
        .unwrap()
        .is_empty());
    let alone = Report::new(fixture()[..1].to_vec());
    assert!(alone.gate(&gate(None, Some(WorseRule::MoreLost))).is_err());
    // CSV: a header and a row per position of each run.
    assert_eq!(report.csv().lines().count(), 7);
}
