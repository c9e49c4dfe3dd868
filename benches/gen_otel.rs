//! Writes a team's OpenTelemetry file for measuring `simulate import otel` at scale:
//! `cargo run --release --example gen_otel -- RECORDS FILE [SESSIONS_OPEN]` writes RECORDS
//! Claude Code log records (as an OpenTelemetry Collector's `file` exporter writes them,
//! OTLP/JSON, one export of 16 records a line) to FILE.
//!
//! The shape is the one `tests/fixtures/import/otel/` holds, in the attribute names of
//! Claude Code's monitoring page: per turn a `user_prompt`, then `api_request`s each
//! followed by its `tool_result`s; every record with `session.id`, `user.id`,
//! `organization.id`, `user.account_uuid`, `event.sequence`, `event.timestamp` and
//! `prompt.id`, numbers as strings (as Claude Code sends them). SESSIONS_OPEN sessions (20
//! unless given) run at once, their records interleaved in the exports as a collector
//! receives them from many machines; a session ends after 40 to 160 requests and a new one
//! takes its place. About 1 KB a record: 1,000,000 records are about 1 GB. A fixed linear
//! congruential sequence makes every run write the same file.

use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};

/// Records in one export line (the Collector's batch processor sends batches).
const BATCH: usize = 16;

struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// One session being written: its ids, where it is, and what comes next.
struct Session {
    id: String,
    user: u64,
    sequence: u64,
    requests_left: u64,
    turn: u64,
    /// Tool results still to write after the latest request.
    results_left: u64,
    request: u64,
    /// Input the next request reads from the cache (it grows with what joins).
    context: u64,
    /// Milliseconds since the epoch of the session's latest record.
    clock: u64,
}

const TOOLS: &[(&str, &str)] = &[
    ("Bash", "cargo test -p shop"),
    ("Read", "/home/dev/shop/src/cart.rs"),
    ("Grep", "fn checkout"),
    ("Edit", "/home/dev/shop/src/orders.rs"),
    ("Glob", "src/**/*.rs"),
];

fn new_session(rng: &mut Lcg, n: u64) -> Session {
    Session {
        id: format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            rng.next() as u32,
            rng.below(1 << 16),
            rng.below(1 << 12),
            rng.below(1 << 12),
            n
        ),
        user: rng.below(40),
        sequence: 0,
        requests_left: 40 + rng.below(121),
        turn: 0,
        results_left: 0,
        request: 0,
        context: 12_000 + rng.below(8_000),
        clock: 1_777_888_800_000 + n * 7_000,
    }
}

fn attr(out: &mut String, key: &str, value: &str) {
    let _ = write!(
        out,
        r#"{{"key":"{key}","value":{{"stringValue":"{value}"}}}},"#
    );
}

/// One log record of session `s`: a prompt at a turn's start, a request, or the next
/// tool result of the latest request.
fn record(rng: &mut Lcg, s: &mut Session, out: &mut String) {
    s.sequence += 1;
    s.clock += 200 + rng.below(9_000);
    let time_ns = s.clock * 1_000_000;
    let name = if s.request == 0 || (s.results_left == 0 && rng.below(6) == 0 && s.turn > 0) {
        "user_prompt"
    } else if s.results_left > 0 {
        "tool_result"
    } else {
        "api_request"
    };
    if name == "user_prompt" || s.turn == 0 {
        s.turn += 1;
    }
    let _ = write!(
        out,
        r#"{{"timeUnixNano":"{time_ns}","observedTimeUnixNano":"{time_ns}","body":{{"stringValue":"claude_code.{name}"}},"attributes":["#
    );
    attr(out, "session.id", &s.id);
    attr(
        out,
        "organization.id",
        "7a9e3c1d-0000-4b2a-9c8d-acme00000001",
    );
    attr(
        out,
        "user.account_uuid",
        &format!("acc-{:016x}", s.user * 0x9e37_79b9),
    );
    attr(
        out,
        "user.id",
        &format!("{:064x}", s.user * 0x9e37_79b9_7f4a),
    );
    attr(out, "terminal.type", "vscode");
    attr(out, "event.name", name);
    let seconds = s.clock / 1000;
    let _ = write!(
        out,
        r#"{{"key":"event.timestamp","value":{{"stringValue":"{}"}}}},"#,
        jiff::Timestamp::from_second(seconds as i64)
            .map(|t| t.to_string())
            .unwrap_or_default()
    );
    let _ = write!(
        out,
        r#"{{"key":"event.sequence","value":{{"intValue":"{}"}}}},"#,
        s.sequence
    );
    attr(out, "prompt.id", &format!("{}-p{}", &s.id[..8], s.turn));
    match name {
        "user_prompt" => {
            attr(out, "prompt_length", &(20 + rng.below(900)).to_string());
            attr(out, "prompt", "<REDACTED>");
            s.request = s.request.max(1);
        }
        "api_request" => {
            s.request += 1;
            s.requests_left = s.requests_left.saturating_sub(1);
            s.results_left = rng.below(3);
            let written = 100 + rng.below(3_000);
            attr(out, "model", "claude-sonnet-4-5-20250929");
            attr(out, "cost_usd", &format!("0.{:04}", rng.below(10_000)));
            attr(out, "duration_ms", &(800 + rng.below(9_000)).to_string());
            attr(out, "input_tokens", &(1 + rng.below(40)).to_string());
            attr(out, "output_tokens", &(20 + rng.below(2_000)).to_string());
            attr(out, "cache_read_tokens", &s.context.to_string());
            attr(out, "cache_creation_tokens", &written.to_string());
            attr(
                out,
                "request_id",
                &format!("req_011C{}{:08}", &s.id[..8], s.request),
            );
            attr(out, "query_source", "repl_main_thread");
            s.context += written;
        }
        _ => {
            s.results_left -= 1;
            let (tool, _) = TOOLS[rng.below(TOOLS.len() as u64) as usize];
            let size = 40 + rng.below(12_000);
            attr(out, "tool_name", tool);
            attr(
                out,
                "tool_use_id",
                &format!("toolu_01{}{:06}{}", &s.id[..8], s.request, s.results_left),
            );
            attr(out, "success", "true");
            attr(out, "duration_ms", &(5 + rng.below(4_000)).to_string());
            attr(out, "tool_result_size_bytes", &size.to_string());
            attr(out, "decision_type", "accept");
            attr(out, "decision_source", "config");
        }
    }
    out.pop(); // the last attribute's comma
    out.push_str("]}");
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(records), Some(path)) = (
        args.get(1)
            .and_then(|n| n.replace('_', "").parse::<u64>().ok()),
        args.get(2),
    ) else {
        eprintln!("usage: gen_otel RECORDS FILE [SESSIONS_OPEN]");
        std::process::exit(2);
    };
    let open: u64 = args
        .get(3)
        .and_then(|n| n.parse().ok())
        .unwrap_or(20)
        .max(1);
    let mut rng = Lcg(0x0715_2026);
    let mut started = 0;
    let mut sessions: Vec<Session> = (0..open)
        .map(|_| {
            started += 1;
            new_session(&mut rng, started)
        })
        .collect();
    let mut w = BufWriter::new(File::create(path)?);
    let mut line = String::new();
    let mut written = 0;
    while written < records {
        line.clear();
        line.push_str(r#"{"resourceLogs":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"claude-code"}},{"key":"service.version","value":{"stringValue":"2.1.126"}},{"key":"os.type","value":{"stringValue":"linux"}}]},"scopeLogs":[{"scope":{"name":"com.anthropic.claude_code.events","version":"2.1.126"},"logRecords":["#);
        let n = BATCH.min((records - written) as usize);
        for i in 0..n {
            let k = rng.below(open) as usize;
            if sessions[k].requests_left == 0 && sessions[k].results_left == 0 {
                started += 1;
                sessions[k] = new_session(&mut rng, started);
            }
            if i > 0 {
                line.push(',');
            }
            record(&mut rng, &mut sessions[k], &mut line);
        }
        line.push_str("]}]}]}\n");
        w.write_all(line.as_bytes())?;
        written += n as u64;
    }
    w.flush()
}
