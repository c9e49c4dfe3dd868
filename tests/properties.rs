//! Invariants of docs/model.md §1, §3–§5 on random scenarios.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::{Affine, Assumptions};
use simulate::output::csv::SweepCsv;
use simulate::rank;
use simulate::scenario::{Scenario, load_str};
use simulate::sweep::{self, Grid, Model, SweepOptions};
use simulate::timeline::{self, RunSums, Walker};
use std::path::Path;

/// A random scenario: calls with bytes and some measured/output tokens in a few segments,
/// a cache, and edits of every kind that stay valid.
fn scenario_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((0u32..60_000, 0u32..3, 0u32..2, 0u32..400, 0u32..4), 4..24),
        1_000u32..60_000,
        prop::sample::select(vec![2.5, 3.3, 4.0]),
        prop::collection::vec((0usize..100, 0usize..100, 0usize..100, 0u32..8), 1..6),
    )
        .prop_map(|(calls, base, bpt, edits)| {
            let n = calls.len();
            let mut t = format!("name = \"p\"\nbase_tokens = {base}\nbytes_per_token = {bpt}\n");
            t.push_str("[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n");
            let mut segment = 1;
            for (i, (bytes, tokens, next_segment, gap, kind)) in calls.iter().enumerate() {
                segment += next_segment;
                t.push_str(&format!("[[call]]\nid = \"c{i}\"\nlabel = \"call {i}\"\nbytes = {bytes}\nsegment = {segment}\ngap_s = {gap}\n"));
                if *tokens == 2 {
                    t.push_str(&format!("tokens = {}\noutput_tokens = {}\n", bytes / 7, bytes / 50));
                }
                if *kind == 3 {
                    t.push_str("kind = \"web_search\"\n");
                }
            }
            for (k, (x, y, z, action)) in edits.iter().enumerate() {
                let (x, y, z) = (x % n, y % n, z % n);
                let action = match action {
                    0 => format!("trim = {{ call = \"c{x}\", by_percent = {} }}", 1 + y % 100),
                    1 if x != y && y != z && x != z => format!("merge = {{ calls = [\"c{x}\", \"c{y}\", \"c{z}\"], overhead_bytes = 100 }}"),
                    2 => format!("drop = {{ call = \"c{x}\" }}"),
                    3 if x != y => format!("move = {{ call = \"c{x}\", before = \"c{y}\" }}"),
                    4 => format!("clear = {{ every_segments = {}, keep_segments = 1, above_tool_bytes = 90000 }}", 1 + y % 3),
                    5 => format!("clear = {{ older_than_calls = {}, keep_results = {} }}", 1 + y % 4, z % 3),
                    6 => format!("clear = {{ above_context_tokens = {}, keep_results = 2, clear_at_least_tokens = 2000 }}", 20_000 + 3_000 * y),
                    // A call measured in tokens has no bytes to trim to: all of it, by percent.
                    _ if calls[x].1 == 2 => format!("trim = {{ call = \"c{x}\", by_percent = 100 }}"),
                    _ => format!("trim = {{ call = \"c{x}\", to_bytes = 0 }}"),
                };
                t.push_str(&format!("[[edit]]\nname = \"e{k}\"\n{action}\n"));
            }
            t
        })
}

fn load(text: &str) -> Scenario {
    load_str(text, Path::new("p.toml")).unwrap()
}

/// The reread total of `run` by walking it call by call.
fn reread_total(run: &simulate::run::Run, at: Assumptions) -> f64 {
    let mut walker = Walker::<f64>::new(None, at, 0.0);
    for slot in run.iter() {
        walker.step(&slot, 0.0, None);
    }
    walker.sums().context
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// T = Σ ctx_i = n·B + Σ s_j·(n − j), affine in B and 1/ρ; each call reads the context
    /// before its own result joins.
    #[test]
    fn the_ledger_and_its_closed_form_agree(text in scenario_text(), b in 1.0f64..1e6, rho in 0.5f64..8.0) {
        let s = load(&text);
        let study = Study::new(&s).unwrap();
        let at = Assumptions { base_tokens: b, bytes_per_token: rho };
        let run = &study.baseline.run;
        let total = reread_total(run, at);
        prop_assert!(close(total, Affine::of(run).at(at)));
        let first = Walker::<f64>::new(None, at, 0.0).step(&run.get(0).unwrap(), 0.0, None);
        prop_assert_eq!(first.context, b);
        prop_assert!(total >= run.len() as f64 * b);
        // Affine in B: the midpoint's total is the mean of the ends'.
        let other = Assumptions { base_tokens: 3.0 * b, ..at };
        let mid = Assumptions { base_tokens: 2.0 * b, ..at };
        prop_assert!(close(reread_total(run, mid), (total + reread_total(run, other)) / 2.0));
    }

    /// The closed form of every run, clearings and cache included, equals its replay, and
    /// each call's cached, written and uncached tokens (a request under the cache's minimum)
    /// add up to its context.
    #[test]
    fn closed_forms_equal_replays(text in scenario_text()) {
        let s = load(&text);
        let study = Study::new(&s).unwrap();
        let at = Assumptions { base_tokens: s.base_tokens, bytes_per_token: s.bytes_per_token };
        for subject in study.subjects() {
            let clearings = subject.clearings(&study, at);
            let mut parts_ok = true;
            let replay: RunSums<f64> = timeline::walk(&s.calls, &subject.run, &clearings, Some(subject.pricing(&study)), at, |_, _, f| {
                parts_ok &= close(f.cached + f.written + f.uncached, f.context);
            });
            prop_assert!(parts_ok);
            if subject.clear.is_none() {
                prop_assert!(close(replay.context, reread_total(&subject.run, at)));
            }
            let form: RunSums<Affine> = timeline::walk(&s.calls, &subject.run, &clearings, Some(subject.pricing(&study)), at, |_, _, _| {});
            if at.base_tokens >= 1024.0 {
                prop_assert!(close(form.context.at(at), replay.context));
                prop_assert!(close(form.cached.at(at), replay.cached));
                prop_assert!(close(form.written.at(at), replay.written));
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The sweep's holds/flips/winner counts equal a brute-force replay of every point, on
    /// both measures; the closed-form sweep writes the same rankings as the replayed one.
    #[test]
    fn sweep_stability_equals_brute_force(text in scenario_text(), nb in 1usize..6, nr in 1usize..5) {
        let s = load(&text);
        let study = Study::new(&s).unwrap();
        let at = Assumptions { base_tokens: s.base_tokens, bytes_per_token: s.bytes_per_token };
        let nominal = study.nominal(at);
        let grid = Grid {
            base_tokens: (0..nb).map(|i| 500.0 + 9_000.0 * i as f64).collect(),
            bytes_per_token: (0..nr).map(|i| 1.5 + 1.1 * i as f64).collect(),
            cache_read: vec![Some(0.1), Some(0.5)],
            retry_rate: vec![0.0],
            refetch: vec![0.0],
            default_axes: false,
        };
        let mut sink = Vec::new();
        let mut csv = SweepCsv::new(&mut sink, true, s.calls.len(), names(&study)).unwrap();
        let options = SweepOptions { closed_form: true, progress: false };
        let outcome = sweep::run(&study, &grid, &nominal, options, &mut csv).unwrap();
        csv.finish().unwrap();
        // The general path (replaying every run at every point) agrees with the closed form.
        let mut replayed_sink = Vec::new();
        let mut replayed_csv = SweepCsv::new(&mut replayed_sink, true, s.calls.len(), names(&study)).unwrap();
        let replayed = sweep::run(&study, &grid, &nominal, SweepOptions { closed_form: false, progress: false }, &mut replayed_csv).unwrap();
        replayed_csv.finish().unwrap();
        prop_assert_eq!(replayed.tokens.matching_order, outcome.tokens.matching_order);
        prop_assert_eq!(replayed.cost.as_ref().map(|c| c.matching_order), outcome.cost.as_ref().map(|c| c.matching_order));
        let numbers = |csv: &[u8]| -> Vec<f64> {
            String::from_utf8_lossy(csv).lines().skip(1).flat_map(|l| l.split(',').skip(6).step_by(1).filter_map(|x| x.parse::<f64>().ok()).collect::<Vec<_>>()).collect()
        };
        let (a, b) = (numbers(&sink), numbers(&replayed_sink));
        prop_assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            prop_assert!((x - y).abs() <= 1e-7 * x.abs().max(1.0) || (x - y).abs() <= 1e-6, "{} vs {}", x, y);
        }

        let reference = evaluate(&study, nominal);
        let nominal_savings: Vec<f64> = reference.edits.iter().map(|e| e.saving.saved).collect();
        let nominal_cost: Vec<f64> = reference.edits.iter().map(|e| e.cost_saving.saved).collect();
        for (stability, nominal_s, cost) in [(&outcome.tokens, &nominal_savings, false), (outcome.cost.as_ref().unwrap(), &nominal_cost, true)] {
            let base_total = if cost { reference.baseline.cost } else { reference.baseline.total_tokens };
            let order = rank::rank(nominal_s, base_total).order;
            let (mut matching, mut winner_kept) = (0, 0);
            for i in 0..grid.len() {
                let e = evaluate(&study, grid.point(i));
                let (savings, total): (Vec<f64>, f64) = if cost {
                    (e.edits.iter().map(|x| x.cost_saving.saved).collect(), e.baseline.cost)
                } else {
                    (e.edits.iter().map(|x| x.saving.saved).collect(), e.baseline.total_tokens)
                };
                let better = |x: usize, y: usize| savings[x] > savings[y] && !rank::tied(savings[x], savings[y], total);
                let tied_nominal = |x: usize, y: usize| rank::tied(nominal_s[x], nominal_s[y], base_total);
                let flips = order.iter().enumerate().any(|(k, &a)| order[k + 1..].iter().any(|&b| !tied_nominal(a, b) && better(b, a)));
                matching += usize::from(!flips);
                if let Some(&w) = order.first() {
                    winner_kept += usize::from(!(0..savings.len()).any(|x| better(x, w)));
                }
            }
            prop_assert_eq!(stability.points, grid.len());
            prop_assert_eq!(stability.matching_order, matching);
            prop_assert_eq!(stability.matching_winner, winner_kept);
        }

        // Break-even: both savings equal at the reported B, and the order differs either side.
        for be in &outcome.break_even {
            let Some(b) = be.base_tokens else { continue };
            let a_i = s.edits.iter().position(|e| e.name == be.a).unwrap();
            let b_i = s.edits.iter().position(|e| e.name == be.b).unwrap();
            let at_b = |base: f64| {
                let p = sweep::Point { base_tokens: base, bytes_per_token: be.bytes_per_token, ..nominal };
                let e = evaluate(&study, p);
                (e.edits[a_i].saving.saved, e.edits[b_i].saving.saved, e.baseline.total_tokens)
            };
            let (sa, sb, total) = at_b(b);
            prop_assert!((sa - sb).abs() <= 1e-9 * total, "{} vs {} at {}", sa, sb, b);
            let (la, lb, _) = at_b(b * 0.5);
            let (ha, hb, _) = at_b(b * 1.5);
            prop_assert!((la - lb).signum() != (ha - hb).signum());
            let above_is_a = be.above.as_deref() == Some(be.a.as_str());
            prop_assert_eq!(ha > hb, above_is_a);
        }
    }
}

fn names(study: &Study) -> Vec<String> {
    study.edited.iter().map(|s| s.name.clone()).collect()
}

#[test]
fn replayed_sweep_writes_the_same_rankings_as_the_closed_form() {
    let text = std::fs::read_to_string("scenarios/merge.toml").unwrap();
    let s = load(&text);
    let study = Study::new(&s).unwrap();
    let nominal = study.nominal(Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    });
    let grid = Grid::new(&s, &nominal, &Default::default()).unwrap();
    let rows = |closed_form| {
        let mut sink = Vec::new();
        let mut csv = SweepCsv::new(&mut sink, false, s.calls.len(), names(&study)).unwrap();
        let o = sweep::run(
            &study,
            &grid,
            &nominal,
            SweepOptions {
                closed_form,
                progress: false,
            },
            &mut csv,
        )
        .unwrap();
        csv.finish().unwrap();
        (o.tokens.matching_order, String::from_utf8(sink).unwrap())
    };
    let (closed, closed_csv) = rows(true);
    let (replayed, replayed_csv) = rows(false);
    assert_eq!(closed, replayed);
    let rank_column = |csv: &str| {
        csv.lines()
            .map(|l| l.rsplit(',').next().unwrap().to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(rank_column(&closed_csv), rank_column(&replayed_csv));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// No input panics: arbitrary text is either a scenario or a located error.
    #[test]
    fn arbitrary_text_never_panics(text in "(?s).{0,400}") {
        let _ = load_str(&text, Path::new("fuzz.toml"));
        let _ = simulate::scenario::parse_tsv(&text, "fuzz.tsv");
    }

    /// Scenario-shaped text with random values and keys never panics either, through
    /// loading, applying edits and evaluating.
    #[test]
    fn scenario_shaped_text_never_panics(
        base in prop::sample::select(vec!["30000", "0", "-1", "nan", "inf", "1e308", "\"x\""]),
        bytes in prop::sample::select(vec!["100", "0", "-5", "nan", "1e300", "1.5"]),
        key in prop::sample::select(vec!["bytes", "tokens", "bytez", "segment", "gap_s", "output_tokens"]),
        action in prop::sample::select(vec![
            "trim = { call = \"a\", by_percent = 150 }",
            "trim = { call = \"a\", to_bytes = 1e300 }",
            "merge = { calls = [\"a\", \"b\", \"a\"] }",
            "move = { call = \"b\", after = \"b\" }",
            "clear = { every_segments = 0 }",
            "clear = { older_than_calls = 1, keep_segments = 99999999999 }",
            "steps = []",
            "drop = { call = \"zz\" }",
        ]),
    ) {
        let text = format!("name = \"f\"\nbase_tokens = {base}\nbytes_per_token = 3.3\n[[call]]\nid = \"a\"\n{key} = {bytes}\n[[call]]\nid = \"b\"\nbytes = 5\n[[edit]]\nname = \"e\"\n{action}\n");
        if let Ok(s) = load_str(&text, Path::new("fuzz.toml"))
            && let Ok(study) = Study::new(&s)
        {
            let at = Assumptions { base_tokens: s.base_tokens, bytes_per_token: s.bytes_per_token };
            let _ = evaluate(&study, study.nominal(at));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Invariants of docs/model.md §1, §3 and §4, each checked against the page before it was
// written: the closed form `T = n·B + Σ_j s_j·(n − j)` (§1), placeholders replacing
// cleared results from the event on (§3), and the cache's block prefixes (§4).

/// A call: (bytes, measured tokens, output tokens, gap in seconds).
type CallSpec = (u32, u32, u32, u32);

fn calls() -> impl Strategy<Value = Vec<CallSpec>> {
    prop::collection::vec(
        (
            0u32..50_000,
            prop::sample::select(vec![0u32, 0, 0, 700, 3_000]),
            prop::sample::select(vec![0u32, 0, 150]),
            0u32..300,
        ),
        3..30,
    )
}

/// A scenario of `calls`, no cache unless `cache` is given, and one edit.
fn calls_scenario(calls: &[CallSpec], b: u32, rho: f64, cache: &str, edit: &str) -> Scenario {
    let mut t = format!("name = \"q\"\nbase_tokens = {b}\nbytes_per_token = {rho}\n{cache}\n");
    for (i, (bytes, tokens, output, gap)) in calls.iter().enumerate() {
        t.push_str(&format!(
            "[[call]]\nid = \"c{i}\"\nbytes = {bytes}\ntokens = {tokens}\noutput_tokens = {output}\ngap_s = {gap}\nsegment = {}\n",
            1 + i / 3
        ));
    }
    if !edit.is_empty() {
        t.push_str(&format!("[[edit]]\nname = \"e\"\n{edit}\n"));
    }
    load(&t)
}

/// `s_j` of docs/model.md §1.
fn size(c: &CallSpec, rho: f64) -> f64 {
    c.1 as f64 + c.0 as f64 / rho + c.2 as f64
}

/// Reread totals of the baseline and of the edit (the baseline's again without one).
fn totals(s: &Scenario) -> (f64, f64) {
    let e = evaluate_nominal(s);
    let edited = e
        .edits
        .first()
        .map_or(e.baseline.total_tokens, |x| x.outcome.total_tokens);
    (e.baseline.total_tokens, edited)
}

fn evaluate_nominal(s: &Scenario) -> simulate::evaluate::Evaluation {
    let study = Study::new(s).unwrap();
    evaluate(
        &study,
        study.nominal(Assumptions {
            base_tokens: s.base_tokens,
            bytes_per_token: s.bytes_per_token,
        }),
    )
}

fn rho_values() -> impl Strategy<Value = f64> {
    prop::sample::select(vec![0.5, 1.0, 2.5, 3.3, 4.0, 7.5])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// §1: T = n·B + Σ s_j·(n − j) has non-negative coefficients, so T does not decrease
    /// when B or any call's bytes grow (exactly: rounding is monotone too).
    #[test]
    fn t_is_non_decreasing_in_b_and_in_every_calls_bytes(
        c in calls(), b in 1u32..100_000, rho in rho_values(), more_b in 0u32..50_000,
        k in 0usize..100, more_bytes in 0u32..50_000,
    ) {
        let (t, _) = totals(&calls_scenario(&c, b, rho, "", ""));
        let (t_b, _) = totals(&calls_scenario(&c, b + more_b, rho, "", ""));
        prop_assert!(t_b >= t, "{} < {}", t_b, t);
        let mut bigger = c.clone();
        let k = k % c.len();
        bigger[k].0 += more_bytes;
        let (t_bytes, _) = totals(&calls_scenario(&bigger, b, rho, "", ""));
        prop_assert!(t_bytes >= t, "{} < {}", t_bytes, t);
    }

    /// §1: moving call m from position j to k < j gives it j − k more rereads and each call
    /// it jumps one fewer: ΔT = s_m·(j − k) − Σ s of the jumped calls.
    #[test]
    fn moving_a_call_earlier_changes_t_by_its_extra_rereads_less_the_jumped_calls(
        c in calls(), b in 1u32..100_000, rho in rho_values(), j in 1usize..100, k in 0usize..100,
    ) {
        let j = 1 + j % (c.len() - 1);
        let k = k % j;
        let edit = format!("move = {{ call = \"c{j}\", before = \"c{k}\" }}");
        let (t, moved) = totals(&calls_scenario(&c, b, rho, "", &edit));
        let jumped: f64 = c[k..j].iter().map(|x| size(x, rho)).sum();
        let expected = size(&c[j], rho) * (j - k) as f64 - jumped;
        prop_assert!(close(moved - t, expected) || (moved - t - expected).abs() <= 1e-9 * t, "{} vs {}", moved - t, expected);
    }

    /// §1: dropping a call removes the context it read (at least B > 0) and its result's
    /// rereads; nothing grows.
    #[test]
    fn dropping_a_call_never_raises_t(c in calls(), b in 1u32..100_000, rho in rho_values(), m in 0usize..100) {
        let m = m % c.len();
        let (t, dropped) = totals(&calls_scenario(&c, b, rho, "", &format!("drop = {{ call = \"c{m}\" }}")));
        prop_assert!(dropped <= t, "{} > {}", dropped, t);
    }

    /// §1, §2: merging calls p and p + 1 with no overhead keeps every other call's context
    /// and puts both results where the first was: T falls by exactly the context call p + 1
    /// read, `B + Σ_{j ≤ p} s_j`.
    #[test]
    fn merging_adjacent_calls_lowers_t_by_the_context_the_second_read(
        c in calls(), b in 1u32..100_000, rho in rho_values(), p in 0usize..100, last in any::<bool>(),
    ) {
        let p = p % (c.len() - 1);
        let at = if last { "last" } else { "first" };
        let edit = format!("merge = {{ calls = [\"c{}\", \"c{p}\"], overhead_bytes = 0, at = \"{at}\" }}", p + 1);
        let (t, merged) = totals(&calls_scenario(&c, b, rho, "", &edit));
        let second_read = b as f64 + c[..=p].iter().map(|x| size(x, rho)).sum::<f64>();
        prop_assert!((t - merged - second_read).abs() <= 1e-9 * t, "{} vs {}", t - merged, second_read);
    }

    /// §4: with the cache, no clearing, no gap over the TTL and min_tokens = 0, call 1 writes
    /// its context and call i reads call i − 1's whole request and writes the rest:
    /// cost = write·ctx_1 + Σ_{i≥2} (read·ctx_{i−1} + write·(ctx_i − ctx_{i−1})).
    #[test]
    fn the_cache_reads_the_previous_request_and_writes_the_rest(
        c in calls(), b in 1u32..100_000, rho in rho_values(), read in 1u32..100, extra in 0u32..200,
    ) {
        let (read, write) = (read as f64 / 100.0, (read + extra) as f64 / 100.0);
        let cache = format!("[cache]\nread = {read}\nwrite = {write}\nttl_s = 300\nmin_tokens = 0\n");
        let s = calls_scenario(&c, b, rho, &cache, "");
        let cost = evaluate_nominal(&s).baseline.cost;
        let mut ctx = Vec::with_capacity(c.len());
        let mut context = b as f64;
        for x in &c {
            ctx.push(context);
            context += size(x, rho);
        }
        let expected = write * ctx[0]
            + ctx.windows(2).map(|w| read * w[0] + write * (w[1] - w[0])).sum::<f64>();
        prop_assert!((cost - expected).abs() <= 1e-9 * expected, "{} vs {}", cost, expected);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// §3: from a clearing on, each later call reads a placeholder instead of a cleared
    /// result; when every cleared result is larger than its placeholder, no call reads more
    /// than without the clearing, so T does not rise.
    #[test]
    fn a_clearing_of_results_larger_than_the_placeholder_never_raises_t(
        c in calls(), b in 1u32..100_000, rho in rho_values(),
        policy in prop::sample::select(vec![
            "every_segments = 1",
            "every_segments = 2, keep_segments = 1",
            "above_tool_bytes = 60000, keep_results = 1",
            "above_context_tokens = 40000, clear_at_least_tokens = 500",
            "older_than_calls = 2",
            "after_gap_s = 150",
            "every_calls = 3, keep_results = 2",
        ]),
        placeholder in prop::sample::select(vec![0u32, 9, 400, 5_000]),
    ) {
        let edit = format!("clear = {{ {policy}, placeholder_bytes = {placeholder} }}");
        let s = calls_scenario(&c, b, rho, "", &edit);
        let e = evaluate_nominal(&s);
        let events = &e.edits[0].outcome.clearings.events;
        prop_assume!(!events.is_empty());
        let larger = events.iter().flat_map(|ev| &ev.cleared).all(|&i| {
            (c[i].1 as f64 + c[i].0 as f64 / rho) > placeholder as f64 / rho
        });
        prop_assume!(larger);
        prop_assert!(e.edits[0].outcome.total_tokens <= e.baseline.total_tokens,
            "{} > {}", e.edits[0].outcome.total_tokens, e.baseline.total_tokens);
    }
}

/// Collects every point's totals, by the point's values (not its index).
#[derive(Default)]
struct ByPoint(Vec<(sweep::Point, Vec<sweep::Totals>)>);

impl sweep::PointSink for ByPoint {
    fn point(
        &mut self,
        _: Option<usize>,
        p: &sweep::Point,
        _: bool,
        t: &[sweep::Totals],
    ) -> std::io::Result<()> {
        self.0.push((*p, t.to_vec()));
        Ok(())
    }
}

impl ByPoint {
    fn sorted(mut self) -> Vec<(sweep::Point, Vec<sweep::Totals>)> {
        let key = |p: &sweep::Point| {
            (
                p.base_tokens.to_bits(),
                p.bytes_per_token.to_bits(),
                p.cache_read.map(f64::to_bits),
                p.retry_rate.to_bits(),
            )
        };
        self.0.sort_by_key(|(p, _)| key(p));
        self.0
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// §5: a point's figures do not depend on how many threads evaluate the grid, nor on
    /// the order its values are listed in (which decides what is evaluated beside what).
    /// And a clearing replayed in lanes gives, to the bit, what replaying it at that one
    /// point gives (`sweep::totals`, the reference).
    #[test]
    fn results_are_the_same_for_any_thread_count_and_grid_order(
        text in scenario_text(),
        bases in prop::collection::vec(500u32..80_000, 1..12),
        rhos in prop::collection::vec(prop::sample::select(vec![0.8, 1.5, 2.5, 3.3, 4.0, 6.0]), 1..4),
        shuffle in any::<u64>(),
        closed_form in any::<bool>(),
    ) {
        let s = load(&text);
        let study = Study::new(&s).unwrap();
        let nominal = study.nominal(Assumptions { base_tokens: s.base_tokens, bytes_per_token: s.bytes_per_token });
        let mut base_tokens: Vec<f64> = bases.iter().map(|&b| b as f64).collect();
        base_tokens.sort_by(f64::total_cmp);
        base_tokens.dedup();
        let mut bytes_per_token = rhos.clone();
        bytes_per_token.sort_by(f64::total_cmp);
        bytes_per_token.dedup();
        let grid = Grid {
            base_tokens,
            bytes_per_token,
            cache_read: vec![Some(0.1), Some(0.5)],
            retry_rate: vec![0.0, 0.25],
            refetch: vec![0.0],
            default_axes: false,
        };
        // The same values in another order: a fixed pseudo-random rotation and reversal.
        let mut other = grid.clone();
        let turn = |v: &mut Vec<f64>, k: u64| { let n = v.len(); v.rotate_left((k as usize) % n); if k % 2 == 1 { v.reverse(); } };
        turn(&mut other.base_tokens, shuffle);
        turn(&mut other.bytes_per_token, shuffle >> 8);
        other.cache_read.reverse();
        other.retry_rate.reverse();
        let options = SweepOptions { closed_form, progress: false };
        let run_in = |threads: usize, g: &Grid| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads).build().unwrap();
            let mut sink = ByPoint::default();
            pool.install(|| sweep::run(&study, g, &nominal, options, &mut sink)).unwrap();
            sink.sorted()
        };
        let one = run_in(1, &grid);
        prop_assert!(one == run_in(3, &grid), "thread count changed a figure");
        prop_assert!(one == run_in(2, &other), "grid order changed a figure");
        // Clearing runs: the lanes equal the reference replay at each point, bit for bit.
        let subjects: Vec<_> = study.subjects().collect();
        let models: Vec<sweep::Model> = subjects.iter().map(|x| sweep::Model::new(&study, x, &nominal)).collect();
        for (p, t) in &one {
            for ((subject, model), got) in subjects.iter().zip(&models).zip(t) {
                if subject.clear.is_some() {
                    let want = sweep::totals(&study, subject, model, p, closed_form);
                    prop_assert!(*got == want, "{}: {:?} vs {:?} at {:?}", subject.name, got, want, p);
                }
            }
        }
    }
}

/// Scenarios at the edges of what is accepted: sizes up to the 1e15 cap, ρ down to 0.01,
/// a prompt cache, and edits whose savings are tiny beside the totals.
fn edge_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec(
            (
                prop::sample::select(vec![0.0, 3.0, 1e9, 1e13, 1e15]),
                prop::sample::select(vec![0.0, 5.0, 1e15]),
                0u32..400,
            ),
            2..6,
        ),
        prop::sample::select(vec![1_024.0, 1e9, 1e15]),
        prop::sample::select(vec![0.01, 1.0, 1000.0]),
    )
        .prop_map(|(calls, base, rho)| {
            let mut t = format!("name = \"edge\"\nbase_tokens = {base:e}\nbytes_per_token = {rho}\n[cache]\nread = 0.1\nwrite = 1.25\nttl_s = 300\nmin_tokens = 1024\n");
            for (i, (bytes, tokens, gap)) in calls.iter().enumerate() {
                t.push_str(&format!("[[call]]\nid = \"c{i}\"\nlabel = \"c{i}\"\nbytes = {bytes:e}\ntokens = {tokens:e}\ngap_s = {gap}\n"));
            }
            let n = calls.len();
            t.push_str(&format!("[[edit]]\nname = \"trim\"\ntrim = {{ call = \"c0\", by_percent = 50 }}\n[[edit]]\nname = \"drop\"\ndrop = {{ call = \"c{}\" }}\n[[edit]]\nname = \"merge\"\nmerge = {{ calls = [\"c0\", \"c{}\"] }}\n", n - 1, n - 1));
            t
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Issue 16 §6: at the edges of the accepted range the closed form and the replay agree
    /// to 1e-9 of the larger of the run's and the baseline's total (the model's own
    /// tolerance for a tie), on reread tokens and on cost, for every run, at the nominal
    /// point and the default grid's corners.
    #[test]
    fn closed_form_and_replay_agree_at_the_edges(text in edge_text()) {
        let s = load(&text);
        let study = Study::new(&s).unwrap();
        let at = Assumptions { base_tokens: s.base_tokens, bytes_per_token: s.bytes_per_token };
        let nominal = study.nominal(at);
        let models: Vec<Model> = study.subjects().map(|x| Model::new(&study, x, &nominal)).collect();
        // The nominal point and the default grid's corners.
        for (fb, fr) in [(1.0, 1.0), (2.0 / 3.0, 0.75), (2.0 / 3.0, 1.25), (4.0 / 3.0, 0.75), (4.0 / 3.0, 1.25)] {
        let point = simulate::sweep::Point {
            base_tokens: at.base_tokens * fb,
            bytes_per_token: at.bytes_per_token * fr,
            ..nominal
        };
        let base_closed = sweep::totals(&study, &study.baseline, &models[0], &point, true);
        for (subject, model) in study.subjects().zip(&models) {
            let closed = sweep::totals(&study, subject, model, &point, true);
            let replayed = sweep::totals(&study, subject, model, &point, false);
            // Of the larger of the run's total and the baseline's: a saving is their difference.
            let tol = |total: f64, base: f64| 1e-9 * total.abs().max(base.abs()).max(1.0);
            prop_assert!((closed.tokens - replayed.tokens).abs() <= tol(closed.tokens, base_closed.tokens), "{} tokens {} vs {}", subject.name, closed.tokens, replayed.tokens);
            prop_assert!((closed.cost - replayed.cost).abs() <= tol(closed.cost, base_closed.cost), "{} cost {} vs {}", subject.name, closed.cost, replayed.cost);
        }
        }
    }
}
