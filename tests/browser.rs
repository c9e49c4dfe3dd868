//! `report.html` in a real browser: headless Chromium opens the page with a fragment that
//! sets the sliders (`#B=12000&rho=3.8`), runs its inline script, and dumps the DOM; the
//! edits table in it must be re-ranked as the closed forms say, and two edits must swap
//! across their exact break-even. The browser and its skip rule: `support/browser.rs`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use support::browser::{Row, browser, cell, dump, names, position, rows, run, sweep_csv};

/// scenarios/coding.toml's ranking does not hold: below B ≈ 12–18k a quieter test runner
/// beats skipping the changelog. Just below the exact break-even at ρ = 3.8 the page puts
/// it first, just above it second; the break-even the page marks is the report's.
#[test]
fn moving_b_past_a_break_even_swaps_two_edits_on_the_page() {
    let Some(browser) = browser() else { return };
    let out = tempfile::tempdir().unwrap();
    let json = run(&["scenarios/coding.toml", "--format", "json"], out.path());
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    let (skip, quiet) = ("skip changelog", "quiet test runner");
    let exact = report["sweep"]["break_even"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["a"] == skip && b["b"] == quiet && b["bytes_per_token"] == 3.8)
        .and_then(|b| b["base_tokens"].as_f64())
        .expect("the report's break-even of the pair at ρ = 3.8");
    assert!((11_000.0..19_000.0).contains(&exact), "{exact}");
    let page = out.path().join("coding/report.html");

    let below = dump(browser, &page, &format!("B={}&rho=3.8", exact - 100.0));
    let above = dump(browser, &page, &format!("B={}&rho=3.8", exact + 100.0));
    let (rows_below, rows_above) = (rows(&below), rows(&above));
    assert!(
        position(&rows_below, quiet) < position(&rows_below, skip),
        "{rows_below:?}"
    );
    assert!(
        position(&rows_above, skip) < position(&rows_above, quiet),
        "{rows_above:?}"
    );
    // Their ranks swap with them, and every other edit keeps its place.
    let rank = |rows: &[Row], name: &str| rows[position(rows, name)].rank.clone();
    assert_eq!(
        (rank(&rows_below, quiet), rank(&rows_below, skip)),
        ("2".into(), "3".into())
    );
    assert_eq!(
        (rank(&rows_above, skip), rank(&rows_above, quiet)),
        ("2".into(), "3".into())
    );
    assert_eq!(rows_below[0].name, "all four");
    assert_eq!(rows_above[0].name, "all four");

    // The page computes the same break-even from its own coefficients, lists it, and
    // marks it on the B slider with the pair named.
    for dom in [&below, &above] {
        let marked = dom
            .split("data-break-even-x=\"")
            .skip(1)
            .map(|s| s[..s.find('"').unwrap()].parse::<f64>().unwrap())
            .find(|x| (x - exact).abs() < 1.0)
            .unwrap_or_else(|| panic!("no break-even near {exact} listed"));
        assert!(
            (marked - exact).abs() <= 1e-6 * exact,
            "{marked} vs {exact}"
        );
        let shown = simulate::number::grouped(exact, 0);
        assert!(
            dom.contains(&format!("{skip} ⇄ {quiet}: {shown} tokens"))
                || dom.contains(&format!("{quiet} ⇄ {skip}: {shown} tokens")),
            "no tick for the pair at {shown}"
        );
    }
}

/// At grid points the page's figures are the sweep's, to the digit shown; at the nominal
/// point without a fragment the page is the one written (the script only shows the panel).
#[test]
fn the_page_agrees_with_the_sweep_and_leaves_the_nominal_point_alone() {
    let Some(browser) = browser() else { return };
    let out = tempfile::tempdir().unwrap();
    run(&["scenarios/coding.toml"], out.path());
    let dir = out.path().join("coding");
    let page = dir.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    let nominal = dump(browser, &page, "");
    assert_eq!(rows(&nominal), rows(&html));
    assert!(html.contains("<section id=\"live\" class=\"live\" hidden>"));
    assert!(nominal.contains("<section id=\"live\" class=\"live\">"));
    assert!(!nominal.contains("class=\"moved\""));

    let sweep = sweep_csv(&dir.join("sweep.csv"));
    for (b, rho) in [(8_000.0, 3.0), (16_000.0, 3.4), (48_000.0, 4.6)] {
        let dom = dump(browser, &page, &format!("B={b}&rho={rho}"));
        let shown = rows(&dom);
        let mut expected: Vec<(usize, Row)> = sweep
            .iter()
            .filter(|f| f[0].parse::<f64>() == Ok(b) && f[1].parse::<f64>() == Ok(rho))
            .map(|f| {
                let saved: f64 = f[7].parse().unwrap();
                let pct: f64 = f[8].parse().unwrap();
                let rank: usize = f[10].parse().unwrap();
                let row = Row {
                    rank: rank.to_string(),
                    name: f[5].to_string(),
                    saved: simulate::number::grouped(saved, 0),
                    pct: simulate::number::percent(pct),
                };
                (rank, row)
            })
            .collect();
        expected.sort_by_key(|(rank, _)| *rank);
        let expected: Vec<Row> = expected.into_iter().map(|(_, r)| r).collect();
        assert_eq!(shown, expected, "at B = {b}, ρ = {rho}");
        assert!(dom.contains("<table id=\"edits\" class=\"moved\">"));
    }
}

/// A history's sliders are factors on every session's B and ρ: in the shipped example,
/// with ρ × 0.75 clearing stale results every two topics beats dropping the GitHub MCP
/// server (the sweep's one flip), and with ρ × 1 it does not. At a grid point the page's
/// percentages are the sweep table's.
#[test]
fn a_history_page_re_ranks_over_the_factors() {
    let Some(browser) = browser() else { return };
    let out = tempfile::tempdir().unwrap();
    run(
        &[
            "history",
            "scenarios/history",
            "--edits",
            "scenarios/history/edits.toml",
        ],
        out.path(),
    );
    let dir = out.path().join("history");
    let page = dir.join("report.html");
    let (stale, mcp) = (
        "clear stale results every 2 topics",
        "drop the GitHub MCP server",
    );
    let low = rows(&dump(browser, &page, "B_factor=1&rho_factor=0.75"));
    let high = rows(&dump(browser, &page, "B_factor=1&rho_factor=0.9"));
    assert!(position(&low, stale) < position(&low, mcp), "{low:?}");
    assert!(position(&high, mcp) < position(&high, stale), "{high:?}");

    let sweep = sweep_csv(&dir.join("sweep.csv"));
    for row in &low {
        let f = sweep
            .iter()
            .find(|f| f[0] == "1.0" && f[1] == "0.75" && f[3] == row.name)
            .unwrap_or_else(|| panic!("{} at B × 1, ρ × 0.75 in sweep.csv", row.name));
        assert_eq!(
            row.pct,
            simulate::number::percent(f[6].parse().unwrap()),
            "{f:?}"
        );
        assert_eq!(row.rank, f[7], "{f:?}");
    }
    assert_eq!(names(&low).len(), 5);
}

/// scenarios/clearing.toml has a prompt cache whose min_tokens (1,024) is below every B of
/// its range, so its cost columns move too: at grid points they are sweep.csv's, for every
/// edit with a closed form, and for the clearing that moves with B, which is ranked at the
/// sweep's own figures there (it used to stay greyed at the nominal point).
#[test]
fn the_cost_moves_where_its_closed_form_is_exact() {
    let Some(browser) = browser() else { return };
    let out = tempfile::tempdir().unwrap();
    run(&["scenarios/clearing.toml"], out.path());
    let dir = out.path().join("clearing");
    let page = dir.join("report.html");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("the cost columns move too, dollars with them"));
    let sampled = "server-side at 100k tokens";
    let sweep = sweep_csv(&dir.join("sweep.csv"));
    for (b, rho) in [(10_000.0, 2.5), (40_000.0, 3.5)] {
        let dom = dump(browser, &page, &format!("B={b}&rho={rho}"));
        let table = &dom[dom.find("<table id=\"edits\"").unwrap()..];
        let body = &table[..table.find("</tbody>").unwrap()];
        let mut live = 0;
        for row in body.split("<tr data-edit").skip(1) {
            let name = cell(row, "\"name");
            let line = sweep
                .iter()
                .find(|f| {
                    f[0].parse::<f64>() == Ok(b) && f[1].parse::<f64>() == Ok(rho) && f[5] == name
                })
                .unwrap();
            let (cost, pct): (f64, f64) = (line[11].parse().unwrap(), line[13].parse().unwrap());
            assert_eq!(row.contains("class=\"gridded\""), name == sampled, "{row}");
            assert_eq!(
                cell(row, "moves rank"),
                line[10],
                "{name} at B = {b}, ρ = {rho}"
            );
            assert_eq!(
                cell(row, "moves costrank"),
                line[14],
                "{name} at B = {b}, ρ = {rho}"
            );
            live += 1;
            assert_eq!(
                cell(row, "moves cost"),
                simulate::number::grouped(cost, 0),
                "{name} at B = {b}, ρ = {rho}"
            );
            assert_eq!(
                cell(row, "moves costpct"),
                simulate::number::percent(pct),
                "{name} at B = {b}, ρ = {rho}"
            );
        }
        assert_eq!(live, 6);
    }
}
