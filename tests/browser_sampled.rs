//! `report.html`'s sliders with edits that have no closed form: a compaction and a clearing
//! on context tokens (their events move with B and ρ) and a cache edit (priced with terms
//! of its own), beside a trim that saves nothing (tests/fixtures/live/sampled.toml). They
//! stay in the live ranking at the sweep's own figures, exact at its grid points and
//! interpolated between, and the panel never calls a tie of zeros the largest saving.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use simulate::number::{dollars, grouped, percent};
use std::path::{Path, PathBuf};
use support::browser::{Row, browser, cell, dump, row_markup, rows, run, sweep_csv, text_of};

const FIXTURE: &str = "tests/fixtures/live/sampled.toml";
const TRIM: &str = "trim the last result";
const CACHE: &str = "1-hour cache";
const COMPACT: &str = "compact at 120k";
const CLEAR: &str = "clear over 100k tokens";
/// The fixture's input price, USD per million tokens.
const INPUT_PRICE: f64 = 3.0;

/// Runs the fixture (with `edits` in place of its own, if given) into a temporary folder:
/// the folder, the page and sweep.csv's rows.
fn written(edits: Option<&str>) -> (tempfile::TempDir, PathBuf, Vec<Vec<String>>) {
    let out = tempfile::tempdir().unwrap();
    let mut args = vec![FIXTURE];
    if let Some(e) = edits {
        args.extend(["--edits", e]);
    }
    run(&args, out.path());
    let dir = out.path().join("sampled");
    let sweep = sweep_csv(&dir.join("sweep.csv"));
    (out, dir.join("report.html"), sweep)
}

/// sweep.csv's rows at (`b`, `rho`), in rank order (declaration order within a tie).
fn at_point(sweep: &[Vec<String>], b: f64, rho: f64) -> Vec<&Vec<String>> {
    let mut rows: Vec<&Vec<String>> = sweep
        .iter()
        .filter(|f| f[0].parse::<f64>() == Ok(b) && f[1].parse::<f64>() == Ok(rho))
        .collect();
    rows.sort_by_key(|f| f[10].parse::<usize>().unwrap());
    rows
}

/// The edits table's rows as sweep.csv has them at one point.
fn expected(rows: &[&Vec<String>]) -> Vec<Row> {
    rows.iter()
        .map(|f| Row {
            rank: f[10].clone(),
            name: f[5].clone(),
            saved: grouped(f[7].parse().unwrap(), 0),
            pct: percent(f[8].parse().unwrap()),
        })
        .collect()
}

fn page(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

/// At the nominal point the page's ranking, in the table and in the panel's sentence, is
/// the table's as written: the compaction and the clearing are ranked (first and second),
/// the trim that saves nothing is not first, and the dollars the panel computes are the
/// table's.
#[test]
fn at_the_nominal_point_every_edit_is_ranked_as_the_table_ranks_it() {
    let Some(browser) = browser() else { return };
    let (_out, path, _) = written(None);
    let html = page(&path);
    let dom = dump(browser, &path, "");
    let shown = rows(&dom);
    assert_eq!(shown, rows(&html));
    assert_eq!(
        support::browser::names(&shown),
        [CLEAR, COMPACT, TRIM, CACHE]
    );
    assert_eq!(
        shown.iter().map(|r| r.rank.as_str()).collect::<Vec<_>>(),
        ["1", "2", "3", "3"]
    );

    let now = text_of(&dom, "live-now");
    let order = text_of(&html, "live-now");
    assert!(
        order.is_empty(),
        "the written page has no sentence: {order}"
    );
    let written_order = html
        .split("<p class=\"note at-nominal\">Order: ")
        .nth(1)
        .and_then(|s| s.split(". Equivalent calls").next())
        .unwrap()
        .replace("&gt;", ">");
    assert!(
        now.contains(&format!("Order: {written_order}.")),
        "{now}\nvs the table's {written_order}"
    );
    assert!(
        now.contains(&format!(
            "{CLEAR} saves the most: {} est. tokens, {} of the reread total",
            shown[0].saved, shown[0].pct
        )),
        "{now}"
    );
    assert!(!now.contains("tie for the largest saving"), "{now}");

    // The cost winner's dollars as the panel computes them (cost × the input price) are
    // the table's, and so is the baseline's.
    let markup = row_markup(&html);
    let clear = markup.iter().find(|r| r.contains(CLEAR)).unwrap();
    let baseline_dollars = html
        .split("input-token equivalents; ")
        .nth(1)
        .and_then(|s| s.split(" at ").next())
        .unwrap();
    assert_eq!(cell(clear, "costrank"), "1");
    let expected = format!(
        "It also saves the most cost ({}, {} of {baseline_dollars}).",
        cell(clear, "costpct"),
        cell(clear, "dsaved")
    );
    assert!(now.contains(&expected), "{now}\nexpected: {expected}");
}

/// At grid points other than the nominal one every row is sweep.csv's there, rank, saving,
/// cost and cost rank, the sampled edits included and marked as the sweep's own figures;
/// the dollars are the sweep's cost at the input price. (10,000, 4.0): the compaction saves
/// nothing and ties with the trim and the cache edit; (20,000, 4.0): by cost it falls below
/// the trim.
#[test]
fn at_grid_points_the_page_ranks_every_edit_as_sweep_csv_does() {
    let Some(browser) = browser() else { return };
    let (_out, path, sweep) = written(None);
    for (b, rho) in [(10_000.0, 4.0), (20_000.0, 4.0), (30_000.0, 3.0)] {
        let dom = dump(browser, &path, &format!("B={b}&rho={rho}"));
        let there = at_point(&sweep, b, rho);
        assert_eq!(rows(&dom), expected(&there), "at B = {b}, ρ = {rho}");
        for row in row_markup(&dom) {
            let name = cell(&row, "\"name");
            let f = there.iter().find(|f| f[5] == name).unwrap();
            let cost: f64 = f[11].parse().unwrap();
            let at = format!("{name} at B = {b}, ρ = {rho}");
            assert_eq!(cell(&row, "moves cost"), grouped(cost, 0), "{at}");
            assert_eq!(
                cell(&row, "moves costpct"),
                percent(f[13].parse().unwrap()),
                "{at}"
            );
            assert_eq!(cell(&row, "moves costrank"), f[14], "{at}");
            assert_eq!(
                cell(&row, "moves dollars"),
                dollars(cost * INPUT_PRICE / 1e6),
                "{at}"
            );
            let sampled = name == COMPACT || name == CLEAR || name == CACHE;
            assert_eq!(row.contains("class=\"gridded\""), sampled, "{at}: {row}");
            assert!(!row.contains('≈'), "exact at a grid point: {row}");
        }
        let now = text_of(&dom, "live-now");
        assert!(now.contains("This is a grid point of the sweep"), "{now}");
    }
    let tied = rows(&dump(browser, &path, "B=10000&rho=4"));
    assert_eq!(tied[0].name, CLEAR);
    assert!(tied[1..].iter().all(|r| r.rank == "2"), "{tied:?}");
}

/// Halfway between two grid values of B (at a grid ρ) a sampled edit's saving is the mean
/// of the two, marked ≈ and said to be interpolated; the edits with a closed form are exact
/// there, unmarked.
#[test]
fn between_grid_points_sampled_edits_are_interpolated_and_say_so() {
    let Some(browser) = browser() else { return };
    let (_out, path, sweep) = written(None);
    let dom = dump(browser, &path, "B=15000&rho=3");
    let saved = |b: f64, name: &str| -> f64 {
        at_point(&sweep, b, 3.0)
            .iter()
            .find(|f| f[5] == name)
            .map(|f| f[7].parse().unwrap())
            .unwrap()
    };
    for row in row_markup(&dom) {
        let name = cell(&row, "\"name");
        match name.as_str() {
            COMPACT | CLEAR => {
                let mean = 0.5 * saved(10_000.0, &name) + 0.5 * saved(20_000.0, &name);
                assert_eq!(cell(&row, "moves saved"), format!("≈ {}", grouped(mean, 0)));
                assert!(row.contains("class=\"interpolated\""), "{row}");
            }
            TRIM => {
                assert_eq!(cell(&row, "moves saved"), "0");
                let tr = &row[..row.find('>').unwrap()];
                assert!(!tr.contains("class"), "{row}");
            }
            _ => {
                // The cache edit's reread total has a closed form; its cost is sampled.
                assert_eq!(cell(&row, "moves saved"), "0");
                assert!(cell(&row, "moves cost").starts_with("≈ "), "{row}");
            }
        }
    }
    let now = text_of(&dom, "live-now");
    assert!(
        now.contains(
            "Between grid points of the sweep: the edits without a closed form (≈) are interpolated"
        ),
        "{now}"
    );
    let method = text_of(&page(&path), "live-method");
    assert!(
        method.contains("No closed form for compact at 120k, clear over 100k tokens (a clearing or compaction that moves with B or ρ); the cost of 1-hour cache"),
        "{method}"
    );
}

/// With only edits that save nothing, the panel says so, at the nominal point and off it,
/// rather than naming a tie of zeros the largest saving.
#[test]
fn a_tie_of_zeros_is_no_largest_saving() {
    let Some(browser) = browser() else { return };
    let (_out, path, _) = written(Some("tests/fixtures/live/nothing.toml"));
    for fragment in ["", "B=30000&rho=3", "B=12345&rho=3.7"] {
        let now = text_of(&dump(browser, &path, fragment), "live-now");
        assert!(
            now.contains("No edit saves anything here."),
            "#{fragment}: {now}"
        );
        assert!(
            now.contains("No edit saves cost here."),
            "#{fragment}: {now}"
        );
        assert!(!now.contains("largest saving"), "#{fragment}: {now}");
        assert!(!now.contains("saves the most"), "#{fragment}: {now}");
    }
}

/// A history's page ranks an edit some session replays from the summed savings at the
/// factor grid's points: at each, every row is the history's sweep.csv.
#[test]
fn a_history_page_ranks_sampled_edits_from_its_sweep() {
    let Some(browser) = browser() else { return };
    let sessions = tempfile::tempdir().unwrap();
    std::fs::copy(FIXTURE, sessions.path().join("sampled.toml")).unwrap();
    let out = tempfile::tempdir().unwrap();
    let dir = sessions.path().to_str().unwrap();
    run(
        &[
            "history",
            dir,
            "--edits",
            "tests/fixtures/live/edits.toml",
            "--name",
            "live",
        ],
        out.path(),
    );
    let dir = out.path().join("live");
    let page = dir.join("report.html");
    let sweep = sweep_csv(&dir.join("sweep.csv"));
    for (b, r) in [(2.0 / 3.0, 1.25), (4.0 / 3.0, 0.75)] {
        let shown = rows(&dump(
            browser,
            &page,
            &format!("B_factor={b}&rho_factor={r}"),
        ));
        let mut there: Vec<&Vec<String>> = sweep
            .iter()
            .filter(|f| f[0].parse::<f64>() == Ok(b) && f[1].parse::<f64>() == Ok(r))
            .collect();
        there.sort_by_key(|f| f[7].parse::<usize>().unwrap());
        let want: Vec<(&str, &str, String)> = there
            .iter()
            .map(|f| (f[7].as_str(), f[3].as_str(), percent(f[6].parse().unwrap())))
            .collect();
        // A cost-only row (the 1-hour cache) saves no reread token: sweep.csv's 0.0 %.
        let got: Vec<(&str, &str, String)> = shown
            .iter()
            .map(|r| {
                let pct = match r.pct.as_str() {
                    "cost only" => percent(0.0),
                    p => p.to_string(),
                };
                (r.rank.as_str(), r.name.as_str(), pct)
            })
            .collect();
        assert_eq!(got, want, "at B × {b}, ρ × {r}");
        assert_eq!(got.len(), 4);
    }
}
