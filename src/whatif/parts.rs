//! `base = { drop | defer }` steps over the base's named parts (docs/model.md §9), and where
//! their tools are used in the run.

use super::{Scope, WhatIf};
use crate::run::EditError;
use crate::run::{Run, Slot};
use crate::scenario::Calls;
use crate::scenario::{BaseChange, PartChange, PartEdit};
use crate::timeline::AddedRequest;

/// A base part an edit drops or defers, and the calls of its run that use its tools.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct PartUse {
    /// The part's name.
    pub part: String,
    /// `drop` or `defer`.
    pub action: &'static str,
    /// The part's tokens, and where they came from.
    pub tokens: f64,
    pub source: String,
    /// What a deferred part leaves in every request.
    pub stub_tokens: Option<f64>,
    /// The baseline calls (by index) of the edited run that use one of the part's tools,
    /// in run order: dropped, they would need another way; deferred, the first of them is
    /// preceded by the tool search.
    #[serde(skip)]
    pub calls: Vec<u32>,
    /// Their ids.
    pub call_ids: Vec<String>,
    /// Their tools, each once, in order of first use.
    pub tools_used: Vec<String>,
    /// For a deferred part whose tools are used: the 0-based position in the run of the
    /// call its tool search runs before.
    pub search_before: Option<usize>,
}

/// A [`PartUse`] read back (a history's shard file, docs/history.md): its action is one
/// of the two words, never another.
#[derive(serde::Deserialize)]
struct PartUseRead {
    part: String,
    action: String,
    tokens: f64,
    source: String,
    stub_tokens: Option<f64>,
    call_ids: Vec<String>,
    tools_used: Vec<String>,
    search_before: Option<usize>,
}

impl<'de> serde::Deserialize<'de> for PartUse {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PartUse, D::Error> {
        let read = <PartUseRead as serde::Deserialize>::deserialize(d)?;
        PartUse::try_from(read).map_err(serde::de::Error::custom)
    }
}

impl TryFrom<PartUseRead> for PartUse {
    type Error = String;

    fn try_from(p: PartUseRead) -> Result<PartUse, String> {
        let action = match p.action.as_str() {
            "drop" => "drop",
            "defer" => "defer",
            other => return Err(format!("unknown part action `{other}`: drop or defer")),
        };
        Ok(PartUse {
            part: p.part,
            action,
            tokens: p.tokens,
            source: p.source,
            stub_tokens: p.stub_tokens,
            calls: Vec::new(),
            call_ids: p.call_ids,
            tools_used: p.tools_used,
            search_before: p.search_before,
        })
    }
}

/// A base-part step: the base change it makes (the part's tokens leave the base; a
/// deferred part leaves its stub). A part the scenario does not have changes nothing and is
/// noted, as a rule that selects nothing is.
pub(super) fn step(
    scope: &Scope,
    whatif: &mut WhatIf,
    change: &PartChange,
    notes: &mut Vec<String>,
) -> Result<BaseChange, EditError> {
    let Some(part) = scope.parts.iter().find(|p| p.name == change.part) else {
        let known: Vec<&str> = scope.parts.iter().map(|p| p.name.as_str()).collect();
        let parts = if known.is_empty() {
            "it has none".to_string()
        } else {
            format!("its parts: {}", known.join(", "))
        };
        notes.push(format!(
            "base: no [[base.part]] named \"{}\" in this scenario ({parts}): the step changes nothing",
            change.part
        ));
        return Ok(BaseChange::NONE);
    };
    if let Some(earlier) = whatif.parts.iter().find(|u| u.part == part.name) {
        return Err(EditError {
            key: format!("base.{}", change.key()),
            message: format!(
                "an earlier step already {} part \"{}\": drop or defer a part once",
                if earlier.action == "drop" {
                    "drops"
                } else {
                    "defers"
                },
                part.name
            ),
        });
    }
    let stub = match change.how {
        PartEdit::Drop => None,
        PartEdit::Defer { stub_tokens } => Some(stub_tokens),
    };
    whatif.parts.push(PartUse {
        part: part.name.clone(),
        action: change.key(),
        tokens: part.tokens,
        source: part.source.clone(),
        stub_tokens: stub,
        calls: Vec::new(),
        call_ids: Vec::new(),
        tools_used: Vec::new(),
        search_before: None,
    });
    Ok(BaseChange {
        keep: true,
        tokens: stub.unwrap_or(0.0) - part.tokens,
        bytes: 0.0,
    })
}

/// Finds, on the edited run, the calls that use each part's tools (any tool of the
/// request, its `tool` or `other_tools`, matched against the part's globs), and places each deferred part's tool search before
/// the first of them: a request of its own, whose result is the part's definitions.
pub(super) fn place(scope: &Scope, whatif: &mut WhatIf, calls: &Calls, run: &mut Run) {
    let mut searches = Vec::new();
    for u in &mut whatif.parts {
        let Some(part) = scope.parts.iter().find(|p| p.name == u.part) else {
            continue;
        };
        for (position, slot) in run.iter().enumerate() {
            let call = calls.at(slot.origin as usize);
            // Any tool of the request: its first, or one it ran beside it.
            let mut served = call.tools().filter(|t| part.serves(t)).peekable();
            if served.peek().is_none() {
                continue;
            }
            if u.calls.is_empty() && u.stub_tokens.is_some() {
                u.search_before = Some(position);
            }
            u.calls.push(slot.origin);
            u.call_ids.push(call.id.to_string());
            for tool in served {
                if !u.tools_used.iter().any(|t| t == tool) {
                    u.tools_used.push(tool.to_string());
                }
            }
        }
        if let Some(before) = u.search_before {
            let origin = run.get(before).map_or(0, |s| s.origin);
            let label = run.push_label(calls, format!("tool search: loads {}", u.part));
            searches.push(AddedRequest {
                before,
                joins_tokens: u.tokens,
                joins_bytes: 0.0,
                refetch: false,
                slot: Slot {
                    origin,
                    label,
                    bytes: 0.0,
                    tokens: u.tokens,
                    output_tokens: 0.0,
                    own_tokens: 0.0,
                    own_bytes: 0.0,
                },
            });
        }
    }
    // Two parts first used by one call: their searches run in the order of the steps.
    searches.sort_by_key(|r| r.before);
    whatif.searches = searches;
}
