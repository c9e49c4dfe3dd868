//! Writes the synthetic Claude Code transcripts behind `scenarios/history/`:
//! `cargo run --release --example gen_sessions -- DIR` writes twelve sessions of one
//! project (a Rust web shop with a TypeScript front end) to
//! `DIR/projects/-home-ana-storefront/<session>.jsonl`.
//!
//! They are made, not recorded: scripted sessions in Claude Code's line format (user
//! prompts, streaming snapshots and final copies of each response, tool results), with
//! the kinds of context real sessions carry: big shell outputs (test runs, builds, lint),
//! files read and read again, edits, searches, web searches, the GitHub MCP server's
//! tools, and pauses longer than the 5-minute cache lifetime. Each request's usage follows
//! the reread model with a session's own base and bytes per token, plus a little noise,
//! so `simulate fit` has something true to find: what joined before it, the model's own
//! messages as their bytes (as on real logs), divided by ρ. A fixed linear congruential sequence
//! makes every run write the same files.

use serde_json::{Value, json};
use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Project directory as Claude Code names it, and the working directory.
const PROJECT: &str = "-home-ana-storefront";
const CWD: &str = "/home/ana/storefront";
/// The GitHub MCP server's tool definitions, in tokens (they ride in every request).
const GITHUB_TOOLS_TOKENS: f64 = 4_200.0;

/// One step of a scripted session.
#[derive(Clone, Copy)]
enum Step {
    /// `cargo test -p <crate>`: one line per test, a failure now and then.
    Test(&'static str),
    /// `cargo build` with warnings.
    Build,
    /// `npm run lint` in the front end.
    Lint,
    /// `cargo bench` of the search endpoint.
    Bench,
    /// `git log --oneline -40` or `git diff`.
    GitLog,
    GitDiff,
    /// `cargo update` output.
    Update,
    Read(&'static str),
    Edit(&'static str),
    Grep(&'static str),
    WebSearch(&'static str),
    Issue(u32),
    Issues,
    PullRequests,
    PullDiff(u32),
}

/// A topic: a user prompt, the steps it takes, then the model's answer.
struct Topic {
    prompt: &'static str,
    /// Seconds idle before the prompt (over 300: the cache has expired).
    pause_s: u64,
    steps: &'static [Step],
}

/// A session: when it starts, its model, and its topics.
struct Session {
    start: &'static str,
    model: &'static str,
    topics: Vec<Topic>,
}

use Step::*;

fn sessions() -> Vec<Session> {
    let sonnet = "claude-sonnet-4-5-20250929";
    let t = |prompt, pause_s, steps| Topic {
        prompt,
        pause_s,
        steps,
    };
    vec![
        Session {
            start: "2025-10-06T08:12:04Z",
            model: sonnet,
            topics: vec![
                t(
                    "The discount test in the cart crate fails since yesterday, can you fix it?",
                    0,
                    &[
                        Test("cart"),
                        Read("crates/cart/src/discount.rs"),
                        Grep("fn apply_discount"),
                        Read("crates/cart/src/lib.rs"),
                        Edit("crates/cart/src/discount.rs"),
                        Test("cart"),
                    ],
                ),
                t(
                    "Thanks. Also make the rounding explicit with a comment.",
                    40,
                    &[
                        Read("crates/cart/src/discount.rs"),
                        Edit("crates/cart/src/discount.rs"),
                        Test("cart"),
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-06T13:30:41Z",
            model: sonnet,
            topics: vec![
                t(
                    "Add an expiry date to coupons: a coupon past its date must be refused at checkout.",
                    0,
                    &[
                        Grep("struct Coupon"),
                        Read("crates/cart/src/coupon.rs"),
                        Read("crates/checkout/src/validate.rs"),
                        Read("crates/db/migrations/0007_coupons.sql"),
                        Edit("crates/cart/src/coupon.rs"),
                        Edit("crates/checkout/src/validate.rs"),
                        Build,
                        Test("checkout"),
                    ],
                ),
                t(
                    "Write the migration too, and a test for an expired coupon.",
                    95,
                    &[
                        Read("crates/db/migrations/0007_coupons.sql"),
                        Edit("crates/db/migrations/0012_coupon_expiry.sql"),
                        Read("crates/checkout/src/validate.rs"),
                        Edit("crates/checkout/tests/coupons.rs"),
                        Test("checkout"),
                        Edit("crates/checkout/tests/coupons.rs"),
                        Test("checkout"),
                    ],
                ),
                t(
                    "Back from lunch. Does the admin UI show the new field?",
                    2_950,
                    &[
                        Grep("coupon"),
                        Read("web/src/admin/CouponForm.tsx"),
                        Edit("web/src/admin/CouponForm.tsx"),
                        Lint,
                        GitDiff,
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-07T09:02:17Z",
            model: sonnet,
            topics: vec![
                t(
                    "Review PR #418 (stock reservations) and leave me a summary of the risks.",
                    0,
                    &[
                        PullDiff(418),
                        Issue(402),
                        Read("crates/inventory/src/reserve.rs"),
                        Read("crates/inventory/src/lib.rs"),
                        WebSearch("postgres SELECT FOR UPDATE SKIP LOCKED reservation pattern"),
                        Read("crates/inventory/src/reserve.rs"),
                    ],
                ),
                t(
                    "Is the lock ordering safe when two carts reserve the same items?",
                    130,
                    &[
                        Grep("lock_items"),
                        Read("crates/inventory/src/locks.rs"),
                        WebSearch("deadlock ordering rows postgres consistent order"),
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-07T15:44:09Z",
            model: sonnet,
            topics: vec![
                t(
                    "Triage the open issues labelled bug: which ones are duplicates?",
                    0,
                    &[
                        Issues,
                        Issue(431),
                        Issue(433),
                        Issue(436),
                        Grep("PaymentDeclined"),
                        Read("crates/payments/src/errors.rs"),
                        Issue(412),
                    ],
                ),
                t(
                    "Draft a reply for #433 explaining it is the same as #412.",
                    210,
                    &[Issue(433), Issue(412)],
                ),
            ],
        },
        Session {
            start: "2025-10-08T10:15:52Z",
            model: sonnet,
            topics: vec![
                t(
                    "Upgrade axum to 0.8 and fix whatever breaks.",
                    0,
                    &[
                        Read("Cargo.toml"),
                        WebSearch("axum 0.8 migration guide breaking changes"),
                        Edit("Cargo.toml"),
                        Update,
                        Build,
                        Read("crates/api/src/router.rs"),
                        Edit("crates/api/src/router.rs"),
                        Build,
                        Read("crates/api/src/extract.rs"),
                        Edit("crates/api/src/extract.rs"),
                        Build,
                    ],
                ),
                t(
                    "Tests next, please.",
                    1_640,
                    &[
                        Test("api"),
                        Read("crates/api/tests/routes.rs"),
                        Edit("crates/api/tests/routes.rs"),
                        Test("api"),
                        WebSearch("axum 0.8 Path extractor syntax {id}"),
                    ],
                ),
                t(
                    "Looks good. Summarise the changes for the PR description.",
                    380,
                    &[GitDiff, GitLog],
                ),
            ],
        },
        Session {
            start: "2025-10-09T08:40:33Z",
            model: sonnet,
            topics: vec![
                t(
                    "The front end lint fails on CI. Fix the errors, not the warnings.",
                    0,
                    &[
                        Lint,
                        Read("web/src/cart/CartPage.tsx"),
                        Edit("web/src/cart/CartPage.tsx"),
                        Read("web/src/cart/useCart.ts"),
                        Edit("web/src/cart/useCart.ts"),
                        Read("web/src/checkout/Address.tsx"),
                        Edit("web/src/checkout/Address.tsx"),
                        Lint,
                    ],
                ),
                t(
                    "Now the warnings in the checkout folder too.",
                    65,
                    &[
                        Read("web/src/checkout/Payment.tsx"),
                        Edit("web/src/checkout/Payment.tsx"),
                        Read("web/src/checkout/Summary.tsx"),
                        Edit("web/src/checkout/Summary.tsx"),
                        Lint,
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-09T14:05:12Z",
            model: sonnet,
            topics: vec![t(
                "Explain how checkout works end to end, for a new colleague.",
                0,
                &[
                    Grep("fn checkout"),
                    Read("crates/checkout/src/lib.rs"),
                    Read("crates/checkout/src/validate.rs"),
                    Read("crates/payments/src/lib.rs"),
                ],
            )],
        },
        Session {
            start: "2025-10-10T09:20:48Z",
            model: sonnet,
            topics: vec![
                t(
                    "test_concurrent_reservations fails one run in ten. Find out why.",
                    0,
                    &[
                        Test("inventory"),
                        Test("inventory"),
                        Read("crates/inventory/tests/concurrency.rs"),
                        Grep("tokio::spawn"),
                        Read("crates/inventory/src/reserve.rs"),
                        WebSearch("tokio test flaky shared database connection pool"),
                        Test("inventory"),
                    ],
                ),
                t(
                    "Try running it 50 times with the fix.",
                    1_250,
                    &[
                        Edit("crates/inventory/tests/concurrency.rs"),
                        Test("inventory"),
                        Test("inventory"),
                        Test("inventory"),
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-13T16:10:27Z",
            model: sonnet,
            topics: vec![t(
                "Write the release notes for 2.4 from the merged PRs.",
                0,
                &[
                    GitLog,
                    PullRequests,
                    Read("CHANGELOG.md"),
                    Edit("CHANGELOG.md"),
                ],
            )],
        },
        Session {
            start: "2025-10-14T10:02:55Z",
            model: sonnet,
            topics: vec![
                t(
                    "The search endpoint got slow. Profile it and suggest a fix.",
                    0,
                    &[
                        Read("crates/search/src/query.rs"),
                        Bench,
                        Read("crates/search/src/index.rs"),
                        Grep("to_lowercase"),
                    ],
                ),
                t(
                    "Go ahead with the precomputed lowercase column.",
                    150,
                    &[
                        Edit("crates/search/src/index.rs"),
                        Edit("crates/search/src/query.rs"),
                        Build,
                        Bench,
                    ],
                ),
                t(
                    "Compare with what others do for prefix search.",
                    2_100,
                    &[
                        WebSearch("postgres prefix search trigram vs btree text_pattern_ops"),
                        WebSearch("pg_trgm index size write overhead"),
                    ],
                ),
                t(
                    "Keep ours. Add a test and commit.",
                    420,
                    &[
                        Edit("crates/search/tests/prefix.rs"),
                        Test("search"),
                        GitDiff,
                    ],
                ),
            ],
        },
        Session {
            start: "2025-10-15T11:47:03Z",
            model: sonnet,
            topics: vec![t(
                "What does MAX_CART_ITEMS default to?",
                0,
                &[Grep("MAX_CART_ITEMS"), Read("crates/cart/src/lib.rs")],
            )],
        },
        Session {
            start: "2025-10-16T08:30:19Z",
            model: sonnet,
            topics: vec![
                t(
                    "Split the payments module: providers in their own files, one trait.",
                    0,
                    &[
                        Read("crates/payments/src/lib.rs"),
                        Read("crates/payments/src/stripe.rs"),
                        Read("crates/payments/src/adyen.rs"),
                        Grep("impl PaymentProvider"),
                        Edit("crates/payments/src/provider.rs"),
                        Edit("crates/payments/src/stripe.rs"),
                        Edit("crates/payments/src/adyen.rs"),
                        Edit("crates/payments/src/lib.rs"),
                        Build,
                        Build,
                    ],
                ),
                t(
                    "Fix the build errors.",
                    55,
                    &[
                        Read("crates/payments/src/stripe.rs"),
                        Edit("crates/payments/src/stripe.rs"),
                        Read("crates/payments/src/adyen.rs"),
                        Edit("crates/payments/src/adyen.rs"),
                        Build,
                        Test("payments"),
                    ],
                ),
                t(
                    "Back. Two tests fail, have a look.",
                    1_830,
                    &[
                        Test("payments"),
                        Read("crates/payments/tests/refunds.rs"),
                        Read("crates/payments/src/stripe.rs"),
                        Edit("crates/payments/src/stripe.rs"),
                        Test("payments"),
                    ],
                ),
                t(
                    "Update the docs and the checkout crate to the new trait.",
                    120,
                    &[
                        Grep("payments::"),
                        Read("crates/checkout/src/lib.rs"),
                        Edit("crates/checkout/src/lib.rs"),
                        Read("docs/payments.md"),
                        Edit("docs/payments.md"),
                        Build,
                        Test("checkout"),
                    ],
                ),
                t(
                    "Last: the PR description.",
                    700,
                    &[GitDiff, GitLog, Issue(377)],
                ),
            ],
        },
    ]
}

/// A fixed pseudo-random sequence.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    /// A whole number in `lo..hi`.
    fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo).max(1)
    }

    /// A number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        (self.next() % 1_000_000) as f64 / 1e6
    }
}

/// A plausible line of Rust source.
fn code_line(r: &mut Lcg, n: u64) -> String {
    const LINES: [&str; 10] = [
        "    let total = items.iter().map(|i| i.price * i.quantity).sum::<Decimal>();",
        "    if coupon.expires_at.is_some_and(|at| at < now) {",
        "        return Err(CheckoutError::CouponExpired { code: coupon.code.clone() });",
        "    }",
        "pub fn apply_discount(total: Decimal, rule: &DiscountRule) -> Decimal {",
        "    tracing::debug!(cart_id = %cart.id, items = cart.items.len(), \"pricing cart\");",
        "    let rows = sqlx::query_as::<_, StockRow>(RESERVE_SQL).bind(&ids).fetch_all(&mut *tx).await?;",
        "#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]",
        "    // Round half to even, as the accounting export expects.",
        "        .map_err(|e| PaymentError::Provider { provider: \"stripe\", source: e.into() })?;",
    ];
    let line = LINES[(r.next() % LINES.len() as u64) as usize];
    format!("{n:>6}\t{line}")
}

/// The text a step's tool returns, and its tool name and input.
fn run_step(
    r: &mut Lcg,
    step: Step,
    reads: &mut Vec<(&'static str, u64)>,
) -> (String, Value, String) {
    let mut out = String::new();
    match step {
        Test(krate) => {
            let tests = r.range(80, 420);
            let _ = writeln!(
                out,
                "   Compiling shop-{krate} v2.3.1 ({CWD}/crates/{krate})\n    Finished `test` profile [unoptimized + debuginfo] target(s) in 14.2{}s\n     Running unittests src/lib.rs (target/debug/deps/shop_{krate}-3f9c2a7d1e)\n\nrunning {tests} tests",
                r.range(0, 9)
            );
            let failing = r.next().is_multiple_of(3).then(|| r.range(0, tests));
            for i in 0..tests {
                let status = if Some(i) == failing { "FAILED" } else { "ok" };
                let _ = writeln!(
                    out,
                    "test {krate}::tests::case_{:03}_{} ... {status}",
                    i,
                    ["total", "rounding", "expiry", "stock", "refund", "locale"][(i % 6) as usize]
                );
            }
            if let Some(i) = failing {
                let _ = writeln!(
                    out,
                    "\nfailures:\n\n---- {krate}::tests::case_{i:03} stdout ----\nthread '{krate}::tests::case_{i:03}' panicked at crates/{krate}/src/lib.rs:{}:9:\nassertion `left == right` failed\n  left: Decimal(\"90.00\")\n right: Decimal(\"81.00\")\nnote: run with `RUST_BACKTRACE=1` environment variable to display a backtrace\n",
                    r.range(40, 400)
                );
            }
            let _ = writeln!(
                out,
                "\ntest result: {}. {} passed; {} failed; 0 ignored; 0 measured; 0 filtered out; finished in 2.{:02}s",
                if failing.is_some() { "FAILED" } else { "ok" },
                tests - u64::from(failing.is_some()),
                u64::from(failing.is_some()),
                r.range(0, 99)
            );
            (
                "Bash".into(),
                json!({"command": format!("cargo test -p shop-{krate}"), "description": "Run the crate's tests"}),
                out,
            )
        }
        Build => {
            for i in 0..r.range(8, 40) {
                let _ = writeln!(
                    out,
                    "warning: unused variable: `item{i}`\n  --> crates/payments/src/provider.rs:{}:13\n   |\n{} |         let item{i} = cart.items.get(idx);\n   |             ^^^^^ help: if this is intentional, prefix it with an underscore: `_item{i}`\n   |\n   = note: `#[warn(unused_variables)]` on by default\n",
                    r.range(10, 300),
                    r.range(10, 300)
                );
            }
            out.push_str("warning: `shop-payments` (lib) generated warnings\n    Finished `dev` profile [unoptimized + debuginfo] target(s) in 21.73s\n");
            (
                "Bash".into(),
                json!({"command": "cargo build --workspace 2>&1", "description": "Build the workspace"}),
                out,
            )
        }
        Lint => {
            for i in 0..r.range(40, 180) {
                let _ = writeln!(
                    out,
                    "{CWD}/web/src/{}.tsx\n  {}:{}  {}  {}\n",
                    [
                        "cart/CartPage",
                        "checkout/Address",
                        "checkout/Payment",
                        "admin/CouponForm"
                    ][(i % 4) as usize],
                    r.range(1, 300),
                    r.range(1, 80),
                    [
                        "error  'total' is assigned a value but never used",
                        "warning  React Hook useEffect has a missing dependency: 'cartId'",
                        "error  Unexpected any. Specify a different type"
                    ][(i % 3) as usize],
                    [
                        "@typescript-eslint/no-unused-vars",
                        "react-hooks/exhaustive-deps",
                        "@typescript-eslint/no-explicit-any"
                    ][(i % 3) as usize]
                );
            }
            out.push_str("✖ problems found (errors and warnings)\n");
            (
                "Bash".into(),
                json!({"command": "cd web && npm run lint", "description": "Lint the front end"}),
                out,
            )
        }
        Bench => {
            for i in 0..r.range(30, 90) {
                let _ = writeln!(
                    out,
                    "search/prefix/{i:<3}      time:   [{}.{:02} µs {}.{:02} µs {}.{:02} µs]\n                        change: [+{}.{}% +{}.{}% +{}.{}%] (p = 0.00 < 0.05)\n                        Performance has regressed.",
                    r.range(80, 400),
                    r.range(0, 99),
                    r.range(80, 400),
                    r.range(0, 99),
                    r.range(80, 400),
                    r.range(0, 99),
                    r.range(1, 40),
                    r.range(0, 9),
                    r.range(1, 40),
                    r.range(0, 9),
                    r.range(1, 40),
                    r.range(0, 9)
                );
            }
            (
                "Bash".into(),
                json!({"command": "cargo bench -p shop-search -- prefix", "description": "Benchmark prefix search"}),
                out,
            )
        }
        GitLog => {
            for _ in 0..40 {
                let _ = writeln!(
                    out,
                    "{:07x} {}",
                    r.next() & 0xfff_ffff,
                    [
                        "Fix rounding of percentage discounts",
                        "Reserve stock with SKIP LOCKED",
                        "Lint fixes in checkout",
                        "Bump axum to 0.8",
                        "Add coupon expiry",
                        "Split payment providers"
                    ][(r.next() % 6) as usize]
                );
            }
            (
                "Bash".into(),
                json!({"command": "git log --oneline -40", "description": "Recent commits"}),
                out,
            )
        }
        GitDiff => {
            for i in 0..r.range(60, 250) {
                let _ = writeln!(
                    out,
                    "{}{}",
                    ["+", "-", " "][(i % 3) as usize],
                    code_line(r, i).split('\t').nth(1).unwrap_or("")
                );
            }
            (
                "Bash".into(),
                json!({"command": "git diff", "description": "Show the changes"}),
                out,
            )
        }
        Update => {
            for i in 0..r.range(60, 160) {
                let _ = writeln!(
                    out,
                    "    Updating crate-{i:03} v0.{}.{} -> v0.{}.{}",
                    r.range(1, 9),
                    r.range(0, 20),
                    r.range(1, 9),
                    r.range(0, 20)
                );
            }
            (
                "Bash".into(),
                json!({"command": "cargo update", "description": "Update the lock file"}),
                out,
            )
        }
        Read(path) => {
            // The same file has the same length each time it is read (an edit changes little).
            let lines = match reads.iter().find(|(p, _)| *p == path) {
                Some((_, n)) => *n,
                None => {
                    let n = r.range(30, 300);
                    reads.push((path, n));
                    n
                }
            };
            for i in 1..=lines {
                out.push_str(&code_line(r, i));
                out.push('\n');
            }
            (
                "Read".into(),
                json!({"file_path": format!("{CWD}/{path}")}),
                out,
            )
        }
        Edit(path) => {
            let _ = writeln!(
                out,
                "The file {CWD}/{path} has been updated. Here's the result of running `cat -n` on a snippet of the edited file:"
            );
            let at = r.range(10, 200);
            for i in at..at + r.range(6, 16) {
                out.push_str(&code_line(r, i));
                out.push('\n');
            }
            (
                "Edit".into(),
                json!({"file_path": format!("{CWD}/{path}"), "old_string": "let total = subtotal;", "new_string": "let total = subtotal.round_dp(2);"}),
                out,
            )
        }
        Grep(pattern) => {
            for _ in 0..r.range(4, 40) {
                let _ = writeln!(
                    out,
                    "{CWD}/crates/{}/src/{}.rs:{}:    {pattern}",
                    ["cart", "checkout", "payments", "inventory", "search"]
                        [(r.next() % 5) as usize],
                    ["lib", "validate", "reserve", "query", "errors"][(r.next() % 5) as usize],
                    r.range(1, 400)
                );
            }
            (
                "Grep".into(),
                json!({"pattern": pattern, "path": CWD, "output_mode": "content"}),
                out,
            )
        }
        WebSearch(query) => {
            let _ = writeln!(out, "Web search results for query: \"{query}\"\n\nLinks: [");
            for i in 0..r.range(6, 10) {
                let _ = writeln!(
                    out,
                    "{{\"title\":\"{query} — result {i}\",\"url\":\"https://example.org/articles/{}\"}},",
                    r.next()
                );
            }
            out.push_str("]\n\n");
            for _ in 0..r.range(8, 30) {
                out.push_str("The usual approach is to take the rows in a fixed order and keep the transaction short; several write-ups measure the cost of the index against the write load and recommend checking the plan with EXPLAIN ANALYZE before and after. ");
            }
            ("WebSearch".into(), json!({"query": query}), out)
        }
        Issue(n) => {
            let comments: Vec<Value> = (0..r.range(2, 14))
                .map(|i| json!({"user": {"login": format!("dev{i}")}, "body": "I see this too on the staging shop after the last deploy: the payment is declined but the order stays reserved for 15 minutes, so the stock looks gone.", "created_at": "2025-10-01T10:00:00Z"}))
                .collect();
            let issue = json!({"number": n, "title": format!("Checkout fails with PaymentDeclined (#{n})"), "state": "open", "labels": [{"name": "bug"}, {"name": "payments"}], "user": {"login": "ops-bot"}, "body": "Steps: add two items, apply SPRING25, pay with a 3-D Secure card. Expected: order placed. Actual: PaymentDeclined, stock reserved.", "comments": comments});
            (
                "mcp__github__get_issue".into(),
                json!({"owner": "ana", "repo": "storefront", "issue_number": n}),
                serde_json::to_string_pretty(&issue).unwrap_or_default(),
            )
        }
        Issues => {
            let issues: Vec<Value> = (0..r.range(15, 30))
                .map(|i| json!({"number": 400 + i, "title": "Checkout fails with PaymentDeclined", "state": "open", "labels": [{"name": "bug"}], "user": {"login": "ops-bot"}, "created_at": "2025-10-01T10:00:00Z", "body": "Payment declined on the staging shop; order stays reserved."}))
                .collect();
            (
                "mcp__github__list_issues".into(),
                json!({"owner": "ana", "repo": "storefront", "labels": ["bug"], "state": "open"}),
                serde_json::to_string_pretty(&issues).unwrap_or_default(),
            )
        }
        PullRequests => {
            let prs: Vec<Value> = (0..r.range(20, 40))
                .map(|i| json!({"number": 380 + i, "title": "Reserve stock with SKIP LOCKED", "state": "closed", "merged_at": "2025-10-10T12:00:00Z", "user": {"login": "ana"}, "body": "Replaces the advisory lock with row locks; adds a concurrency test."}))
                .collect();
            (
                "mcp__github__list_pull_requests".into(),
                json!({"owner": "ana", "repo": "storefront", "state": "closed"}),
                serde_json::to_string_pretty(&prs).unwrap_or_default(),
            )
        }
        PullDiff(n) => {
            let _ = writeln!(
                out,
                "diff --git a/crates/inventory/src/reserve.rs b/crates/inventory/src/reserve.rs"
            );
            for i in 0..r.range(120, 350) {
                let _ = writeln!(
                    out,
                    "{}{}",
                    ["+", "-", " ", " "][(i % 4) as usize],
                    code_line(r, i).split('\t').nth(1).unwrap_or("")
                );
            }
            (
                "mcp__github__get_pull_request_diff".into(),
                json!({"owner": "ana", "repo": "storefront", "pull_number": n}),
                out,
            )
        }
    }
}

/// Seconds since the Unix epoch of `2025-10-06T08:12:04Z`, roughly (days in October).
fn epoch(start: &str) -> u64 {
    let day: u64 = start[8..10].parse().unwrap_or(1);
    let hour: u64 = start[11..13].parse().unwrap_or(0);
    let minute: u64 = start[14..16].parse().unwrap_or(0);
    let second: u64 = start[17..19].parse().unwrap_or(0);
    1_759_276_800 + (day - 1) * 86_400 + hour * 3_600 + minute * 60 + second
}

/// ISO 8601 with milliseconds, for a time in October 2025.
fn timestamp(t: u64, millis: u64) -> String {
    let s = t - 1_759_276_800;
    format!(
        "2025-10-{:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        s / 86_400 + 1,
        s % 86_400 / 3_600,
        s % 3_600 / 60,
        s % 60
    )
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let root = PathBuf::from(
        args.get(1)
            .map_or("scenarios/history/transcripts", String::as_str),
    );
    let dir = root.join("projects").join(PROJECT);
    fs::create_dir_all(&dir)?;
    let mut r = Lcg(0x5eed_2025_1006);
    for (k, session) in sessions().into_iter().enumerate() {
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            r.next(),
            r.next() & 0xffff,
            r.next() & 0xfff,
            r.next() & 0xfff,
            r.next()
        );
        // This session's truth: the system prompt and tools (with the GitHub server's) and
        // the bytes per token of what it reads.
        let base = 17_000.0 + r.range(0, 3_000) as f64 + GITHUB_TOOLS_TOKENS;
        let rho = 3.1 + r.unit() * 0.8;
        let mut t = epoch(session.start);
        let mut lines: Vec<String> = Vec::new();
        let mut parent: Option<String> = None;
        let mut uuid_n = 0u64;
        let mut uuid = |r: &mut Lcg| {
            uuid_n += 1;
            format!(
                "{:08x}-{:04x}-4{:03x}-a{:03x}-{:012x}",
                k as u64 * 0x1000 + uuid_n,
                r.next() & 0xffff,
                r.next() & 0xfff,
                r.next() & 0xfff,
                r.next()
            )
        };
        let mut context = base;
        let mut previous_context: Option<f64> = None;
        let mut last_request_t = t;
        let mut reads = Vec::new();
        let mut request = 0u64;
        let common = |kind: &str, u: &str, p: &Option<String>, ts: &str| json!({"parentUuid": p, "isSidechain": false, "userType": "external", "cwd": CWD, "sessionId": id, "version": "2.0.14", "gitBranch": "main", "type": kind, "uuid": u, "timestamp": ts});
        for topic in &session.topics {
            t += topic.pause_s;
            let u = uuid(&mut r);
            let mut line = common("user", &u, &parent, &timestamp(t, r.range(0, 999)));
            line["message"] = json!({"role": "user", "content": topic.prompt});
            lines.push(line.to_string());
            parent = Some(u);
            // The prompt joins the context: after the previous request, or (the first) as
            // part of what the first request reads.
            context += topic.prompt.len() as f64 / rho;
            let steps: Vec<Option<Step>> = topic
                .steps
                .iter()
                .copied()
                .map(Some)
                .chain([None])
                .collect();
            for step in steps {
                t += r.range(2, 9);
                request += 1;
                let msg = format!("msg_01{:020}", k as u64 * 1_000 + request);
                let req = format!("req_011C{:018}", k as u64 * 1_000 + request);
                let output = match step {
                    Some(_) => r.range(60, 420),
                    None => r.range(250, 1_400),
                };
                // Cache: the previous request's prefix, unless it expired.
                let expired = previous_context.is_none() || t - last_request_t > 300;
                let noise = 1.0 + (r.unit() - 0.5) * 0.004;
                let total = (context * noise).round();
                let input = r.range(3, 12) as f64;
                let (read, written) = match (expired, previous_context) {
                    (false, Some(p)) => {
                        (p.min(total - input), total - input - p.min(total - input))
                    }
                    _ => (0.0, total - input),
                };
                let (input, written, read) = (input as u64, written as u64, read as u64);
                let usage = |out: u64| json!({"input_tokens": input, "cache_creation_input_tokens": written, "cache_read_input_tokens": read, "cache_creation": {"ephemeral_5m_input_tokens": written, "ephemeral_1h_input_tokens": 0}, "output_tokens": out, "service_tier": "standard"});
                let thinking = json!({"type": "thinking", "thinking": "Let me look at what the user needs and pick the next step.", "signature": "EuYBCkQYAiJA"});
                let ts = timestamp(t, r.range(0, 999));
                let u = uuid(&mut r);
                let mut snapshot = common("assistant", &u, &parent, &ts);
                snapshot["message"] = json!({"id": msg, "type": "message", "role": "assistant", "model": session.model, "content": [thinking], "stop_reason": null, "stop_sequence": null, "usage": usage(r.range(1, 6))});
                snapshot["requestId"] = json!(req);
                lines.push(snapshot.to_string());
                parent = Some(u);
                t += 1 + output / 60;
                let ts = timestamp(t, r.range(0, 999));
                let u = uuid(&mut r);
                let mut last = common("assistant", &u, &parent, &ts);
                let tool_id = format!("toolu_01{:022}", k as u64 * 1_000 + request);
                let (content, stop, result) = match step {
                    Some(step) => {
                        let (name, input, text) = run_step(&mut r, step, &mut reads);
                        (
                            json!([{"type": "tool_use", "id": tool_id, "name": name, "input": input}]),
                            "tool_use",
                            Some(text),
                        )
                    }
                    None => (
                        json!([{"type": "text", "text": "Done. Here is what I changed and why, with the places to look at first."}]),
                        "end_turn",
                        None,
                    ),
                };
                last["message"] = json!({"id": msg, "type": "message", "role": "assistant", "model": session.model, "content": content, "stop_reason": stop, "stop_sequence": null, "usage": usage(output)});
                last["requestId"] = json!(req);
                lines.push(last.to_string());
                parent = Some(u);
                previous_context = Some(total);
                last_request_t = t;
                // The model's message joins the next request as its bytes (thinking text,
                // tool-use name and input as JSON, or text), as on real logs
                // (src/import/README.md, "What joins the context"); its output tokens are
                // priced, not re-read.
                let own = thinking["thinking"].as_str().map_or(0, str::len)
                    + match step {
                        Some(_) => {
                            let used = &content[0];
                            used["name"].as_str().map_or(0, str::len)
                                + used["input"].to_string().len()
                        }
                        None => content[0]["text"].as_str().map_or(0, str::len),
                    };
                context += own as f64 / rho;
                if let Some(text) = result {
                    t += r.range(1, 25);
                    let u = uuid(&mut r);
                    let mut line = common("user", &u, &parent, &timestamp(t, r.range(0, 999)));
                    line["message"] = json!({"role": "user", "content": [{"tool_use_id": tool_id, "type": "tool_result", "content": text, "is_error": false}]});
                    lines.push(line.to_string());
                    parent = Some(u);
                    context += text.len() as f64 / rho;
                }
            }
        }
        let mut out = BufWriter::new(File::create(dir.join(format!("{id}.jsonl")))?);
        for line in &lines {
            out.write_all(line.as_bytes())?;
            out.write_all(b"\n")?;
        }
        out.flush()?;
        println!("{id}: {request} requests, B = {base:.0}, ρ = {rho:.2}");
    }
    Ok(())
}
