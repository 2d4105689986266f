//! The HTML report opened in a real browser (headless Chromium): the title,
//! the totals and every chart must be in the rendered page.

use crate::common::{rookery, s};
use rookery_testkit::cmd::assert_contains_all;

#[test]
fn report_renders_in_chromium() {
    let Some(browser) = rookery_testkit::peer::chromium() else {
        return;
    };
    let dir = rookery_testkit::TempDir::new("chromium");
    let suite = dir.write(
        "mini.epd",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - bm Rd8#; id \"one\";\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - bm h4; id \"two\";\n\
         k7/8/2K5/8/8/8/8/7R w - - bm Kb6; id \"three\";\n",
    );
    let html = dir.join("report.html");
    let o = rookery(
        &["suite", s(&suite), "--depth", "4", "--html", s(&html)],
        b"",
    );
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

/// Gastric's page for two EPD runs (tests/data/gastric): the "solved
/// within t" chart with one curve per run, and the paired comparison with
/// its McNemar result and the newly solved and newly lost positions, as
/// the browser renders them.
#[test]
fn gastric_comparison_renders_in_chromium() {
    let Some(browser) = rookery_testkit::peer::chromium() else {
        return;
    };
    let dir = rookery_testkit::TempDir::new("gastric-chromium");
    let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/gastric");
    let html = dir.join("gastric.html");
    let o = rookery(
        &[
            "report",
            s(&data.join("before.epd")),
            s(&data.join("after.epd")),
            "--title",
            "before and after",
            "--html",
            s(&html),
        ],
        b"",
    );
    o.assert_code(0);
    let dom = rookery_testkit::peer::chromium_dom(&browser, &html, &dir.join("profile"));
    assert!(
        dom.contains("<title>before and after</title>"),
        "{dom:.500}"
    );
    // The cumulative chart: one SVG, one curve per run, each ending at its solved count.
    let at = dom
        .find("data-chart=\"solved-within\"")
        .expect("solved-within chart missing");
    let chart = &dom[at..];
    let chart = &chart[..chart.find("</figure>").expect("figure closed")];
    assert!(chart.contains("<svg"), "no SVG in the chart");
    assert_eq!(chart.matches("class=\"curve\"").count(), 2, "{chart}");
    assert_contains_all(
        chart,
        &[
            "data-run=\"before on before\" data-solved=\"4\"",
            "data-run=\"after on after\" data-solved=\"3\"",
        ],
    );
    // The McNemar table and the lists.
    let at = dom
        .find("class=\"mcnemar\"")
        .expect("McNemar table missing");
    let table = &dom[at..];
    let table = &table[..table.find("</table>").expect("table closed")];
    assert_contains_all(
        table,
        &[
            "<td class=\"gained\">2</td>",
            "<td class=\"lost\">3</td>",
            "<td class=\"p-value\">1.0000</td>",
            "worse (+2 -3, exact McNemar p = 1.0000, not significant at 0.05)",
        ],
    );
    let lost = &dom[dom.find("<ul class=\"newly-lost\">").expect("lost list")..];
    let lost = &lost[..lost.find("</ul>").unwrap()];
    assert_eq!(lost.matches("<li>").count(), 3, "{lost}");
    assert!(
        lost.contains("<li>STS(v2.2) Open Files and Diagonals.002</li>"),
        "{lost}"
    );
    // The breakdown by theme of each run.
    assert_eq!(dom.matches("<tr class=\"theme\">").count(), 4);
}
