//! Cache forensics (../shared/MODEL.md §12, docs/model.md §4 "Breaks"): every request whose
//! measured cache read falls below what a perfect prefix cache would read, why, and what it
//! cost against the cache having held.
//!
//! A perfect prefix cache never forgets and never misses: a request reads the previous
//! request's input as far as it repeats it (`min(previous, this)` tokens), and the first
//! request of a trace reads the base `B` that every request of every session shares. A
//! request that reads less by more than [`BREAK_MIN_TOKENS`] is a break; the tokens it read
//! short were written again (or, where the provider has no write fee, billed as plain
//! input). Each break is classified from the log, the first that fits of:
//! `ttl`, `compaction`, `model`, `edit`, `tools`, `resume`, `cold`, `provider`,
//! `unexplained`, and priced at its own model: `written × (write − read)` in that model's input tokens, and in
//! dollars where the model's input price is known.

use crate::pricing::Pricing;
use crate::scenario::{Convention, Scenario};
use serde::{Deserialize, Serialize};

/// A shortfall at most this many tokens is not a break: the provider's cache works in
/// blocks (OpenAI's 128 tokens; Anthropic's breakpoint leaves the last message's few
/// uncached tokens), and such tails are counted apart, as [`Breaks::small_tokens`].
pub const BREAK_MIN_TOKENS: f64 = 1024.0;

/// The 1-hour lifetime Anthropic honours for a write logged as
/// `cache_creation.ephemeral_1h_input_tokens` (docs.anthropic.com/en/docs/build-with-claude/prompt-caching,
/// read 2026-12-02).
pub const ONE_HOUR_S: f64 = 3600.0;

/// OpenAI serves cache hits in increments of this many tokens (developers.openai.com/api/docs/guides/prompt-caching,
/// read 2026-12-02): under the OpenAI convention a perfect cache reads the shared prefix
/// rounded down to it, and a request's cache point is its input rounded down to it.
pub const OPENAI_CACHE_BLOCK: f64 = 128.0;

/// Why a cache broke, from the log (first match wins, in this order).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BreakClass {
    /// The pause since the previous request exceeds the lifetime the provider honours for
    /// the trace's writes (the fitted one, or an hour where the log shows 1-hour writes).
    Ttl,
    /// The first request after a compaction (the trace starts at a compaction boundary).
    Compaction,
    /// Another model than the previous request's: each model has its own cache.
    Model,
    /// The measured input fell with no compaction, by any number of tokens: appending
    /// never shrinks a request, so something before its end was removed or rewritten (a
    /// client's microcompact, the API's context editing, thinking the API drops at a new
    /// prompt); or a trace the importer started where the context fell.
    Edit,
    /// The tool list or the base changed before the request: the log records it
    /// (`[call.measured] cache_event = "tools"`: Claude Code's `deferred_tools_delta`), or
    /// the call before it loaded tool definitions (`loaded_tools`, Claude Code's tool
    /// search). On the shared Claude Code 2.1.x logs the first request after a trace's
    /// first tool search read nothing or only the first 10,496 tokens in 4 of 4 traces,
    /// although Anthropic's tool-use-with-prompt-caching page says an inline
    /// `tool_reference` keeps the prefix
    /// (platform.claude.com/docs/en/agents-and-tools/tool-use/tool-use-with-prompt-caching,
    /// read 2026-12-02): the client changes the request when it loads them.
    Tools,
    /// The request came from a new file or process of the same session
    /// (`cache_event = "resume"`).
    Resume,
    /// The first request of a session or a subagent: only what other sessions keep warm
    /// could be read.
    Cold,
    /// The provider held the prefix but served an older one, or none (not in MODEL §12's
    /// list: a deviation, see docs/model.md §4 "Breaks"). Evidence in the log, one of:
    /// the read equals exactly a cache point an earlier request of the trace shows (its
    /// read, or its read plus written tokens; under OpenAI's convention its input rounded
    /// down to 128 tokens): the provider served that older prefix; or a later request
    /// reads exactly a point shown before this one, longer than this read, no longer than
    /// this input and not written again in between: the provider still held it; or it read
    /// nothing mid-turn (no user prompt since the call before) while an earlier request
    /// shows a cache point: not even the start every request shares was found
    /// (`read_none_mid_turn`). On the
    /// shared Bedrock logs requests alternate between such caches (a request reads the
    /// point of the request two or four back); Anthropic's and OpenAI's docs say cache
    /// hits are routed and best effort.
    Provider,
    /// None of the above: within the lifetime, same model, the input did not fall.
    Unexplained,
}

impl BreakClass {
    /// Every class, in the order of the classification.
    pub const ALL: [BreakClass; 9] = [
        BreakClass::Ttl,
        BreakClass::Compaction,
        BreakClass::Model,
        BreakClass::Edit,
        BreakClass::Tools,
        BreakClass::Resume,
        BreakClass::Cold,
        BreakClass::Provider,
        BreakClass::Unexplained,
    ];

    /// The class's name, as in the JSON, `breaks.csv` and `cache = { avoid = [...] }`.
    pub fn key(self) -> &'static str {
        match self {
            BreakClass::Ttl => "ttl",
            BreakClass::Compaction => "compaction",
            BreakClass::Model => "model",
            BreakClass::Edit => "edit",
            BreakClass::Tools => "tools",
            BreakClass::Resume => "resume",
            BreakClass::Cold => "cold",
            BreakClass::Provider => "provider",
            BreakClass::Unexplained => "unexplained",
        }
    }

    /// The class named `key`, if any.
    pub fn from_key(key: &str) -> Option<BreakClass> {
        BreakClass::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// One break.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
pub struct Break {
    /// 1-based position in the trace.
    pub call: usize,
    pub id: String,
    pub label: String,
    pub class: BreakClass,
    /// The pause before the request, seconds (0 for a trace's first request).
    pub gap_s: f64,
    /// The model the request was at, as the log names it.
    pub model: Option<String>,
    /// Tokens a perfect prefix cache would have read.
    pub perfect_read_tokens: f64,
    /// Tokens the provider read, measured.
    pub read_tokens: f64,
    /// `perfect − read`: tokens written again (or billed as plain input) instead of read.
    pub written_tokens: f64,
    /// `written × (write − read)` at the request's model, in that model's input tokens.
    pub cost_input_tokens: f64,
    /// The same in US dollars, at the model's input price; None where it is unknown.
    pub usd: Option<f64>,
}

/// The breaks of one class, summed.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Default)]
pub struct ClassSum {
    pub count: usize,
    pub written_tokens: f64,
    pub cost_input_tokens: f64,
    /// Dollars of the breaks whose model's price is known.
    pub usd: f64,
    /// Of `count`, breaks without a dollar price.
    pub unpriced: usize,
}

impl ClassSum {
    /// Adds `b`.
    pub fn add(&mut self, b: &Break) {
        self.count += 1;
        self.written_tokens += b.written_tokens;
        self.cost_input_tokens += b.cost_input_tokens;
        match b.usd {
            Some(d) => self.usd += d,
            None => self.unpriced += 1,
        }
    }

    /// `self` and `other` together.
    pub fn merge(&mut self, other: &ClassSum) {
        self.count += other.count;
        self.written_tokens += other.written_tokens;
        self.cost_input_tokens += other.cost_input_tokens;
        self.usd += other.usd;
        self.unpriced += other.unpriced;
    }
}

/// Sums by class of `breaks`, every class present, in [`BreakClass::ALL`]'s order.
pub fn by_class<'a>(breaks: impl IntoIterator<Item = &'a Break>) -> Vec<(BreakClass, ClassSum)> {
    let mut sums: Vec<(BreakClass, ClassSum)> = BreakClass::ALL
        .into_iter()
        .map(|c| (c, ClassSum::default()))
        .collect();
    for b in breaks {
        if let Some((_, s)) = sums.iter_mut().find(|(c, _)| *c == b.class) {
            s.add(b);
        }
    }
    sums
}

/// Adds the sums `other` into `into` (both by class; `into` filled with every class when
/// empty).
pub fn merge_by_class(into: &mut Vec<(BreakClass, ClassSum)>, other: &[(BreakClass, ClassSum)]) {
    if into.is_empty() {
        *into = by_class([]);
    }
    for (c, s) in other {
        if let Some((_, t)) = into.iter_mut().find(|(k, _)| k == c) {
            t.merge(s);
        }
    }
}

/// Every break of a trace, and their sums by class.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Breaks {
    /// Requests compared (every measured request that reports cache reads).
    pub requests: usize,
    /// The lifetime a pause is compared with, seconds (the fitted one).
    pub ttl_s: f64,
    /// The base a trace's first request would read from a perfect cache, tokens.
    pub base_tokens: f64,
    /// Every break, in call order.
    pub breaks: Vec<Break>,
    /// Sums by class, in [`BreakClass::ALL`]'s order, every class present.
    pub by_class: Vec<(BreakClass, ClassSum)>,
    /// Shortfalls of at most [`BREAK_MIN_TOKENS`] (not breaks): how many, and their tokens.
    pub small: usize,
    pub small_tokens: f64,
}

impl Breaks {
    /// The sum of every class.
    pub fn total(&self) -> ClassSum {
        let mut t = ClassSum::default();
        for (_, s) in &self.by_class {
            t.merge(s);
        }
        t
    }

    /// The `n` breaks of largest written tokens, largest first.
    pub fn largest(&self, n: usize) -> Vec<&Break> {
        let mut v: Vec<&Break> = self.breaks.iter().collect();
        v.sort_by(|a, b| b.written_tokens.total_cmp(&a.written_tokens));
        v.truncate(n);
        v
    }
}

/// A log's own mark on a request (`[call.measured] cache_event`).
fn event(s: &Scenario, i: usize) -> Option<&str> {
    s.calls.at(i).usage()?.cache_event.as_deref()
}

/// A request that reports cache reads: `(call index, total input, read, cache point)`,
/// the point being how far the prefix the provider holds after it reaches (Anthropic:
/// read + written; OpenAI: the input rounded down to [`OPENAI_CACHE_BLOCK`]).
type Seen = (usize, f64, f64, f64);

/// Every request of `s` that reports cache reads, in call order.
fn measured(s: &Scenario) -> Vec<Seen> {
    s.calls
        .iter()
        .enumerate()
        .filter_map(|(i, call)| {
            let u = call.usage()?;
            let total = u.total_input()?;
            let read = u.cache_read_input_tokens?;
            let point = match u.convention {
                Convention::Anthropic => read + u.cache_creation_input_tokens.unwrap_or(0.0),
                Convention::OpenAi => (total / OPENAI_CACHE_BLOCK).floor() * OPENAI_CACHE_BLOCK,
            };
            Some((i, total, read, point))
        })
        .collect()
}

/// Whether the log shows that the provider held a prefix call `i` could have read, yet
/// served it an older one or none ([`BreakClass::Provider`]): its read is exactly a cache
/// point (or read) of an earlier request; or a later request reads exactly such an
/// earlier point, longer than this read by more than [`BREAK_MIN_TOKENS`], no longer than
/// this input, with no request from this one to it having written that point again.
fn provider_evidence(seen: &[Seen], i: usize) -> bool {
    let Some(at) = seen.iter().position(|r| r.0 == i) else {
        return false;
    };
    let (_, total, read, _) = seen[at];
    let earlier = |x: f64| x > 0.0 && seen[..at].iter().any(|r| r.2 == x || r.3 == x);
    if earlier(read) {
        return true;
    }
    seen.iter().enumerate().skip(at + 1).any(|(k, r)| {
        let held = r.2;
        held > read + BREAK_MIN_TOKENS
            && held <= total
            && earlier(held)
            && !seen[at..k].iter().any(|w| w.3 == held)
    })
}

/// Whether request `i` read nothing in the middle of a turn although the provider held a
/// prefix of the trace ([`BreakClass::Provider`]): its read is 0; it is in the same segment
/// as the call before it (no user prompt joined between them: only tool results and the
/// model's own output, appended to a request whose start (tools, system prompt,
/// instructions) does not change); and an earlier request of the trace shows a cache point
/// of more than [`BREAK_MIN_TOKENS`]. A client that changes its request still shares that
/// start with the request before, so a read of nothing means the request reached a cache
/// that held none of it. On the shared logs no request read nothing within the lifetime,
/// but after a tool search, through Anthropic's own API (claude-code-log, 79 traces) or in
/// the Codex 0.104 rollouts (localpush-codex), while mid-turn 8 requests did that no other
/// rule explained on the Claude Code sessions through Amazon Bedrock, and 14 of 66 in the
/// Codex 0.125 rollout (gpt-5.5), all in one turn. At a new prompt (another segment) a
/// read of nothing stays unexplained: the client may rewrite the conversation there, and
/// on Bedrock such reads grow with the pause, so an early expiry cannot be ruled out
/// (docs/model.md §4 "Breaks").
fn read_none_mid_turn(s: &Scenario, seen: &[Seen], i: usize, read: f64) -> bool {
    read == 0.0
        && i > 0
        && s.calls.at(i).segment == s.calls.at(i - 1).segment
        && seen
            .iter()
            .take_while(|r| r.0 < i)
            .any(|r| r.3 > BREAK_MIN_TOKENS)
}

/// Whether tool search loaded tool definitions just before request `i`: the call before it
/// has `loaded_tools` (a `tool_reference` result joined after it), so request `i` is the
/// first to carry them ([`BreakClass::Tools`]).
fn loaded_before(s: &Scenario, i: usize) -> bool {
    i > 0 && s.calls.at(i - 1).detail.is_some_and(|d| d.loaded_tools > 0)
}

/// The breaks of `s` under its own values: its `[cache]` lifetime (fitted where written;
/// [`super::cache::DEFAULT_TTL_S`] without a cache) and its B.
pub fn of(s: &Scenario) -> Option<Breaks> {
    let ttl_s = s
        .cache
        .as_ref()
        .map_or(super::cache::DEFAULT_TTL_S, |c| c.ttl_s);
    breaks(s, ttl_s, s.base_tokens)
}

/// Classifies and prices every break of `s`, comparing pauses with `ttl_s` (the fitted
/// lifetime) and a first request with `base_tokens` (the fitted B). None when no request
/// reports cache reads.
pub fn breaks(s: &Scenario, ttl_s: f64, base_tokens: f64) -> Option<Breaks> {
    let pricing = Pricing::of(s);
    let trace = s.import.as_ref().map(|i| i.trace.as_str());
    let mut out = Breaks {
        requests: 0,
        ttl_s,
        base_tokens,
        breaks: Vec::new(),
        by_class: BreakClass::ALL
            .into_iter()
            .map(|c| (c, ClassSum::default()))
            .collect(),
        small: 0,
        small_tokens: 0.0,
    };
    let seen = measured(s);
    let mut before: Option<(f64, Option<&str>)> = None;
    let mut one_hour = false;
    let mut any_read = false;
    for (i, call) in s.calls.iter().enumerate() {
        let Some(u) = call.usage() else { continue };
        let Some(total) = u.total_input() else {
            continue;
        };
        let model = u.model.as_deref();
        let Some(read) = u.cache_read_input_tokens else {
            before = Some((total, model));
            continue;
        };
        any_read |= read > 0.0;
        out.requests += 1;
        let shared = match before {
            None => base_tokens.min(total),
            Some((prev, _)) => prev.min(total),
        }
        .max(0.0);
        // OpenAI serves hits in 128-token blocks: the rest of a block is not a shortfall.
        let perfect = match u.convention {
            Convention::OpenAi => (shared / OPENAI_CACHE_BLOCK).floor() * OPENAI_CACHE_BLOCK,
            Convention::Anthropic => shared,
        };
        let short = perfect - read;
        let lifetime = if one_hour {
            ttl_s.max(ONE_HOUR_S)
        } else {
            ttl_s
        };
        one_hour |= u.cache_creation_1h_input_tokens.is_some_and(|t| t > 0.0);
        if short > BREAK_MIN_TOKENS {
            let class = match before {
                None => match trace {
                    Some("after-compaction") => BreakClass::Compaction,
                    Some("after-reset") => BreakClass::Edit,
                    _ => match event(s, i) {
                        Some("resume") => BreakClass::Resume,
                        Some("tools") => BreakClass::Tools,
                        _ => BreakClass::Cold,
                    },
                },
                Some((prev, prev_model)) => {
                    if call.gap_s > lifetime {
                        BreakClass::Ttl
                    } else if event(s, i) == Some("compaction") {
                        BreakClass::Compaction
                    } else if model.is_some() && prev_model.is_some() && model != prev_model {
                        BreakClass::Model
                    } else if total < prev || event(s, i) == Some("edit") {
                        BreakClass::Edit
                    } else if event(s, i) == Some("tools") || loaded_before(s, i) {
                        BreakClass::Tools
                    } else if event(s, i) == Some("resume") {
                        BreakClass::Resume
                    } else if provider_evidence(&seen, i) || read_none_mid_turn(s, &seen, i, read) {
                        BreakClass::Provider
                    } else {
                        BreakClass::Unexplained
                    }
                }
            };
            let m = pricing.model_of_call(i as u32);
            let (read_price, write_price) =
                m.cache.as_ref().map_or((1.0, 1.0), |c| (c.read, c.write));
            let cost = short * (write_price - read_price);
            let b = Break {
                call: i + 1,
                id: call.id.to_string(),
                label: call.label.to_string(),
                class,
                gap_s: if before.is_some() { call.gap_s } else { 0.0 },
                model: model.map(str::to_string),
                perfect_read_tokens: perfect,
                read_tokens: read,
                written_tokens: short,
                cost_input_tokens: cost,
                usd: m.price.as_ref().map(|p| cost * p.input / 1e6),
            };
            if let Some((_, sum)) = out.by_class.iter_mut().find(|(c, _)| *c == class) {
                sum.add(&b);
            }
            out.breaks.push(b);
        } else if short > 0.0 {
            out.small += 1;
            out.small_tokens += short;
        }
        before = Some((total, model));
    }
    any_read.then_some(out)
}

#[cfg(test)]
mod tests;
