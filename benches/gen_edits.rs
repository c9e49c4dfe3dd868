//! Writes a scenario of many edits, or of one edit of many steps: the load that `suggest`
//! and generated sweeps of caps make ordinary (issue 26, items 4 and 8).
//!
//! `cargo run --release --example gen_edits -- OUT.toml --edits 1000`: 40 calls and 1,000
//! edits, half base edits (`base = { by_tokens }`) and half caps (`cap = { select,
//! max_bytes }`), so pairs of every kind (a break-even inside the swept B range, outside,
//! never) are summarised; a sweep of 3 B × 3 ρ.
//!
//! `cargo run --release --example gen_edits -- OUT.toml --steps 100000`: the same calls and
//! one edit of 100,000 steps, each a trim of one call by 1 % (a key naming a call, located
//! in the file for errors found when the edit is applied).
//!
//! Then time `simulate OUT.toml --out DIR` (see docs/scale.md, "Many edits").

use std::fmt::Write as _;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: gen_edits OUT.toml (--edits N | --steps N)";
    let (Some(out), Some(flag), Some(n)) = (args.first(), args.get(1), args.get(2)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(n) = n.parse::<usize>() else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let calls = 40;
    let mut s = String::from(
        "name = \"many-edits\"\nbase_tokens = 20000\nbytes_per_token = 3.5\n\n\
         [sweep]\nbase_tokens = [10000, 20000, 40000]\nbytes_per_token = [2.5, 3.5, 4.5]\n\n",
    );
    for i in 1..=calls {
        // Sizes from 500 bytes to about 60 kB, in no order.
        let bytes = 500 + (i * 7919 % 60) * 1000;
        let _ = write!(
            s,
            "[[call]]\nid = \"c{i}\"\nlabel = \"read {i}\"\nbytes = {bytes}\n\n"
        );
    }
    match flag.as_str() {
        "--edits" => {
            for k in 1..=n {
                if k % 2 == 0 {
                    let _ = write!(
                        s,
                        "[[edit]]\nname = \"base -{k}\"\nbase = {{ by_tokens = {} }}\n\n",
                        k * 3
                    );
                } else {
                    let _ = write!(
                        s,
                        "[[edit]]\nname = \"cap {k}\"\ncap = {{ select = {{ min_bytes = 0 }}, max_bytes = {} }}\n\n",
                        1000 + k * 59
                    );
                }
            }
        }
        "--steps" => {
            s.push_str("[[edit]]\nname = \"many steps\"\nsteps = [\n");
            for k in 0..n {
                let _ = writeln!(
                    s,
                    "  {{ trim = {{ call = \"c{}\", by_percent = 1 }} }},",
                    k % calls + 1
                );
            }
            s.push_str("]\n");
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
    if let Err(e) = std::fs::write(out, s) {
        eprintln!("{out}: {e}");
        std::process::exit(1);
    }
}
