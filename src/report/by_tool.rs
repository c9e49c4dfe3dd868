//! Where the reread total goes: the share each tool's results cause.
//!
//! A result of size `s_j` joining after call j is re-read by every later call, so it adds
//! `s_j·(n − j)` to the reread total (docs/model.md §1's closed form, term by term). Summed per
//! tool (or per kind where a call names no tool), with the base and the model's own output
//! as rows of their own, the shares add up to the whole total: "which tool's output costs
//! me the most", and so which edit to try first.

use crate::evaluate::Study;
use crate::ledger::Assumptions;
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

/// The baseline's reread total split by tool at `at`, largest share first (ties by name).
pub fn by_tool(study: &Study, at: Assumptions) -> Vec<ToolShare> {
    let calls = &study.scenario.calls;
    let run = &study.baseline.run;
    let n = run.len();
    let mut rows: Vec<ToolShare> = Vec::new();
    let mut add = |group: &str, result: f64, rereads: f64, count: bool| {
        let row = match rows.iter_mut().position(|r| r.group == group) {
            Some(i) => &mut rows[i],
            None => {
                rows.push(ToolShare {
                    group: group.to_string(),
                    calls: 0,
                    result_tokens: 0.0,
                    reread_tokens: 0.0,
                    share_pct: 0.0,
                });
                let last = rows.len() - 1;
                &mut rows[last]
            }
        };
        row.calls += usize::from(count);
        row.result_tokens += result;
        row.reread_tokens += result * rereads;
    };
    let mut kind_label = String::new();
    for (j, slot) in run.iter().enumerate() {
        let origin = slot.origin as usize;
        let rereads = (n - 1 - j) as f64;
        let result = slot.tokens + slot.bytes / at.bytes_per_token;
        let group = match calls.detail(origin).and_then(|d| d.tool.as_deref()) {
            Some(tool) => tool,
            None => {
                kind_label.clear();
                kind_label.push_str("kind: ");
                kind_label.push_str(calls.kind(origin));
                kind_label.as_str()
            }
        };
        add(group, result, rereads, true);
        let own = slot.own_tokens + slot.own_bytes / at.bytes_per_token;
        if own > 0.0 {
            add("model output", own, rereads, true);
        }
    }
    add(
        "base (system prompt, tools)",
        at.base_tokens,
        n as f64,
        false,
    );
    if let Some(base) = rows.last_mut() {
        base.calls = n;
    }
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
