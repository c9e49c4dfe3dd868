//! The `context_management` a user pastes into their Messages API requests to turn on the
//! clearing edit that saves the most, and where the simulation of it is not the API.

use crate::evaluate::{Evaluation, Study};
use crate::scenario::ClearPolicy;
use crate::scenario::provider::{Provider, Providers};
use serde::Serialize;

/// The beta header context editing needs (Anthropic's context-editing docs, 2026-12-01).
pub const BETA_HEADER: &str = "context-management-2025-06-27";

/// The winning clearing edit as the API's context editing.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ContextManagement {
    /// The edit it stands for.
    pub edit: String,
    /// `{"context_management": {"edits": [...]}}`, to merge into a request's body.
    pub request: Request,
    /// The `anthropic-beta` header value the request needs.
    pub beta_header: &'static str,
    /// Which behaviour the simulation of the edit follows: the API's, as its
    /// documentation describes it, or a clearing that persists (docs/model.md §3, §9).
    pub simulated_as: String,
    /// Where the simulation is not the API, in sentences.
    pub not_the_api: Vec<String>,
}

/// Anthropic's context-editing page, as read for this model.
pub const DOCS: &str = "Anthropic, \"Context editing\", platform.claude.com/docs/en/build-with-claude/context-editing, read 2026-12-02";

/// The `context_management` of the best-ranked clearing edit the API can express (by
/// cost with a cache, else by reread tokens), if any edit is one. None for calls that ran
/// on another provider's API (their measured convention, or `[import]`'s, is `openai`):
/// Anthropic's request body means nothing there (docs/model.md §9).
pub fn winning(study: &Study, nominal: &Evaluation) -> Option<ContextManagement> {
    let cached = study.scenario.cache.is_some();
    let ranking = if cached {
        &nominal.cost_ranking
    } else {
        &nominal.ranking
    };
    let (i, policy) = ranking.order.iter().find_map(|&i| {
        let policy = study.edited.get(i)?.clear.as_ref()?;
        expressible(policy).then_some((i, policy))
    })?;
    let providers = Providers::of(study.scenario);
    if providers
        .seen
        .iter()
        .any(|s| s.provider != Provider::Anthropic)
    {
        return None;
    }
    let amount = |kind: &'static str, value: f64| Amount {
        kind,
        value: value.round() as u64,
    };
    let edit = ApiEdit {
        kind: crate::scenario::API_CLEAR,
        trigger: amount("input_tokens", policy.above_context_tokens?),
        keep: amount("tool_uses", policy.keep_results as f64),
        clear_at_least: (policy.clear_at_least_tokens > 0.0)
            .then(|| amount("input_tokens", policy.clear_at_least_tokens)),
        exclude_tools: policy.exclude_tools.clone(),
        clear_tool_inputs: policy.clear_tool_inputs.then_some(true),
    };
    // Typed parts, so the keys come in the API docs' order.
    let request = Request {
        context_management: Edits { edits: vec![edit] },
    };
    Some(ContextManagement {
        edit: study.scenario.edits[i].name.clone(),
        request,
        beta_header: BETA_HEADER,
        simulated_as: match policy.api {
            Some(_) => format!(
                "simulated as the API's documentation describes it: applied server-side to each request on its own, the full history re-sent every time, the oldest tool results cleared in every request over the trigger ({DOCS})"
            ),
            None => format!(
                "simulated as a clearing that persists (a client that edits its own history, docs/model.md §3); the API edits each request on its own from the full history: give the edit api = \"{}\" to simulate that ({DOCS})",
                crate::scenario::API_CLEAR
            ),
        },
        not_the_api: vec![
            format!(
                "a cleared result stands as {} bytes here; the API puts its own placeholder text",
                crate::number::grouped(policy.placeholder_bytes, 0)
            ),
            "the trigger and what is freed are in the simulation's est. tokens, the API counts real input tokens".into(),
            "`keep` counts calls here; the API counts tool uses, so a call with parallel tool uses keeps more there".into(),
            "the cache: here one breakpoint at the end of each request, and a clearing makes everything from the first cleared result a write; the API invalidates the cached prefix from the cleared content the same way, but your breakpoints may differ".into(),
        ],
    })
}

/// Whether the API's context editing can say what `policy` does: one input-token trigger,
/// a count of results kept, nothing the API lacks.
fn expressible(p: &ClearPolicy) -> bool {
    p.above_context_tokens.is_some()
        && p.every_segments.is_none()
        && p.every_calls.is_none()
        && p.above_tool_bytes.is_none()
        && p.older_than_calls.is_none()
        && p.after_gap_s.is_none()
        && p.keep_segments == 0
        && p.tools.is_none()
}

/// The part of a Messages API request body that turns context editing on.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Request {
    context_management: Edits,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
struct Edits {
    edits: Vec<ApiEdit>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
struct ApiEdit {
    #[serde(rename = "type")]
    kind: &'static str,
    trigger: Amount,
    keep: Amount,
    #[serde(skip_serializing_if = "Option::is_none")]
    clear_at_least: Option<Amount>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    exclude_tools: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    clear_tool_inputs: Option<bool>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
struct Amount {
    #[serde(rename = "type")]
    kind: &'static str,
    value: u64,
}
