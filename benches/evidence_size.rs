//! What the evidence of `simulate suggest` holds, for the benchmark notes (issue 30):
//! `cargo run --release --example evidence_size -- DIR` gathers the evidence of every
//! scenario file under DIR (as the command finds them, one at a time) and prints, for
//! each per-call figure, how many values it counts and how many distinct ones it keeps
//! (16 bytes each; a list of every value was 8 bytes each), and the size of the
//! gatherer's JSON (what a shard of the evidence would write).

use simulate::history::files;
use simulate::suggest::evidence::{Gatherer, Values};
use std::path::Path;

fn row(name: &str, v: &Values) {
    println!(
        "{name:<24} {:>12} values {:>12} distinct ({:.1} MB kept, {:.1} MB as a list)",
        v.len(),
        v.distinct(),
        v.distinct() as f64 * 16.0 / 1e6,
        v.len() as f64 * 8.0 / 1e6
    );
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args().nth(1).ok_or("usage: evidence_size DIR")?;
    let dir = Path::new(&dir);
    let (paths, _) = files::find(dir, Path::new("none.toml"))?;
    let mut g = Gatherer::default();
    for path in &paths {
        if let Ok(l) = files::load_one(dir, path)? {
            g.add(&l.scenario);
        }
    }
    let json = g.to_json().len();
    let e = g.finish();
    println!("{} sessions, {} calls", e.sessions, e.calls);
    for t in &e.tools {
        row(&format!("sizes {}", t.tool), &t.sizes);
    }
    row("contexts", &e.contexts);
    row("contexts (OpenAI)", &e.openai.contexts);
    println!("gatherer JSON: {:.1} MB", json as f64 / 1e6);
    Ok(())
}
