//! Which provider's API a scenario's calls ran on, and the edits only one provider has
//! (docs/model.md §9, "Each edit for the providers that have it").
//!
//! Some edits stand for a provider's own mechanism: Anthropic's context editing
//! (`clear_tool_uses_20250919`) and the Messages API's compaction (`compact_20260112`);
//! OpenAI's server-side compaction in the Responses API and its extended prompt-cache
//! retention. Such an edit exists only for the calls of that provider. The provider of a
//! call is the convention of its measured usage (`[call.measured] convention`), else the
//! scenario's `[import] convention`; a scenario that says neither (written by hand) takes
//! any edit. On one scenario a mismatch is an error at the edit's key ([`check`]); over
//! many sessions the step changes nothing in that session and is noted, as a rule that
//! selects nothing is (`crate::edit`).

use super::{Action, CacheChange, Calls, ClearPolicy, CompactPolicy, Convention, Scenario};
use crate::cache::model_id;
use crate::error::{Error, Located};

/// The compaction of the Messages API (Anthropic's compaction docs, read 2026-12-01).
pub const ANTHROPIC_COMPACT: &str = "compact_20260112";
/// OpenAI's server-side compaction: `context_management = [{"type": "compaction",
/// "compact_threshold": N}]` on a Responses API request (developers.openai.com/api/docs/
/// guides/compaction, read 2026-12-02).
pub const OPENAI_COMPACT: &str = "openai-responses";
/// OpenAI's extended prompt-cache retention, `prompt_cache_retention = "24h"`.
pub const OPENAI_RETENTION: &str = "24h";
/// How long an extended-retention prefix may live, seconds: "up to a maximum of 24 hours"
/// (OpenAI's prompt-caching guide, developers.openai.com/api/docs/guides/prompt-caching,
/// read 2026-12-02). A maximum, not a promise: the simulation keeps every prefix that long.
pub const RETENTION_24H_S: f64 = 86_400.0;
/// The models OpenAI's prompt-caching guide lists for extended retention (read
/// 2026-12-02), by the id without date ([`model_id::base`]). Prices are the same under both
/// retention policies. GPT-5.6 and later families have no `prompt_cache_retention`: they
/// keep a prefix at least 30 minutes (`prompt_cache_options.ttl = "30m"`, the only value).
pub const RETENTION_MODELS: [&str; 12] = [
    "gpt-5.5",
    "gpt-5.5-pro",
    "gpt-5.4",
    "gpt-5.2",
    "gpt-5.1-codex-max",
    "gpt-5.1",
    "gpt-5.1-codex",
    "gpt-5.1-codex-mini",
    "gpt-5.1-chat-latest",
    "gpt-5",
    "gpt-5-codex",
    "gpt-4.1",
];

/// A provider whose API has mechanisms of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    Anthropic,
    OpenAi,
}

impl Provider {
    /// The provider of calls whose usage follows `c`.
    pub fn of(c: Convention) -> Provider {
        match c {
            Convention::Anthropic => Provider::Anthropic,
            Convention::OpenAi => Provider::OpenAi,
        }
    }

    /// `Anthropic's API`, for messages.
    pub fn api(self) -> &'static str {
        match self {
            Provider::Anthropic => "Anthropic's API",
            Provider::OpenAi => "OpenAI's API",
        }
    }

    /// What the provider offers instead, for messages.
    fn own_edits(self) -> &'static str {
        match self {
            Provider::Anthropic => {
                "Anthropic's own are clear = { api = \"clear_tool_uses_20250919\", … }, compact = { preset = \"compact_20260112\", … } and its 1-hour cache, cache = { ttl_s = 3600, write = 2.0 }"
            }
            Provider::OpenAi => {
                "OpenAI's own are compact = { api = \"openai-responses\", compact_threshold = N, summary_tokens = S } and cache = { retention = \"24h\" } where the model offers it"
            }
        }
    }

    fn convention(self) -> &'static str {
        self.key()
    }

    /// The word a cache edit's `providers` and a call's `convention` use.
    pub fn key(self) -> &'static str {
        match self {
            Provider::Anthropic => "anthropic",
            Provider::OpenAi => "openai",
        }
    }

    /// The provider a word names.
    pub fn parse(word: &str) -> Option<Provider> {
        [Provider::Anthropic, Provider::OpenAi]
            .into_iter()
            .find(|p| p.key() == word)
    }
}

/// The providers a scenario's calls ran on, as its measured usage and `[import]` say.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Providers {
    /// Each provider seen, in order of first call, with the models its calls name (in
    /// order of first use) and how many calls it made.
    pub seen: Vec<Seen>,
}

/// One provider of a scenario's calls.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub provider: Provider,
    /// The model ids its calls name, in order of first use (empty if none names one).
    pub models: Vec<String>,
    /// Its calls (those with measured usage; every call when only `[import]` says).
    pub calls: usize,
}

impl Providers {
    /// The providers of `scenario`'s calls.
    pub fn of(scenario: &Scenario) -> Providers {
        Providers::of_calls(
            &scenario.calls,
            scenario.import.as_ref().and_then(|i| i.convention),
            scenario.import.as_ref().and_then(|i| i.model.as_deref()),
        )
    }

    /// The providers of `calls`, with the `[import]` table's convention and model for a
    /// scenario whose calls carry no measured usage.
    pub fn of_calls(calls: &Calls, convention: Option<Convention>, model: Option<&str>) -> Self {
        let mut seen: Vec<Seen> = Vec::new();
        for m in calls
            .details()
            .flatten()
            .filter_map(|d| d.measured.as_ref())
        {
            let provider = Provider::of(m.convention);
            let at = match seen.iter().position(|s| s.provider == provider) {
                Some(at) => at,
                None => {
                    seen.push(Seen {
                        provider,
                        models: Vec::new(),
                        calls: 0,
                    });
                    seen.len() - 1
                }
            };
            let s = &mut seen[at];
            s.calls += 1;
            if let Some(model) = m.model.as_deref()
                && !s.models.iter().any(|x| x == model)
            {
                s.models.push(model.to_string());
            }
        }
        if seen.is_empty()
            && let Some(c) = convention
        {
            seen.push(Seen {
                provider: Provider::of(c),
                models: model.map(str::to_string).into_iter().collect(),
                calls: calls.len(),
            });
        }
        Providers { seen }
    }

    /// Whether every call that says ran on `provider` (false when none says).
    pub fn only(&self, provider: Provider) -> bool {
        !self.seen.is_empty() && self.seen.iter().all(|s| s.provider == provider)
    }

    /// Why `step` does not apply to these calls, if it does not: the key it is refused
    /// at (`clear.api`) and the reason, naming the model of a call it cannot apply to.
    pub fn refusal(&self, step: &Action) -> Option<Refusal> {
        let need = requirement(step)?;
        if let Some(other) = self.seen.iter().find(|s| s.provider != need.provider) {
            let model = match other.models.first() {
                Some(m) => format!("model {m}, "),
                None => String::new(),
            };
            return Some(Refusal {
                key: need.key,
                message: format!(
                    "{} exists only on {}; these calls ran on {} ({model}convention {}), which has no such mechanism: {}",
                    need.what,
                    need.provider.api(),
                    other.provider.api(),
                    other.provider.convention(),
                    other.provider.own_edits()
                ),
            });
        }
        if matches!(step, Action::Cache(c) if c.retention.is_some()) {
            let models = self.seen.iter().flat_map(|s| &s.models);
            for model in models {
                if let Some(why) = no_retention(model) {
                    return Some(Refusal {
                        key: need.key,
                        message: why,
                    });
                }
            }
        }
        None
    }
}

/// Why `step` does not apply to `calls` (with the scenario's `[import]` table), if it does
/// not; the calls are looked at only for a step that needs one provider.
pub fn refusal(
    calls: &Calls,
    import: Option<&super::ImportInfo>,
    step: &Action,
) -> Option<Refusal> {
    requirement(step)?;
    Providers::of_calls(
        calls,
        import.and_then(|i| i.convention),
        import.and_then(|i| i.model.as_deref()),
    )
    .refusal(step)
}

/// Why model `id` has no extended prompt-cache retention, if it has none.
pub fn no_retention(id: &str) -> Option<String> {
    let base = model_id::base(id);
    if RETENTION_MODELS.contains(&base.as_str()) {
        return None;
    }
    let later = crate::cache::overlay::gpt_family(&base).is_some_and(|f| f >= (5, 6));
    Some(if later {
        format!(
            "model {id} has no prompt_cache_retention: GPT-5.6 and later families keep a cached prefix at least 30 minutes (prompt_cache_options.ttl = \"30m\", its only value and the default; OpenAI's prompt-caching guide, read 2026-12-02); to see a longer lifetime, give cache = {{ ttl_s = … }}"
        )
    } else {
        format!(
            "model {id} does not offer extended prompt-cache retention: OpenAI's prompt-caching guide (read 2026-12-02) lists {}",
            RETENTION_MODELS.join(", ")
        )
    })
}

/// An edit step that applies to one provider only.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Requirement {
    /// The key that makes it so (`clear.api`).
    key: &'static str,
    provider: Provider,
    /// The mechanism, for messages.
    what: &'static str,
}

/// The provider `step` needs, if it stands for one provider's mechanism.
fn requirement(step: &Action) -> Option<Requirement> {
    match step {
        Action::Clear(ClearPolicy { api: Some(_), .. }) => Some(Requirement {
            key: "clear.api",
            provider: Provider::Anthropic,
            what: "Anthropic's context editing (clear_tool_uses_20250919)",
        }),
        Action::Compact(CompactPolicy { api: Some(api), .. }) if *api == ANTHROPIC_COMPACT => {
            Some(Requirement {
                key: "compact.preset",
                provider: Provider::Anthropic,
                what: "the Messages API's compaction (compact_20260112)",
            })
        }
        Action::Compact(CompactPolicy { api: Some(api), .. }) if *api == OPENAI_COMPACT => {
            Some(Requirement {
                key: "compact.api",
                provider: Provider::OpenAi,
                what: "server-side compaction in the Responses API (context_management with compact_threshold)",
            })
        }
        Action::Cache(CacheChange {
            retention: Some(_), ..
        }) => Some(Requirement {
            key: "cache.retention",
            provider: Provider::OpenAi,
            what: "extended prompt-cache retention (prompt_cache_retention = \"24h\")",
        }),
        _ => None,
    }
}

/// A step refused on a scenario's calls: the key, without a step's prefix, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Refusal {
    pub key: &'static str,
    pub message: String,
}

/// Refuses, for one scenario, every edit that stands for another provider's mechanism than
/// its calls ran on: the error names the edit, its key (located in the file) and a model.
pub fn check(scenario: &Scenario) -> Result<(), Error> {
    let providers = Providers::of(scenario);
    if providers.seen.is_empty() {
        return Ok(());
    }
    for e in &scenario.edits {
        let steps: Vec<(String, &Action)> = match &e.action {
            Action::Steps(steps) => steps
                .iter()
                .enumerate()
                .map(|(i, s)| (format!("step {}: ", i + 1), s))
                .collect(),
            one => vec![(String::new(), one)],
        };
        for (prefix, step) in steps {
            if let Some(r) = providers.refusal(step) {
                let key = format!("{prefix}{}", r.key);
                return Err(Located::new(scenario.edits_source(), r.message)
                    .at(e.locate(&key))
                    .place(format!("[[edit]] \"{}\": {key}", e.name))
                    .into());
            }
        }
    }
    Ok(())
}
