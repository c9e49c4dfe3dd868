//! Where the main run's time goes: `cargo run --release --example run_phases -- SCENARIO.toml`
//! loads the scenario (reading its trace), builds the study, evaluates it at the nominal
//! point, and walks each run once more for the sweep's closed forms (`Affine`), printing
//! the seconds of each phase, best of 5 (issue 19 §3).

use simulate::evaluate::{Study, evaluate};
use simulate::ledger::{Affine, Assumptions};
use simulate::timeline::RunSums;
use std::path::PathBuf;
use std::time::Instant;

fn main() -> Result<(), simulate::Error> {
    let path = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or("target/bench/bench3.toml".into()),
    );
    let best = |name: &str, f: &mut dyn FnMut()| {
        let mut best = f64::INFINITY;
        for _ in 0..5 {
            let start = Instant::now();
            f();
            best = best.min(start.elapsed().as_secs_f64());
        }
        println!("{name}: {best:.3} s");
    };
    let mut scenario = None;
    best("load (read the trace)", &mut || {
        scenario = Some(simulate::scenario::load(&path));
    });
    let scenario = scenario.expect("ran")?;
    let study = Study::new(&scenario)?;
    let at = Assumptions {
        base_tokens: scenario.base_tokens,
        bytes_per_token: scenario.bytes_per_token,
    };
    let point = study.nominal(at);
    best("evaluate at the nominal point (a walk a run)", &mut || {
        std::hint::black_box(evaluate(&study, point));
    });
    best("closed forms (a walk a run)", &mut || {
        for s in study.subjects() {
            let clearings = s.clearings(&study, at);
            let sums: RunSums<Affine> = s.sums(&study, &clearings, at);
            std::hint::black_box(sums);
        }
    });
    Ok(())
}
