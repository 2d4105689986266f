//! The HTML report opened in a real browser (headless Chromium): the title,
//! the totals and every chart must be in the rendered page.

use rookery_testkit::cmd::Cmd;

#[test]
fn report_renders_in_chromium() {
    let Some(browser) = rookery_testkit::peer::chromium() else {
        return;
    };
    let dir = rookery_testkit::TempDir::new("chromium");
    let suite = dir.join("mini.epd");
    std::fs::write(
        &suite,
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"one\";\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm h4; id \"two\";\n\
         k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"three\";\n",
    )
    .unwrap();
    let html = dir.join("report.html");
    let o = Cmd::new(env!("CARGO_BIN_EXE_rookery"))
        .args([
            "suite",
            suite.to_str().unwrap(),
            "--depth",
            "4",
            "--html",
            html.to_str().unwrap(),
        ])
        .output();
    assert!(html.exists(), "{}", String::from_utf8_lossy(&o.stderr));
    let dom = rookery_testkit::peer::chromium_dom(&browser, &html, &dir.join("profile"));
    assert!(
        dom.contains("<title>rookery suite report: mini</title>"),
        "{dom:.500}"
    );
    // Totals: one run; the start position's bm h4 is (almost surely) missed,
    // so the solved count is shown as n/3.
    assert_eq!(dom.matches("<tr class=\"run\">").count(), 1);
    assert!(dom.contains("/3</td>"), "totals row missing");
    // Both charts of the run, each with an SVG inside.
    for chart in ["time-to-solution", "nodes"] {
        let at = dom
            .find(&format!("data-chart=\"{chart}\""))
            .unwrap_or_else(|| panic!("chart {chart} missing"));
        assert!(dom[at..].contains("<svg"), "chart {chart} has no SVG");
    }
}
