//! Where the reread total goes: the share each tool's results cause.
//!
//! A result of size `s_j` joining after call j is re-read by every later call, so it adds
//! `s_j·(n − j)` to the reread total (docs/model.md §1's closed form, term by term). Summed per
//! tool (or per kind where a call names no tool), with the base and the model's own output
//! as rows of their own, the shares add up to the whole total: "which tool's output costs
//! me the most", and so which edit to try first.

use crate::evaluate::Study;
use crate::ledger::Assumptions;
use rustc_hash::FxHashMap;
use serde::Serialize;

/// One row: a tool, a kind, the base, or the model's output.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ToolShare {
    /// `Bash`, `kind: web_search`, `base (system prompt, tools)` or `model output`.
    pub group: String,
    /// Calls whose results are in this group (for the base: every call; for the model's
    /// output: the calls that wrote some).
    pub calls: usize,
    /// What the group's results add to the context once, in est. tokens.
    pub result_tokens: f64,
    /// What they add to the reread total: each result times the calls that re-read it.
    pub reread_tokens: f64,
    /// `100 · reread_tokens / T`.
    pub share_pct: f64,
}

/// What a call's result is grouped by: its tool, or its kind where it names no tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Key<'a> {
    Group(&'a str),
    Kind(&'a str),
}

impl Key<'_> {
    fn name(self) -> String {
        match self {
            Key::Group(g) => g.to_string(),
            Key::Kind(k) => format!("kind: {k}"),
        }
    }

    /// The same key, known by where its text lies (a trace's calls share one text per
    /// kind), or by the text.
    #[inline]
    fn same(self, other: Key<'_>) -> bool {
        let (a, b) = match (self, other) {
            (Key::Group(a), Key::Group(b)) | (Key::Kind(a), Key::Kind(b)) => (a, b),
            _ => return false,
        };
        std::ptr::eq(a, b) || a == b
    }
}

/// The rows being summed, each found by its key: one lookup a call, most often the
/// previous call's row.
#[derive(Default)]
struct Rows<'a> {
    rows: Vec<(Key<'a>, ToolShare)>,
    index: FxHashMap<Key<'a>, usize>,
    last: Option<usize>,
}

impl<'a> Rows<'a> {
    /// The row of `key`: most often the previous call's, else found ([`Rows::find`]).
    #[inline(always)]
    fn row(&mut self, key: Key<'a>) -> usize {
        match self.last.filter(|&i| self.rows[i].0.same(key)) {
            Some(i) => i,
            None => {
                let i = self.find(key);
                self.last = Some(i);
                i
            }
        }
    }

    /// Adds to row `i` a result re-read `rereads` times (and a call, if `count`).
    #[inline(always)]
    fn add(&mut self, i: usize, result: f64, rereads: f64, count: bool) {
        let row = &mut self.rows[i].1;
        row.calls += usize::from(count);
        row.result_tokens += result;
        row.reread_tokens += result * rereads;
    }

    /// The row of `key`, added if new.
    #[inline(never)]
    fn find(&mut self, key: Key<'a>) -> usize {
        if let Some(&i) = self.index.get(&key) {
            return i;
        }
        // A row is its name: a tool named as a kind's row is (`kind: web_search`) adds to
        // that row, call by call, as every other call of the row does.
        let name = key.name();
        let i = match self.rows.iter().position(|(_, r)| r.group == name) {
            Some(i) => i,
            None => {
                self.rows.push((
                    key,
                    ToolShare {
                        group: name,
                        calls: 0,
                        result_tokens: 0.0,
                        reread_tokens: 0.0,
                        share_pct: 0.0,
                    },
                ));
                self.rows.len() - 1
            }
        };
        self.index.insert(key, i);
        i
    }
}

/// The baseline's reread total split by tool at `at`, largest share first (ties by name).
pub fn by_tool(study: &Study, at: Assumptions) -> Vec<ToolShare> {
    let calls = &study.scenario.calls;
    let run = &study.baseline.run;
    let n = run.len();
    let mut results = Rows::default();
    // The model's output is a row of its own, kept apart so that the lookup of the
    // results' rows keeps finding the previous call's.
    let mut own_row = None;
    // Internal iteration, so the baseline is read by one loop over the calls' columns.
    run.iter().enumerate().for_each(|(j, slot)| {
        let origin = slot.origin as usize;
        let rereads = (n - 1 - j) as f64;
        let result = slot.tokens + slot.bytes / at.bytes_per_token;
        let key = match calls.detail(origin).and_then(|d| d.tool.as_deref()) {
            Some(tool) => Key::Group(tool),
            None => Key::Kind(calls.kind(origin)),
        };
        let row = results.row(key);
        results.add(row, result, rereads, true);
        let own = slot.own_tokens + slot.own_bytes / at.bytes_per_token;
        if own > 0.0 {
            let row = *own_row.get_or_insert_with(|| results.find(Key::Group("model output")));
            results.add(row, own, rereads, true);
        }
    });
    let base = results.find(Key::Group("base (system prompt, tools)"));
    results.add(base, at.base_tokens, n as f64, false);
    results.rows[base].1.calls = n;
    let mut rows: Vec<ToolShare> = results.rows.into_iter().map(|(_, row)| row).collect();
    // A group that adds nothing (a final answer with no result) is no share at all.
    rows.retain(|r| r.reread_tokens > 0.0 || r.result_tokens > 0.0);
    let total: f64 = rows.iter().map(|r| r.reread_tokens).sum();
    for r in &mut rows {
        r.share_pct = if total > 0.0 {
            100.0 * r.reread_tokens / total
        } else {
            0.0
        };
    }
    rows.sort_by(|a, b| {
        b.reread_tokens
            .total_cmp(&a.reread_tokens)
            .then_with(|| a.group.cmp(&b.group))
    });
    rows
}
