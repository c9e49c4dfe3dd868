//! Random small scenarios for the oracle test: seeded, every key the oracle implements
//! (MODEL.md §1–§5 and §9), edits of every kind, alone and in `steps`, clearings and
//! compactions also `at = "cold"` (docs/model.md §9).

use std::cell::RefCell;
use std::fmt::Write as _;

/// SplitMix64: a small seeded generator, so every case is reproducible from its seed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A whole number in `lo..=hi`.
    pub fn int(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next() % (hi - lo + 1)
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64 <= p
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.int(0, items.len() as u64 - 1) as usize]
    }
}

/// What a case may contain.
#[derive(Clone, Copy)]
pub struct Options {
    /// Edits with `clear = { api = "clear_tool_uses_20250919", … }`.
    pub context_editing: bool,
}

/// One generated call, as the generator tracks it to write valid edits.
#[derive(Clone)]
struct Call {
    id: String,
    bytes: Option<u64>,
    segment: u64,
}

/// The models a case may name: those the oracle has prices for (src/cache/litellm.json).
const MODELS: [&str; 3] = ["claude-sonnet-4-5", "claude-opus-4-5", "claude-haiku-4-5"];

/// A random scenario's TOML text.
pub fn scenario(seed: u64, options: Options) -> String {
    let mut r = Rng::new(seed);
    // A second stream for `at = "cold"` and the pauses at the cache lifetime that make it
    // matter, so the main stream (and every case made before them) is unchanged.
    let mut side = Rng::new(seed ^ 0xC01D_C01D_C01D_C01D);
    let cold_case = side.chance(0.5);
    // A third stream for the fitted cache terms (μ, w), the trace's kind and `avoid`
    // (docs/model.md §4 and §9), so the cases made before them are unchanged.
    let mut fitted = Rng::new(seed ^ 0xA501_D0A5_01D0_A501);
    // A fourth stream for a cache step's `only_longer` and `providers`, and calls measured
    // at OpenAI for `providers` to leave out (not beside Anthropic's context editing, which
    // a scenario of OpenAI calls refuses).
    let mut hour = Rng::new(seed ^ 0x0001_4004_0001_4004);
    let openai = hour.chance(0.2) && !options.context_editing;
    let mut t = String::new();
    let base = r.int(2_000, 40_000) as f64 + if r.chance(0.3) { 0.5 } else { 0.0 };
    let rho = *r.pick(&[1.0, 2.5, 3.3, 4.0, 1.7]);
    writeln!(t, "name = \"case-{seed}\"").unwrap();
    writeln!(t, "base_tokens = {base:?}").unwrap();
    writeln!(t, "bytes_per_token = {rho:?}").unwrap();
    let retry = if r.chance(0.2) {
        *r.pick(&[0.1, 0.25, 1.0])
    } else {
        0.0
    };
    if retry > 0.0 || r.chance(0.1) {
        writeln!(t, "retry_rate = {retry:?}").unwrap();
    }
    let cache = r.chance(0.7);
    let read = *r.pick(&[0.1, 0.25, 0.5]);
    // The smallest B any sweep point may take: parts and base edits stay below it.
    let mut min_base = base * 2.0 / 3.0;
    let mut max_base = base * 4.0 / 3.0;
    if r.chance(0.3) {
        let bs = [base * 0.5, base, base * 1.5];
        min_base = base * 0.5;
        max_base = base * 1.5;
        writeln!(t, "[sweep]").unwrap();
        writeln!(t, "base_tokens = [{:?}, {:?}, {:?}]", bs[0], bs[1], bs[2]).unwrap();
        if r.chance(0.5) {
            writeln!(t, "bytes_per_token = {{ from = 1.5, to = 4.5, steps = 4 }}").unwrap();
        } else {
            writeln!(t, "bytes_per_token = [{rho:?}, 3.0]").unwrap();
        }
        if cache && r.chance(0.5) {
            writeln!(t, "cache_read = [{read:?}, 0.3]").unwrap();
        }
        if r.chance(0.3) {
            writeln!(t, "retry_rate = [0.0, 0.5]").unwrap();
        }
        if r.chance(0.3) {
            writeln!(t, "refetch = [0.0, 0.3, 1.0]").unwrap();
        }
    }
    // MODEL §11: the re-fetch rate assumed (one in three, a swept default, every result).
    if r.chance(0.3) {
        let p = *r.pick(&[1.0 / 3.0, 0.25, 0.5, 1.0]);
        writeln!(t, "[behaviour]\nrefetch = {p:?}").unwrap();
    }
    let price = if r.chance(0.5) {
        let (input, output) = *r.pick(&[(3.0, 15.0), (1.0, 5.0), (5.0, 25.0), (2.0, 7.0)]);
        Some((input, output, r.chance(0.8)))
    } else {
        None
    };
    let priced_output = matches!(price, Some((_, _, true)));
    if cache {
        writeln!(t, "[cache]").unwrap();
        writeln!(t, "read = {read:?}").unwrap();
        writeln!(t, "write = {:?}", r.pick(&[1.0, 1.25, 2.0])).unwrap();
        writeln!(t, "ttl_s = {}", r.pick(&[300, 3600])).unwrap();
        writeln!(t, "min_tokens = {}", r.pick(&[0, 512, 1024, 2048, 4096])).unwrap();
        if !priced_output && r.chance(0.3) {
            // The output ratio given by hand (then said to be assumed): MODEL §4.
            writeln!(t, "output = {:?}", r.pick(&[4.0, 5.0])).unwrap();
        }
        if fitted.chance(0.4) {
            writeln!(t, "miss_share = {:?}", fitted.pick(&[0.1, 0.5, 1.0])).unwrap();
        }
        if fitted.chance(0.4) {
            writeln!(t, "warm_share = {:?}", fitted.pick(&[0.25, 0.6, 1.0])).unwrap();
        }
    }
    if fitted.chance(0.25) {
        let trace = fitted.pick(&["subagent", "after-compaction", "main"]);
        writeln!(
            t,
            "[import]\nformat = \"claude-code\"\nfile = \"oracle.jsonl\"\ntrace = \"{trace}\""
        )
        .unwrap();
    }
    if let Some((input, output, with_output)) = price {
        writeln!(t, "[price]").unwrap();
        writeln!(t, "input = {input:?}").unwrap();
        if with_output {
            writeln!(t, "output = {output:?}").unwrap();
        }
        writeln!(t, "source = \"oracle test\"").unwrap();
    }
    let part = r.chance(0.35);
    let part_tokens = (min_base * 0.3).floor();
    if part {
        writeln!(t, "[[base.part]]").unwrap();
        writeln!(t, "name = \"mcp:gh\"").unwrap();
        writeln!(t, "tokens = {part_tokens:?}").unwrap();
        writeln!(t, "source = \"oracle test\"").unwrap();
        writeln!(t, "tools = [\"mcp__gh__*\"]").unwrap();
    }

    // The calls.
    let n = r.int(1, 30) as usize;
    let mut calls: Vec<Call> = Vec::new();
    let mut segment = 1;
    for k in 0..n {
        writeln!(t, "\n[[call]]").unwrap();
        let id = format!("c{}", k + 1);
        writeln!(t, "id = \"{id}\"").unwrap();
        if r.chance(0.5) {
            writeln!(t, "label = \"label {}\"", k + 1).unwrap();
        }
        let kind = *r.pick(&[
            "tool",
            "tool",
            "tool",
            "tool",
            "tool",
            "tool",
            "prompt",
            "preload",
            "web_search",
            "doc",
        ]);
        let tiny = r.chance(0.05);
        let mut bytes = None;
        if tiny {
            // Not exactly the default placeholder's 9 bytes: a clearing that frees 0
            // tokens is tested apart (tests/oracle.rs, freeing_nothing…).
            bytes = Some(match r.int(0, 20) {
                9 => 10,
                b => b,
            });
        } else if r.chance(0.85) {
            bytes = Some(r.int(0, 20_000));
        }
        if let Some(b) = bytes {
            writeln!(t, "bytes = {b}").unwrap();
        }
        if bytes.is_none() || r.chance(0.15) {
            // At least 300: a placeholder larger than a result given in tokens frees
            // fewer than 0 tokens at some ρ only, which the sweep does not replay
            // (tested apart: tests/oracle.rs, a_clearing_that_frees…).
            writeln!(t, "tokens = {}", r.int(300, 3_000)).unwrap();
        }
        if kind != "tool" || r.chance(0.1) {
            writeln!(t, "kind = \"{kind}\"").unwrap();
        }
        let tool = match kind {
            "web_search" => Some("WebSearch"),
            "prompt" => None,
            _ => Some(*r.pick(&["Read", "Bash", "Grep", "mcp__gh__issue", "Read"])),
        };
        if let Some(tool) = tool {
            writeln!(t, "tool = \"{tool}\"").unwrap();
        }
        if r.chance(0.08) {
            writeln!(t, "pinned = {}", r.chance(0.5)).unwrap();
        }
        if k > 0 && r.chance(0.2) {
            segment += 1;
            writeln!(t, "segment = {segment}").unwrap();
        } else if r.chance(0.1) {
            writeln!(t, "segment = {segment}").unwrap();
        }
        let mut gap = if k > 0 && r.chance(0.25) {
            Some(*r.pick(&[5, 200, 301, 400, 1_000, 3_601, 5_000]))
        } else {
            None
        };
        if cold_case && k > 0 && side.chance(0.3) {
            // At, just under and just over both lifetimes (300 s, 3,600 s): a pause equal
            // to the lifetime is not cold.
            gap = Some(*side.pick(&[10, 299, 300, 301, 3_599, 3_600, 3_601]));
        }
        if let Some(gap) = gap {
            writeln!(t, "gap_s = {gap}").unwrap();
        }
        if r.chance(0.5) {
            writeln!(t, "output_tokens = {}", r.int(0, 2_000)).unwrap();
        }
        if r.chance(0.15) {
            writeln!(t, "[call.measured]").unwrap();
            writeln!(t, "input_tokens = {}", r.int(1, 50_000)).unwrap();
            writeln!(t, "output_tokens = {}", r.int(0, 2_000)).unwrap();
            let convention = if openai { "openai" } else { "anthropic" };
            writeln!(t, "convention = \"{convention}\"").unwrap();
        }
        calls.push(Call { id, bytes, segment });
    }

    // The edits.
    let edits = r.int(1, 8);
    let context_scale = base + 6_000.0 * n as f64 / rho;
    let g = Gen {
        cache,
        part,
        part_tokens,
        min_base,
        max_base,
        context_scale,
        options,
        cold: cold_case.then(|| RefCell::new(side)),
        fitted: RefCell::new(fitted),
        hour: RefCell::new(hour),
    };
    for e in 0..edits {
        let mut current = calls.clone();
        let steps = if r.chance(0.25) { r.int(2, 3) } else { 1 };
        let mut texts = Vec::new();
        let mut kinds = Vec::new();
        for s in 0..steps {
            let last = s + 1 == steps;
            if let Some((kind, text)) = g.step(&mut r, &mut current, last, &kinds) {
                kinds.push(kind);
                texts.push(text);
            }
        }
        if texts.is_empty() {
            continue;
        }
        writeln!(t, "\n[[edit]]\nname = \"e{}\"", e + 1).unwrap();
        if texts.len() == 1 {
            writeln!(t, "{}", texts[0]).unwrap();
        } else {
            let inner: Vec<String> = texts.iter().map(|s| format!("{{ {s} }}")).collect();
            writeln!(t, "steps = [\n  {},\n]", inner.join(",\n  ")).unwrap();
        }
    }
    t
}

/// The kinds of step, to keep out combinations MODEL.md leaves open.
#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Structure,
    Merge,
    Base,
    Defer,
    Policy,
    Cache,
    Model,
}

struct Gen {
    cache: bool,
    part: bool,
    part_tokens: f64,
    min_base: f64,
    max_base: f64,
    context_scale: f64,
    options: Options,
    /// The second stream, where clearings and compactions may wait for a cold call.
    cold: Option<RefCell<Rng>>,
    /// The third stream, where a cache step may name break classes to avoid.
    fitted: RefCell<Rng>,
    /// The fourth stream, where a cache step may apply only where it lengthens the cache's
    /// lifetime, or only to some providers.
    hour: RefCell<Rng>,
}

impl Gen {
    /// One step as `action = { … }`, applied to `calls` as the engine will apply it.
    fn step(
        &self,
        r: &mut Rng,
        calls: &mut Vec<Call>,
        last: bool,
        before: &[Kind],
    ) -> Option<(Kind, String)> {
        for _ in 0..10 {
            let choice = r.int(0, 11);
            let out = match choice {
                0 => self.trim(r, calls),
                1 => self.merge(r, calls),
                2 => self.drop(r, calls),
                3 => self.moved(r, calls),
                4 | 5 if last && !before.contains(&Kind::Defer) => self.clear(r),
                6 if last && !before.contains(&Kind::Defer) => self.compact(r),
                7 if !before.contains(&Kind::Base) => self.base(r, before),
                8 if !before.contains(&Kind::Model) && !before.contains(&Kind::Cache) => {
                    self.cache(r)
                }
                9 if !before.contains(&Kind::Model) && !before.contains(&Kind::Cache) => {
                    Some((Kind::Model, self.model(r)))
                }
                10 if last && self.options.context_editing && !before.contains(&Kind::Defer) => {
                    Some((Kind::Policy, self.context_editing(r)))
                }
                11 if self.part
                    && !before.contains(&Kind::Defer)
                    && !before.contains(&Kind::Base)
                    && !before.contains(&Kind::Merge)
                    && !before.contains(&Kind::Policy) =>
                {
                    Some((
                        Kind::Defer,
                        format!(
                            "base = {{ defer = \"mcp:gh\", stub_tokens = {} }}",
                            r.pick(&[0, 300, 500])
                        ),
                    ))
                }
                _ => None,
            };
            if let Some(out) = out {
                // A defer after a merge would need the merged call's tool; a policy must
                // be the last step.
                if out.0 == Kind::Merge && before.contains(&Kind::Defer) {
                    continue;
                }
                return Some(out);
            }
        }
        None
    }

    fn trim(&self, r: &mut Rng, calls: &mut [Call]) -> Option<(Kind, String)> {
        let k = r.int(0, calls.len() as u64 - 1) as usize;
        let c = &mut calls[k];
        // The binary takes a call of 0 bytes for one without bytes (reported).
        let text = match (c.bytes.filter(|&b| b > 0), r.int(0, 2)) {
            (Some(b), 0) => {
                let by = r.int(1, b);
                c.bytes = Some(b - by);
                format!("trim = {{ call = \"{}\", by_bytes = {by} }}", c.id)
            }
            (Some(b), 1) => {
                let to = r.int(0, b);
                c.bytes = Some(to);
                format!("trim = {{ call = \"{}\", to_bytes = {to} }}", c.id)
            }
            _ => {
                // Scales bytes and tokens; the generator keeps whole bytes only for the
                // by_bytes/to_bytes steps, so the call is no longer a target of those.
                c.bytes = None;
                format!(
                    "trim = {{ call = \"{}\", by_percent = {} }}",
                    c.id,
                    r.pick(&[10, 33, 50, 100])
                )
            }
        };
        Some((Kind::Structure, text))
    }

    fn merge(&self, r: &mut Rng, calls: &mut Vec<Call>) -> Option<(Kind, String)> {
        if calls.len() < 2 {
            return None;
        }
        let k = r.int(2, 3.min(calls.len() as u64)) as usize;
        let mut picked: Vec<usize> = Vec::new();
        while picked.len() < k {
            let i = r.int(0, calls.len() as u64 - 1) as usize;
            if !picked.contains(&i) {
                picked.push(i);
            }
        }
        let ids: Vec<String> = picked
            .iter()
            .map(|&i| format!("\"{}\"", calls[i].id))
            .collect();
        let at = if r.chance(0.5) { "first" } else { "last" };
        let overhead = if r.chance(0.5) { r.int(0, 300) } else { 0 };
        let mut sorted = picked.clone();
        sorted.sort_unstable();
        let keep = if at == "first" {
            sorted[0]
        } else {
            sorted[sorted.len() - 1]
        };
        // The merged call's bytes are no longer tracked as whole (a by_bytes trim of a
        // merged call of tokens only would be refused).
        calls[keep].bytes = None;
        let mut i = calls.len();
        while i > 0 {
            i -= 1;
            if i != keep && sorted.contains(&i) {
                calls.remove(i);
            }
        }
        Some((
            Kind::Merge,
            format!(
                "merge = {{ calls = [{}], overhead_bytes = {overhead}, at = \"{at}\" }}",
                ids.join(", ")
            ),
        ))
    }

    fn drop(&self, r: &mut Rng, calls: &mut Vec<Call>) -> Option<(Kind, String)> {
        if calls.len() < 2 {
            return None;
        }
        let k = r.int(0, calls.len() as u64 - 1) as usize;
        let c = calls.remove(k);
        Some((Kind::Structure, format!("drop = {{ call = \"{}\" }}", c.id)))
    }

    /// A move within the call's own segment (segments stay contiguous, MODEL §3).
    fn moved(&self, r: &mut Rng, calls: &mut Vec<Call>) -> Option<(Kind, String)> {
        let k = r.int(0, calls.len() as u64 - 1) as usize;
        let seg = calls[k].segment;
        let others: Vec<usize> = (0..calls.len())
            .filter(|&i| i != k && calls[i].segment == seg)
            .collect();
        if others.is_empty() {
            return None;
        }
        let target = *r.pick(&others);
        let before = r.chance(0.5);
        let text = format!(
            "move = {{ call = \"{}\", {} = \"{}\" }}",
            calls[k].id,
            if before { "before" } else { "after" },
            calls[target].id
        );
        let tid = calls[target].id.clone();
        let c = calls.remove(k);
        let t = calls.iter().position(|x| x.id == tid)?;
        calls.insert(if before { t } else { t + 1 }, c);
        Some((Kind::Structure, text))
    }

    fn clear(&self, r: &mut Rng) -> Option<(Kind, String)> {
        let mut keys = Vec::new();
        while keys.is_empty() {
            if r.chance(0.3) {
                keys.push(format!("every_segments = {}", r.int(1, 3)));
            }
            if r.chance(0.3) {
                keys.push(format!("above_tool_bytes = {}", r.int(1_000, 60_000)));
            }
            if r.chance(0.3) {
                let x = self.context_scale * (0.2 + 0.6 * r.int(0, 100) as f64 / 100.0);
                keys.push(format!("above_context_tokens = {}", x.round()));
            }
            if r.chance(0.2) {
                keys.push(format!("older_than_calls = {}", r.int(1, 6)));
            }
            if r.chance(0.2) {
                keys.push(format!("after_gap_s = {}", r.pick(&[1, 300, 1_000])));
            }
            if r.chance(0.2) {
                keys.push(format!("every_calls = {}", r.int(1, 6)));
            }
        }
        if r.chance(0.4) {
            keys.push(format!("keep_segments = {}", r.int(0, 2)));
        }
        if r.chance(0.4) {
            keys.push(format!("keep_results = {}", r.int(0, 4)));
        }
        if r.chance(0.25) {
            keys.push(format!(
                "clear_at_least_tokens = {}",
                r.pick(&[100, 2_000, 10_000])
            ));
        }
        if r.chance(0.2) {
            keys.push(format!("placeholder_bytes = {}", r.pick(&[0, 9, 30])));
        }
        if r.chance(0.15) {
            keys.push(
                r.pick(&[
                    "exclude_kinds = []",
                    "exclude_kinds = [\"web_search\", \"prompt\"]",
                ])
                .to_string(),
            );
        }
        if r.chance(0.15) {
            keys.push(
                r.pick(&["tools = [\"Read\", \"Bash\"]", "exclude_tools = [\"Grep\"]"])
                    .to_string(),
            );
        }
        keys.extend(self.at_cold());
        Some((Kind::Policy, format!("clear = {{ {} }}", keys.join(", "))))
    }

    /// `at = "cold"` on half the policies of a cold case (docs/model.md §9).
    fn at_cold(&self) -> Option<String> {
        let side = self.cold.as_ref()?;
        side.borrow_mut()
            .chance(0.5)
            .then(|| "at = \"cold\"".to_string())
    }

    fn context_editing(&self, r: &mut Rng) -> String {
        let trigger = self.context_scale * (0.2 + 0.6 * r.int(0, 100) as f64 / 100.0);
        let mut keys = vec![
            "api = \"clear_tool_uses_20250919\"".to_string(),
            format!("trigger_input_tokens = {}", trigger.round()),
        ];
        if r.chance(0.7) {
            keys.push(format!("keep_tool_uses = {}", r.int(0, 4)));
        }
        if r.chance(0.3) {
            keys.push(format!(
                "clear_at_least_tokens = {}",
                r.pick(&[100, 2_000, 10_000])
            ));
        }
        if r.chance(0.2) {
            keys.push("exclude_tools = [\"Read\"]".to_string());
        }
        format!("clear = {{ {} }}", keys.join(", "))
    }

    /// A trigger above B + summary at every swept B (a lower one would compact before
    /// every call).
    fn compact(&self, r: &mut Rng) -> Option<(Kind, String)> {
        let summary = *r.pick(&[200, 1_000, 3_000]);
        let lowest = self.max_base * 1.1 + summary as f64 + 1_000.0;
        let x = lowest + self.context_scale * 0.5 * r.int(0, 100) as f64 / 100.0;
        let keep = if r.chance(0.3) {
            format!(", keep_calls = {}", r.int(1, 2))
        } else {
            String::new()
        };
        let trigger = if r.chance(0.3) {
            // The same trigger as a share of a window.
            format!("at_percent = 50, window_tokens = {}", 2.0 * x.round())
        } else {
            format!("above_context_tokens = {}", x.round())
        };
        let cold = self.at_cold().map(|s| format!(", {s}")).unwrap_or_default();
        Some((
            Kind::Policy,
            format!("compact = {{ {trigger}, summary_tokens = {summary}{keep}{cold} }}"),
        ))
    }

    fn base(&self, r: &mut Rng, before: &[Kind]) -> Option<(Kind, String)> {
        let room = (self.min_base - if self.part { self.part_tokens } else { 0.0 }) * 0.3;
        let text = match r.int(0, 4) {
            0 => format!(
                "base = {{ by_tokens = {} }}",
                r.int(0, room as u64) as i64 - (room / 3.0) as i64
            ),
            1 => format!("base = {{ by_bytes = {} }}", r.int(0, room as u64)),
            2 => format!(
                "base = {{ to_tokens = {} }}",
                r.int(self.part_tokens as u64 + 1, self.min_base as u64)
            ),
            // Dropping and deferring one part in one edit is an error.
            _ if self.part && !before.contains(&Kind::Defer) => {
                "base = { drop = \"mcp:gh\" }".to_string()
            }
            _ => return None,
        };
        Some((Kind::Base, text))
    }

    fn cache(&self, r: &mut Rng) -> Option<(Kind, String)> {
        let mut keys = Vec::new();
        if r.chance(0.7) {
            keys.push(format!("ttl_s = {}", r.pick(&[300, 3600])));
        }
        if r.chance(0.6) {
            keys.push(format!("write = {:?}", r.pick(&[1.25, 2.0])));
        }
        if r.chance(0.3) {
            keys.push(format!("read = {:?}", r.pick(&[0.05, 0.2])));
        }
        if r.chance(0.3) {
            keys.push(format!("min_tokens = {}", r.pick(&[0, 1024, 4096])));
        }
        let avoid = self.avoid();
        if keys.is_empty() {
            let avoid = avoid?;
            return Some((Kind::Cache, format!("cache = {{ {avoid} }}")));
        }
        if !self.cache && r.chance(0.7) {
            return None;
        }
        keys.extend(avoid);
        let mut h = self.hour.borrow_mut();
        if keys.iter().any(|k| k.starts_with("ttl_s")) && h.chance(0.35) {
            keys.push("only_longer = true".to_string());
        }
        if h.chance(0.25) {
            keys.push(
                h.pick(&[
                    "providers = [\"anthropic\"]",
                    "providers = [\"openai\"]",
                    "providers = [\"openai\", \"anthropic\"]",
                ])
                .to_string(),
            );
        }
        if r.chance(0.15) {
            keys.push(
                r.pick(&["traces = [\"main\"]", "traces = [\"subagent\"]"])
                    .to_string(),
            );
        }
        Some((Kind::Cache, format!("cache = {{ {} }}", keys.join(", "))))
    }

    /// `avoid = [...]` of some break classes (never `model`, which the binary refuses), or
    /// none, from the third stream.
    fn avoid(&self) -> Option<String> {
        let mut f = self.fitted.borrow_mut();
        if !f.chance(0.35) {
            return None;
        }
        let classes = [
            "ttl",
            "cold",
            "compaction",
            "unexplained",
            "edit",
            "provider",
        ];
        let picked: Vec<String> = classes
            .iter()
            .filter(|_| f.chance(0.4))
            .map(|c| format!("\"{c}\""))
            .collect();
        if picked.is_empty() {
            return Some("avoid = [\"ttl\"]".to_string());
        }
        Some(format!("avoid = [{}]", picked.join(", ")))
    }

    fn model(&self, r: &mut Rng) -> String {
        let to = r.pick(&MODELS);
        if r.chance(0.6) {
            format!(
                "model = {{ to = \"{to}\", tokens_factor = {:?} }}",
                r.pick(&[1.3, 0.8, 1.0])
            )
        } else {
            format!("model = {{ to = \"{to}\" }}")
        }
    }
}
