//! The checked-in example of `scenarios/merge.toml` (shown in the README) and the HTML page.
//!
//! Regenerate the example with `cargo run --release -- scenarios/merge.toml --out docs/examples`.
#![allow(clippy::unwrap_used)]

use assert_cmd::Command;
use std::fs;
use std::path::Path;

fn run_merge(out: &Path) {
    Command::cargo_bin("simulate")
        .unwrap()
        .args(["scenarios/merge.toml", "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn the_checked_in_example_is_what_the_code_draws_now() {
    let out = tempfile::tempdir().unwrap();
    run_merge(out.path());
    let fresh = out.path().join("merge");
    let mut names: Vec<String> = fs::read_dir(&fresh)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    let mut checked_in: Vec<String> = fs::read_dir("docs/examples/merge")
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    checked_in.sort();
    assert_eq!(
        names, checked_in,
        "regenerate: cargo run --release -- scenarios/merge.toml --out docs/examples"
    );
    for name in names {
        let now = fs::read(fresh.join(&name)).unwrap();
        let then = fs::read(Path::new("docs/examples/merge").join(&name)).unwrap();
        assert!(
            now == then,
            "docs/examples/merge/{name} differs from what the code draws now; regenerate: cargo run --release -- scenarios/merge.toml --out docs/examples"
        );
    }
}

#[test]
fn the_html_report_is_self_contained_and_holds_every_chart_and_edit() {
    let out = tempfile::tempdir().unwrap();
    run_merge(out.path());
    let dir = out.path().join("merge");
    let html = fs::read_to_string(dir.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>"));
    // The SVG namespace is a name, not a place the browser fetches.
    let html_without_namespace = html.replace("xmlns=\"http://www.w3.org/2000/svg\"", "");
    for reference in [
        "src=", "href=", "<link", "url(", "http://", "https://", "<img",
    ] {
        assert!(
            !html_without_namespace.contains(reference),
            "report.html references something outside: {reference}"
        );
    }
    // Two scripts, both inline: the sliders' data and the code that reads it.
    let scripts: Vec<&str> = html
        .match_indices("<script")
        .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap() + 1])
        .collect();
    assert_eq!(
        scripts,
        [
            "<script type=\"application/json\" id=\"live-data\">",
            "<script>"
        ]
    );
    // Without JavaScript the sliders stay hidden and a note says what they would do.
    assert!(html.contains("<section id=\"live\" class=\"live\" hidden>"));
    assert!(html.contains("<noscript>"));
    let charts: Vec<String> = fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".svg"))
        .collect();
    assert_eq!(charts.len(), 5);
    assert_eq!(html.matches("<svg").count(), charts.len());
    for chart in &charts {
        assert!(
            html.contains(&format!("<figure id=\"{chart}\">")),
            "{chart} missing"
        );
    }
    for edit in ["trim runbook", "merge status checks", "trim and merge"] {
        assert!(
            html.contains(&format!("<td class=\"name\">{edit}</td>")),
            "{edit} missing"
        );
    }
    assert!(html.contains("The ranking holds at all 9 points"));
    // The answer comes first, before the tables.
    let answer = html.find("<p class=\"answer\">").unwrap();
    assert!(answer < html.find("<table>").unwrap());
}
