//! Invariants of the what-if edits of docs/model.md §9 (`cache`, `model`, `base = { drop |
//! defer }`) on random scenarios: their closed forms equal their replays at every point of
//! the sweep, and their totals are what the formulas say.
#![allow(clippy::unwrap_used)]

use proptest::prelude::*;
use simulate::evaluate::{Study, evaluate};
use simulate::ledger::{Affine, Assumptions};
use simulate::scenario::{Scenario, load_str};
use simulate::sweep::{self, Grid, Point, PointSink, SweepOptions, Totals};
use simulate::timeline::RunSums;
use std::io;
use std::path::Path;

/// A call: (tool, bytes, measured tokens, gap in seconds).
type CallSpec = (usize, u32, u32, u32);

const TOOLS: [&str; 4] = [
    "Read",
    "Bash",
    "mcp__github__get_issue",
    "mcp__github__list_prs",
];

fn calls() -> impl Strategy<Value = Vec<CallSpec>> {
    prop::collection::vec(
        (
            0usize..4,
            0u32..40_000,
            prop::sample::select(vec![0u32, 0, 0, 900]),
            prop::sample::select(vec![0u32, 10, 100, 400, 900, 4_000]),
        ),
        3..24,
    )
}

/// Edits that exercise every what-if key, alone and in steps with the other edits.
const EDITS: [&str; 12] = [
    "cache = { ttl_s = 3600, write = 2.0 }",
    "cache = { preset = \"claude-sonnet-4-5-1h\" }",
    "cache = { ttl_s = 3600, write = 2.0, traces = [\"subagent\"] }",
    "cache = { min_tokens = 4096, read = 0.3 }",
    "model = { to = \"claude-haiku-4-5\", tokens_factor = 1.3 }",
    "model = { to = \"claude-sonnet-4-6\" }",
    "base = { drop = \"mcp:github\" }",
    "base = { defer = \"mcp:github\", stub_tokens = 300 }",
    "steps = [{ trim = { call = \"c1\", by_percent = 50 } }, { model = { to = \"claude-opus-4-5\", tokens_factor = 1.2 } }, { base = { defer = \"mcp:github\", stub_tokens = 0 } }]",
    "steps = [{ model = { to = \"claude-haiku-4-5\" } }, { cache = { ttl_s = 3600, write = 2.0 } }, { clear = { older_than_calls = 2, keep_results = 1 } }]",
    "steps = [{ base = { defer = \"mcp:github\", stub_tokens = 200 } }, { clear = { above_context_tokens = 60000, keep_results = 1 } }]",
    "steps = [{ model = { to = \"claude-sonnet-4-5\", tokens_factor = 0.8 } }, { clear = { every_segments = 1, above_tool_bytes = 30000 } }]",
];

/// A scenario of `calls` with a GitHub part of `part` tokens in a base of `b`, a Sonnet 4.5
/// cache and price, and `edits` (indices into [`EDITS`]).
fn scenario(
    calls: &[CallSpec],
    b: u32,
    part: u32,
    rho: f64,
    cache: bool,
    edits: &[usize],
) -> Scenario {
    let mut t = format!(
        "name = \"w\"\nbase_tokens = {b}\nbytes_per_token = {rho}\n[price]\nmodel = \"claude-sonnet-4-5\"\n[[base.part]]\nname = \"mcp:github\"\ntokens = {part}\ntools = [\"mcp__github__*\"]\n"
    );
    if cache {
        t.push_str("[cache]\npreset = \"claude-sonnet-4-5\"\n");
    }
    for (i, (tool, bytes, tokens, gap)) in calls.iter().enumerate() {
        t.push_str(&format!(
            "[[call]]\nid = \"c{i}\"\ntool = \"{}\"\nbytes = {bytes}\ntokens = {tokens}\ngap_s = {gap}\nsegment = {}\n",
            TOOLS[*tool],
            1 + i / 3
        ));
    }
    for (k, &e) in edits.iter().enumerate() {
        t.push_str(&format!("[[edit]]\nname = \"e{k}\"\n{}\n", EDITS[e]));
    }
    load_str(&t, Path::new("w.toml")).unwrap()
}

/// Every point's totals as the sweep hands them over.
#[derive(Default)]
struct Collect(Vec<(Point, Vec<Totals>)>);

impl PointSink for Collect {
    fn point(&mut self, _: Option<usize>, p: &Point, _: bool, totals: &[Totals]) -> io::Result<()> {
        self.0.push((*p, totals.to_vec()));
        Ok(())
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1.0)
}

fn at(s: &Scenario) -> Assumptions {
    Assumptions {
        base_tokens: s.base_tokens,
        bytes_per_token: s.bytes_per_token,
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// At every point of the sweep, each run's totals from the sweep (closed form where it
    /// holds: per run, with its own cache terms and minimum) equal the reference replay
    /// there, and the replayed sweep gives the same figures.
    #[test]
    fn what_if_closed_forms_equal_replays_over_the_sweep(
        c in calls(), part in 1_000u32..30_000, extra in 0u32..60_000, rho in prop::sample::select(vec![1.0, 2.5, 3.3]),
        cache in any::<bool>(), edits in prop::collection::vec(0usize..12, 1..5),
    ) {
        let b = part + extra;
        let s = scenario(&c, b, part, rho, cache, &edits);
        let study = Study::new(&s).unwrap();
        let nominal = study.nominal(at(&s));
        // Every swept base keeps the part (the base never goes below zero).
        let grid = Grid {
            base_tokens: vec![part as f64, (part + 700) as f64, b as f64, 2.0 * b as f64],
            bytes_per_token: vec![rho, 4.0],
            cache_read: if cache { vec![Some(0.1), Some(0.3)] } else { vec![None] },
            retry_rate: vec![0.0, 0.2],
            refetch: vec![0.0],
            default_axes: false,
        };
        let mut closed = Collect::default();
        sweep::run(&study, &grid, &nominal, SweepOptions { closed_form: true, progress: false }, &mut closed).unwrap();
        let mut replayed = Collect::default();
        sweep::run(&study, &grid, &nominal, SweepOptions { closed_form: false, progress: false }, &mut replayed).unwrap();
        prop_assert_eq!(closed.0.len(), replayed.0.len());
        for ((p, got), (_, again)) in closed.0.iter().zip(&replayed.0) {
            let reference = evaluate(&study, *p);
            let want: Vec<(f64, f64)> = std::iter::once(&reference.baseline)
                .chain(reference.edits.iter().map(|e| &e.outcome))
                .map(|o| (o.total_tokens, o.cost))
                .collect();
            for ((g, a), w) in got.iter().zip(again).zip(&want) {
                prop_assert!(close(g.tokens, w.0), "tokens {} vs {} at {:?}", g.tokens, w.0, p);
                prop_assert!(close(g.cost, w.1), "cost {} vs {} at {:?}", g.cost, w.1, p);
                prop_assert!(close(a.tokens, w.0) && close(a.cost, w.1), "replayed sweep at {:?}", p);
            }
        }
    }

    /// The closed form of a run is affine in B and 1/ρ with the tokens factor scaling only
    /// the bytes: a model edit with factor f at (B, ρ) reads what the baseline reads at
    /// (B, ρ ÷ f); a dropped part saves n × its tokens; a deferred part's run is
    /// `n·(B − part + stub) + Σ s_j·(n − j) + (B − part + stub + Σ_{j<k} s_j) + part·(n − k)`,
    /// k the first call that uses its tools (0-based), when it has one.
    #[test]
    fn what_if_totals_are_their_formulas(
        c in calls(), part in 1_000u32..30_000, extra in 0u32..60_000, rho in prop::sample::select(vec![1.0, 2.5, 3.3]),
        f in prop::sample::select(vec![0.8, 1.3, 2.0]), stub in 0u32..2_000,
    ) {
        let b = part + extra;
        let base_only = scenario(&c, b, part, rho, false, &[]);
        let edits = format!(
            "[[edit]]\nname = \"model\"\nmodel = {{ to = \"claude-sonnet-4-5\", tokens_factor = {f} }}\n[[edit]]\nname = \"drop\"\nbase = {{ drop = \"mcp:github\" }}\n[[edit]]\nname = \"defer\"\nbase = {{ defer = \"mcp:github\", stub_tokens = {stub} }}\n"
        );
        let with_edits = scenario(&c, b, part, rho, false, &[]);
        let edits = load_str(&format!("name = \"x\"\nbase_tokens = 1\nbytes_per_token = 1\n[[call]]\nid = \"x\"\nbytes = 1\n{edits}"), Path::new("e.toml")).unwrap().edits;
        let s = with_edits.with_edits(edits, "e.toml");
        let _ = base_only;
        let study = Study::new(&s).unwrap();
        let e = evaluate(&study, study.nominal(at(&s)));
        let n = c.len() as f64;
        let size = |x: &CallSpec, rho: f64| x.2 as f64 + x.1 as f64 / rho;
        let t = |base: f64, rho: f64| -> f64 {
            n * base + c.iter().enumerate().map(|(j, x)| size(x, rho) * (n - 1.0 - j as f64)).sum::<f64>()
        };
        let b = b as f64;
        let part = part as f64;
        prop_assert!(close(e.baseline.total_tokens, t(b, rho)));
        prop_assert!(close(e.edits[0].outcome.total_tokens, t(b, rho / f)));
        prop_assert!(close(e.edits[1].saving.saved, n * part));
        let base = b - part + stub as f64;
        let expected = match c.iter().position(|x| x.0 >= 2) {
            Some(k) => {
                let before: f64 = c[..k].iter().map(|x| size(x, rho)).sum();
                t(base, rho) + base + before + part * (n - k as f64)
            }
            None => t(base, rho),
        };
        prop_assert!(close(e.edits[2].outcome.total_tokens, expected), "{} vs {}", e.edits[2].outcome.total_tokens, expected);
        // The closed forms hold as coefficients, not only at the nominal point.
        for subject in study.subjects() {
            let clearings = subject.clearings(&study, at(&s));
            let form: RunSums<Affine> = subject.sums(&study, &clearings, at(&s));
            let other = Assumptions { base_tokens: 2.0 * b, bytes_per_token: 1.7 };
            let replay: RunSums<f64> = subject.sums(&study, &clearings, other);
            let value = form.context.at(other);
            prop_assert!(close(value, replay.context), "{} vs {}", value, replay.context);
        }
    }
}
