//! Writes one realistic Claude Code session transcript whose measured usage follows a known
//! base B and bytes per token ρ, with noise: the fixture `simulate fit` must recover, and the
//! shipped example `scenarios/imported/`.
//!
//! `cargo run --example gen_session -- OUT.jsonl [--base 21500] [--bpt 3.7] [--noise 0.01]
//! [--requests 60] [--seed 7]`
//!
//! Each request's total input is `B + (bytes that joined before it)/ρ`, times
//! `1 + noise·g` with g a standard normal draw: the bytes are the tool results and prompts
//! and the model's own messages as the next request sends them back (thinking text,
//! tool-use names and inputs as JSON, text), as on real logs (src/import/README.md, "What
//! joins the context"); the logged output tokens are priced, not re-read. It is split as
//! Claude Code logs
//! it: a few uncached `input_tokens`, `cache_read_input_tokens` for the previous request's
//! prefix (none after a pause over 5 minutes), and the rest as `cache_creation_input_tokens`.
//! Every response is logged twice, a streaming snapshot with a placeholder `output_tokens`
//! and the final copy, as Claude Code does. The work is a coding session on a small web
//! shop: reading files, running tests, grepping, editing, a web search, and pauses.

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::io::Write;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn unit(&mut self) -> f64 {
        (self.next() as f64 + 0.5) / (1u64 << 31) as f64
    }
    /// A standard normal draw (Box–Muller).
    fn normal(&mut self) -> f64 {
        let (u, v) = (self.unit(), self.unit());
        (-2.0 * u.ln()).sqrt() * (2.0 * std::f64::consts::PI * v).cos()
    }
}

fn arg(args: &[String], name: &str, default: f64) -> f64 {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A tool call the session makes, with the result it gets back.
fn work(rng: &mut Rng, step: usize) -> (&'static str, Value, String) {
    const FILES: [&str; 6] = [
        "src/cart.rs",
        "src/checkout.rs",
        "src/inventory.rs",
        "src/api/orders.rs",
        "tests/checkout.rs",
        "README.md",
    ];
    let file = FILES[rng.below(FILES.len() as u64) as usize];
    match step % 7 {
        0 | 3 => {
            let mut text = String::new();
            for line in 0..(40 + rng.below(400)) {
                let _ = writeln!(
                    text,
                    "{:>5}\tpub fn item_{line}(cart: &mut Cart, sku: &str) -> Result<(), ShopError> {{ cart.add(sku, {}) }}",
                    line + 1,
                    rng.below(9) + 1
                );
            }
            (
                "Read",
                json!({ "file_path": format!("/home/dev/shop/{file}") }),
                text,
            )
        }
        1 => {
            let mut text = String::from(
                "   Compiling shop v0.3.1 (/home/dev/shop)\n    Finished `test` profile\n     Running unittests src/lib.rs\n\n",
            );
            let tests = 20 + rng.below(200);
            let _ = writeln!(text, "running {tests} tests");
            for t in 0..tests {
                let _ = writeln!(text, "test checkout::tests::case_{t:03} ... ok");
            }
            let failed = rng.below(3);
            let _ = writeln!(
                text,
                "\ntest result: {}. {} passed; {failed} failed; 0 ignored",
                if failed > 0 { "FAILED" } else { "ok" },
                tests - failed
            );
            (
                "Bash",
                json!({ "command": "cargo test", "description": "Run the tests" }),
                text,
            )
        }
        2 => {
            let mut text = String::new();
            for hit in 0..(5 + rng.below(60)) {
                let _ = writeln!(
                    text,
                    "src/{}.rs:{}:    let total = cart.total_cents();",
                    ["cart", "checkout", "api/orders"][hit as usize % 3],
                    10 + hit * 7
                );
            }
            (
                "Grep",
                json!({ "pattern": "total_cents", "path": "src" }),
                text,
            )
        }
        4 => (
            "Edit",
            json!({ "file_path": format!("/home/dev/shop/{file}"), "old_string": "cart.total()", "new_string": "cart.total_cents()" }),
            format!(
                "The file /home/dev/shop/{file} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n  41\t    let total = cart.total_cents();\n"
            ),
        ),
        5 => {
            let mut text = String::from(
                "Web search results for query: \"rust decimal money rounding half even\"\n\n",
            );
            for r in 0..8 {
                let _ = writeln!(
                    text,
                    "{}. How to round money in Rust — an answer explaining banker's rounding with integer cents and why floating point must not hold currency values ({r}).",
                    r + 1
                );
            }
            (
                "WebSearch",
                json!({ "query": "rust decimal money rounding half even" }),
                text,
            )
        }
        _ => {
            let mut text = String::new();
            for line in 0..(10 + rng.below(80)) {
                let _ = writeln!(
                    text,
                    "{:>5}\t## Checkout rules {line}: prices are integer cents; taxes round half to even per line item.",
                    line + 1
                );
            }
            (
                "Read",
                json!({ "file_path": "/home/dev/shop/docs/checkout-rules.md" }),
                text,
            )
        }
    }
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let Some(out) = args.get(1).filter(|a| !a.starts_with("--")) else {
        eprintln!(
            "usage: gen_session OUT.jsonl [--base N] [--bpt R] [--noise F] [--requests N] [--seed N]"
        );
        std::process::exit(2);
    };
    let base = arg(&args, "--base", 21_500.0);
    let rho = arg(&args, "--bpt", 3.7);
    let noise = arg(&args, "--noise", 0.01);
    let requests = arg(&args, "--requests", 60.0) as usize;
    let mut rng = Rng(arg(&args, "--seed", 7.0) as u64 ^ 0x9e37_79b9_7f4a_7c15);
    let session = "5e55a0e1-7a1e-4c0d-9e2b-6d1f2a3b4c5d";
    let mut lines: Vec<String> = Vec::new();
    let mut uuid = 0u64;
    let mut next_uuid = || {
        uuid += 1;
        format!("00000000-0000-4000-8000-{uuid:012}")
    };
    let mut clock = 1_764_410_400.0_f64; // 2025-11-29T10:00:00Z
    let stamp = |t: f64| {
        let secs = t.floor() as i64;
        let ms = ((t - t.floor()) * 1000.0) as i64;
        let day = secs.div_euclid(86_400);
        let rem = secs.rem_euclid(86_400);
        // Days since 1970-01-01 to a civil date (Howard Hinnant's algorithm).
        let z = day + 719_468;
        let era = z.div_euclid(146_097);
        let doe = z - era * 146_097;
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
        let mp = (5 * doy + 2) / 153;
        let d = doy - (153 * mp + 2) / 5 + 1;
        let m = if mp < 10 { mp + 3 } else { mp - 9 };
        let y = yoe + era * 400 + i64::from(m <= 2);
        format!(
            "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{ms:03}Z",
            rem / 3600,
            rem / 60 % 60,
            rem % 60
        )
    };
    let common = |kind: &str, uuid: &str, t: f64| {
        json!({
            "parentUuid": null, "isSidechain": false, "userType": "external",
            "cwd": "/home/dev/shop", "sessionId": session, "version": "2.0.31",
            "gitBranch": "main", "type": kind, "uuid": uuid, "timestamp": stamp(t),
        })
    };
    let prompts = [
        "The checkout total is off by a cent on some carts. Find out why and fix it.",
        "Now make the order API return the total in cents too.",
        "Add a test for carts with many discounted items.",
        "Update the README with the rounding rule.",
    ];
    let mut prompt = 0;
    let mut pending_text: Option<&str> = Some(prompts[0]);
    let mut bytes_before = 0.0_f64;
    let mut previous_total = 0.0_f64;
    for i in 0..requests {
        let gap = if i > 0 && i % 17 == 0 {
            420.0 + rng.below(900) as f64 // a pause longer than the 5-minute cache
        } else {
            2.0 + rng.below(25) as f64
        };
        clock += gap;
        if let Some(text) = pending_text.take() {
            let mut u = common("user", &next_uuid(), clock - 1.0);
            u["message"] = json!({ "role": "user", "content": text });
            lines.push(u.to_string());
            bytes_before += text.len() as f64;
        }
        let total = ((base + bytes_before / rho) * (1.0 + noise * rng.normal())).round();
        let input_tokens = 3.0 + rng.below(5) as f64;
        let read = if i == 0 || gap > 300.0 {
            0.0
        } else {
            previous_total.min(total - input_tokens)
        };
        let creation = total - input_tokens - read;
        previous_total = total;
        let output = (60 + rng.below(700)) as f64;
        let (tool, input, result) = work(&mut rng, i);
        let tool_id = format!("toolu_01{i:06}");
        let message_id = format!("msg_01{i:06}");
        // Logs carry whole numbers.
        let (input_tokens, creation, read) = (input_tokens as u64, creation as u64, read as u64);
        let usage = |output: f64| {
            json!({
                "input_tokens": input_tokens, "cache_creation_input_tokens": creation,
                "cache_read_input_tokens": read,
                "cache_creation": { "ephemeral_5m_input_tokens": creation, "ephemeral_1h_input_tokens": 0 },
                "output_tokens": output as u64, "service_tier": "standard",
            })
        };
        // The streaming snapshot (a thinking block, placeholder output count), then the
        // final copy with the tool use.
        let mut snapshot = common("assistant", &next_uuid(), clock);
        snapshot["message"] = json!({
            "id": message_id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929",
            "content": [{ "type": "thinking", "thinking": "Let me look.", "signature": "sig" }],
            "stop_reason": null, "stop_sequence": null, "usage": usage(2.0),
        });
        snapshot["requestId"] = json!(format!("req_011C{i:06}"));
        lines.push(snapshot.to_string());
        let last = i + 1 == requests;
        let mut reply = common("assistant", &next_uuid(), clock + 1.5);
        let content = if last {
            json!([{ "type": "text", "text": "Done: totals are integer cents everywhere, the tests pass and the README says how rounding works." }])
        } else {
            json!([{ "type": "tool_use", "id": tool_id, "name": tool, "input": input }])
        };
        reply["message"] = json!({
            "id": message_id, "type": "message", "role": "assistant",
            "model": "claude-sonnet-4-5-20250929", "content": content,
            "stop_reason": if last { "end_turn" } else { "tool_use" }, "stop_sequence": null,
            "usage": usage(output),
        });
        reply["requestId"] = json!(format!("req_011C{i:06}"));
        lines.push(reply.to_string());
        // The model's message joins the next request: its thinking, and the tool use's
        // name and input (or the final text).
        bytes_before += "Let me look.".len() as f64;
        bytes_before += if last {
            content[0]["text"].as_str().map_or(0, str::len) as f64
        } else {
            (tool.len() + input.to_string().len()) as f64
        };
        if last {
            break;
        }
        let mut result_line = common("user", &next_uuid(), clock + 3.0);
        result_line["message"] = json!({
            "role": "user",
            "content": [{ "tool_use_id": tool_id, "type": "tool_result", "content": result }],
        });
        lines.push(result_line.to_string());
        bytes_before += result.len() as f64;
        if i > 0 && i % 15 == 0 && prompt + 1 < prompts.len() {
            prompt += 1;
            pending_text = Some(prompts[prompt]);
        }
    }
    let mut file = std::io::BufWriter::new(std::fs::File::create(out)?);
    for line in &lines {
        writeln!(file, "{line}")?;
    }
    file.flush()
}
