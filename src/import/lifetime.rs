//! Cache writes whose lifetime the log does not say: which lifetime the scenarios assume,
//! and how far the dollars move with the other (docs/model.md §13: a write of unknown
//! lifetime is not silently a 5-minute one).
//!
//! Claude Code's telemetry logs one `cache_creation_tokens` count; its transcripts split
//! it into 5-minute and 1-hour writes. Where the split is missing, the scenario takes the
//! model's 5-minute preset; this note prices those writes both ways at the model's list
//! prices, so the reader sees what the assumption is worth.

use super::trace::Trace;
use crate::cache::models;
use serde::Serialize;

/// The unsplit cache writes of some traces, priced both ways.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Lifetime {
    /// Tokens written to the cache with no lifetime logged.
    pub tokens: u64,
    /// Of them, tokens whose model has both write prices (the dollars below are theirs).
    pub priced_tokens: u64,
    /// Traces that hold such writes.
    pub traces: u64,
    /// Their dollars as the scenarios price them: 5-minute writes.
    pub usd_as_5_minute: f64,
    /// Their dollars as 1-hour writes.
    pub usd_as_1_hour: f64,
}

impl Lifetime {
    /// The unsplit writes of `t`.
    pub fn of(t: &Trace) -> Lifetime {
        let mut l = Lifetime::default();
        for c in &t.calls {
            let m = &c.measured;
            let Some(w) = m.cache_creation_input_tokens.filter(|w| *w > 0) else {
                continue;
            };
            if m.cache_creation_1h_input_tokens.is_some() {
                continue;
            }
            l.tokens += w;
            let prices = c
                .model
                .as_deref()
                .and_then(models::find)
                .and_then(|p| Some((p.cache_write_5m?, p.cache_write_1h?)));
            if let Some((five, hour)) = prices {
                l.priced_tokens += w;
                l.usd_as_5_minute += w as f64 * five / 1e6;
                l.usd_as_1_hour += w as f64 * hour / 1e6;
            }
        }
        l.traces = u64::from(l.tokens > 0);
        l
    }

    /// `self` and `other` together.
    pub fn add(&mut self, other: &Lifetime) {
        self.tokens += other.tokens;
        self.priced_tokens += other.priced_tokens;
        self.traces += other.traces;
        self.usd_as_5_minute += other.usd_as_5_minute;
        self.usd_as_1_hour += other.usd_as_1_hour;
    }

    /// The sentence for the import's summary; None when every write's lifetime is logged.
    pub fn sentence(&self) -> Option<String> {
        if self.tokens == 0 {
            return None;
        }
        let mut s = format!(
            "Cache writes with no lifetime logged: {} tokens in {} trace{}; the scenarios assume 5-minute writes (the cache preset of each model).",
            crate::number::grouped(self.tokens as f64, 0),
            self.traces,
            if self.traces == 1 { "" } else { "s" }
        );
        if self.priced_tokens > 0 && self.usd_as_5_minute > 0.0 {
            let more = self.usd_as_1_hour - self.usd_as_5_minute;
            s.push_str(&format!(
                " Priced at list prices, the {} priced tokens cost ${:.4} as 5-minute writes and ${:.4} as 1-hour writes: ${:.4} more ({:+.0} %) if they were 1-hour writes.",
                crate::number::grouped(self.priced_tokens as f64, 0),
                self.usd_as_5_minute,
                self.usd_as_1_hour,
                more,
                100.0 * more / self.usd_as_5_minute
            ));
        }
        Some(s)
    }
}
