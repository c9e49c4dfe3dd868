//! `simulate suggest`'s schedule search (docs/suggest.md, "The schedule search"; issue 29
//! §3): on two hand-made sessions, every schedule tried is priced by hand below, and the
//! search must pick the one computed cheapest, with its exact dollars and the upper bound.

use simulate::history::files;
use simulate::suggest::rules::{Family, Parameters, Proposal, SummarySize};
use simulate::suggest::schedule::{self, Schedule};
use std::path::{Path, PathBuf};

fn schedule(label: &str, action: &str, naive: bool) -> Schedule {
    Schedule {
        family: Family::Clearing,
        label: label.into(),
        action: action.into(),
        parameters: Parameters::default(),
        series: "s".into(),
        naive,
    }
}

/// Both sessions (tests/fixtures/schedule/): B = 1,000, ρ = 1, five calls of 1,000 bytes,
/// read 0.1, write 1.25, TTL 300 s, min 0, $1 per 1,000 input-token equivalents (no
/// output). `paused` has a 400 s pause before call 4 (the cache is cold there); `steady`
/// pauses 10 s throughout. A placeholder is 9 tokens.
///
/// Baselines: paused 1,250 + 1,350 + 1,450 + 5,000 (call 4 writes all 4,000) + 1,650 =
/// 10,700; steady 1,250 + 1,350 + 1,450 + 1,550 + 1,650 = 7,250. Σ 17,950.
///
/// A `above_context_tokens = 2500` (keep 0, the naive): before call 3 (3,000 > 2,500) it
/// clears r1, r2 (context 1,018: call 3 reads B, 100, and writes 18, 22.5: 122.5); call 4's
/// context 2,018 does not fire; before call 5 (3,018) it clears r3 and r4 (context 1,036:
/// reads 1,018, 101.8, writes 18, 22.5: 124.3).
///   paused: 1,250 + 1,350 + 122.5 + 2,522.5 (cold: writes 2,018) + 124.3 = 5,369.3;
///   steady: 1,250 + 1,350 + 122.5 + (101.8 + 1,250) + 124.3 = 4,198.6.
///   Σ 9,567.9: saves 8,382.1, $8.3821.
/// B the same `at = "cold"`: it waits, armed, for a cold call.
///   paused: before call 4 it clears r1–r3 (writes 1,027: 1,283.75); call 5 reads 1,027
///   and writes 1,000 (1,352.7): 1,250 + 1,350 + 1,450 + 1,283.75 + 1,352.7 = 6,686.45;
///   steady: never cold, never clears: 7,250. Σ 13,936.45: saves 4,013.55, $4.01355.
/// C the same with `clear_at_least_tokens = 2000`: before call 3 it would free
/// 2 × 991 = 1,982 < 2,000, and waits; before call 4 it frees 2,973.
///   paused: as B, 6,686.45; steady: before call 4 it clears r1–r3 (reads B, 100, writes
///   27, 33.75: 133.75), call 5 reads 1,027 and writes 1,000 (1,352.7): 1,250 + 1,350 +
///   1,450 + 133.75 + 1,352.7 = 5,536.45. Σ 12,222.9: saves 5,727.1, $5.7271.
/// So A is the cheapest, listed last so that the pick is not the grid's first.
///
/// The upper bound, `cache = { avoid = [every class] }`: the cache never expires and a
/// first request reads all of B: both sessions cost 100 + 1,350 + 1,450 + 1,550 + 1,650 =
/// 6,100; Σ 12,200: saves 5,750, $5.75 (A saves more: it also reads less).
#[test]
fn the_search_picks_the_schedule_computed_cheapest_by_hand() {
    let dir = Path::new("tests/fixtures/schedule");
    let paths: Vec<PathBuf> = ["paused.toml", "steady.toml"]
        .iter()
        .map(|f| dir.join(f))
        .collect();
    let (loaded, skipped) = files::load_all(dir, &paths).unwrap();
    assert!(skipped.is_empty());
    let grid = vec![
        schedule(
            "B",
            "clear = { above_context_tokens = 2500, at = \"cold\" }",
            false,
        ),
        schedule(
            "C",
            "clear = { above_context_tokens = 2500, clear_at_least_tokens = 2000 }",
            false,
        ),
        schedule("A", "clear = { above_context_tokens = 2500 }", true),
    ];
    let mut search = schedule::search_with(&loaded, grid, Path::new("grid.toml")).unwrap();
    let close = |a: f64, b: f64| (a - b).abs() < 1e-9 * b.abs().max(1.0);
    assert_eq!((search.schedules, search.sessions), (3, 2));
    assert!(search.by_dollars);
    assert!(close(search.baseline_cost, 17_950.0));
    let f = &search.families[0];
    let saved: Vec<f64> = f.tried.iter().map(|t| t.cost_saved).collect();
    for (got, want) in saved.iter().zip([4_013.55, 5_727.1, 8_382.1]) {
        assert!(close(*got, want), "{saved:?}");
    }
    let dollars: Vec<f64> = f.tried.iter().map(|t| t.dollars_saved.unwrap()).collect();
    for (got, want) in dollars.iter().zip([4.01355, 5.7271, 8.3821]) {
        assert!(close(*got, want), "{dollars:?}");
    }
    assert_eq!((f.chosen, f.naive), (Some(2), Some(2)));
    // A's context removed: each session ends at 1,000 + 4 × 9 + 1,000 = 2,036 against
    // 6,000: 3,964 each.
    assert!(close(f.tried[2].removed, 7_928.0));
    assert!(close(search.bound.cost_saved, 5_750.0));
    assert!(close(search.bound.dollars_saved.unwrap(), 5.75));
    assert_eq!(
        search.distance(&f.tried[2]),
        "$2.63 past the bound: it also reads less, which avoiding breaks does not"
    );
    // Proposed: A joins the candidates under its family, named as the cheapest.
    let proposal = Proposal {
        candidates: Vec::new(),
        findings: Vec::new(),
        summary: SummarySize {
            tokens: 0.0,
            source: String::new(),
        },
    };
    let proposal = search.propose_into(proposal);
    assert_eq!(proposal.candidates.len(), 1);
    let c = &proposal.candidates[0];
    assert_eq!(c.action, "clear = { above_context_tokens = 2500 }");
    assert_eq!(c.name, "cheapest: clear A");
    assert_eq!(
        search.families[0].candidate.as_deref(),
        Some("cheapest: clear A")
    );
    let sentence = search.sentence().unwrap();
    assert!(
        sentence.contains("saves $5.75: the cheapest clearing schedule is A: it saves $8.38"),
        "{sentence}"
    );
}
