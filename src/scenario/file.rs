//! The scenario file exactly as written: serde shapes with no meaning attached.
//!
//! Every table denies unknown keys so that a typo is an error rather than a silently
//! ignored setting. Values that are checked later are `Spanned`, so their errors can point
//! at the line and column.

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use std::fmt;
use toml::Spanned;

pub use super::select_file::{OneOrMany, SelectFile};
pub use super::whatif_file::{BaseTableFile, CacheEditFile, ModelEditFile};

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    pub name: Option<Spanned<String>>,
    pub description: Option<Spanned<String>>,
    pub base_tokens: Option<Spanned<f64>>,
    pub base_tokens_source: Option<Spanned<String>>,
    pub bytes_per_token: Option<Spanned<f64>>,
    pub bytes_per_token_source: Option<Spanned<String>>,
    pub retry_rate: Option<Spanned<f64>>,
    /// `[behaviour]`: what the agent does after an edit (docs/model.md §11).
    pub behaviour: Option<Spanned<BehaviourFile>>,
    pub import: Option<Spanned<ImportFile>>,
    pub sweep: Option<SweepFile>,
    pub cache: Option<Spanned<CacheFile>>,
    pub price: Option<Spanned<PriceFile>>,
    pub terms: Option<Spanned<TermsFile>>,
    /// `[base]`: the base's named parts (`[[base.part]]`).
    pub base: Option<Spanned<BaseTableFile>>,
    #[serde(default)]
    pub call: Vec<Spanned<CallFile>>,
    pub calls_tsv: Option<Spanned<String>>,
    #[serde(default)]
    pub edit: Vec<Spanned<EditFile>>,
}

/// One `[[call]]` table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallFile {
    pub id: Option<Spanned<String>>,
    pub label: Option<Spanned<String>>,
    pub bytes: Option<Spanned<f64>>,
    pub tokens: Option<Spanned<f64>>,
    pub kind: Option<Spanned<String>>,
    pub pinned: Option<bool>,
    pub segment: Option<Spanned<i64>>,
    pub gap_s: Option<Spanned<f64>>,
    pub output_tokens: Option<Spanned<f64>>,
    pub output_bytes: Option<Spanned<f64>>,
    pub tool_input_bytes: Option<Spanned<f64>>,
    pub images: Option<Spanned<i64>>,
    pub loaded_tools: Option<Spanned<i64>>,
    pub tool: Option<Spanned<String>>,
    /// The request's other tools, after `tool` (a request that ran several at once).
    pub other_tools: Option<Spanned<Vec<Spanned<String>>>>,
    pub input_hash: Option<Spanned<String>>,
    pub measured: Option<Spanned<MeasuredFile>>,
}

/// `[terms]`: tokens per unit of what a log counts but cannot size, each with its source.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TermsFile {
    pub tokens_per_call: Option<Spanned<f64>>,
    pub tokens_per_call_source: Option<Spanned<String>>,
    pub tokens_per_image: Option<Spanned<f64>>,
    pub tokens_per_image_source: Option<Spanned<String>>,
    pub tokens_per_loaded_tool: Option<Spanned<f64>>,
    pub tokens_per_loaded_tool_source: Option<Spanned<String>>,
}

/// `[call.measured]`: a request's usage as the provider reported it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasuredFile {
    pub input_tokens: Option<Spanned<f64>>,
    pub cache_creation_input_tokens: Option<Spanned<f64>>,
    pub cache_creation_1h_input_tokens: Option<Spanned<f64>>,
    pub cache_read_input_tokens: Option<Spanned<f64>>,
    pub output_tokens: Option<Spanned<f64>>,
    /// The request's cost as the log measured it, US dollars (the provider's or the
    /// agent's own figure, e.g. OpenRouter's `usage.cost`).
    pub cost_usd: Option<Spanned<f64>>,
    pub model: Option<Spanned<String>>,
    pub convention: Option<Spanned<String>>,
    pub cache_event: Option<Spanned<String>>,
}

/// `[import]`: where an imported scenario came from.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImportFile {
    pub format: Option<String>,
    pub file: Option<String>,
    pub session_id: Option<String>,
    pub trace: Option<String>,
    pub part: Option<u64>,
    pub parent_session: Option<String>,
    pub agent_id: Option<String>,
    pub requests: Option<u64>,
    pub duplicates_removed: Option<u64>,
    pub malformed_lines: Option<u64>,
    pub model: Option<String>,
    pub convention: Option<Spanned<String>>,
    pub compaction_trigger: Option<String>,
    pub compaction_pre_tokens: Option<u64>,
    pub compaction_summary_bytes: Option<u64>,
    pub compaction_post_tokens: Option<u64>,
    pub reset_from_input_tokens: Option<u64>,
    pub reset_to_input_tokens: Option<u64>,
    pub user_id: Option<String>,
    pub organization_id: Option<String>,
    pub account_uuid: Option<String>,
    pub team: Option<String>,
    pub team_attribute: Option<String>,
    /// A log without per-request usage (SWE-agent): the run's totals, as it logged them.
    pub tokens_sent: Option<u64>,
    pub tokens_received: Option<u64>,
    pub api_calls: Option<u64>,
    pub instance_cost_usd: Option<f64>,
}

/// One `[[edit]]` table: a name and exactly one action.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditFile {
    pub name: Option<Spanned<String>>,
    pub trim: Option<Spanned<TrimFile>>,
    pub merge: Option<Spanned<MergeFile>>,
    pub drop: Option<Spanned<DropFile>>,
    #[serde(rename = "move")]
    pub move_: Option<Spanned<MoveFile>>,
    pub clear: Option<Spanned<ClearFile>>,
    pub compact: Option<Spanned<CompactFile>>,
    pub base: Option<Spanned<BaseFile>>,
    pub cap: Option<Spanned<CapFile>>,
    pub dedupe: Option<Spanned<DedupeFile>>,
    pub cache: Option<Spanned<CacheEditFile>>,
    pub model: Option<Spanned<ModelEditFile>>,
    pub steps: Option<Spanned<Vec<Spanned<ActionFile>>>>,
}

impl EditFile {
    /// The action keys of the edit itself (everything but `name` and `steps`).
    pub fn take_action(&mut self) -> ActionFile {
        ActionFile {
            trim: self.trim.take(),
            merge: self.merge.take(),
            drop: self.drop.take(),
            move_: self.move_.take(),
            clear: self.clear.take(),
            compact: self.compact.take(),
            base: self.base.take(),
            cap: self.cap.take(),
            dedupe: self.dedupe.take(),
            cache: self.cache.take(),
            model: self.model.take(),
        }
    }
}

/// The action keys of an edit or of one of its `steps`; exactly one must be given.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActionFile {
    pub trim: Option<Spanned<TrimFile>>,
    pub merge: Option<Spanned<MergeFile>>,
    pub drop: Option<Spanned<DropFile>>,
    #[serde(rename = "move")]
    pub move_: Option<Spanned<MoveFile>>,
    pub clear: Option<Spanned<ClearFile>>,
    pub compact: Option<Spanned<CompactFile>>,
    pub base: Option<Spanned<BaseFile>>,
    pub cap: Option<Spanned<CapFile>>,
    pub dedupe: Option<Spanned<DedupeFile>>,
    pub cache: Option<Spanned<CacheEditFile>>,
    pub model: Option<Spanned<ModelEditFile>>,
}

/// `compact = { above_context_tokens | at_percent + window_tokens | preset,
/// summary_tokens, keep_calls }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompactFile {
    pub preset: Option<Spanned<String>>,
    pub above_context_tokens: Option<Spanned<f64>>,
    pub at_percent: Option<Spanned<f64>>,
    pub window_tokens: Option<Spanned<f64>>,
    pub summary_tokens: Option<Spanned<f64>>,
    pub keep_calls: Option<Spanned<i64>>,
    /// `"openai-responses"`: OpenAI's server-side compaction, with `compact_threshold`.
    pub api: Option<Spanned<String>>,
    pub compact_threshold: Option<Spanned<f64>>,
    /// `at = "cold"`: compact only where the cache is already broken.
    pub at: Option<Spanned<String>>,
}

/// An edits file (`--edits FILE`): `[[edit]]` tables, and `[[base.part]]` tables that
/// every scenario it runs against takes as its own, so one set of edits runs against any
/// scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditsFile {
    #[serde(default)]
    pub edit: Vec<Spanned<EditFile>>,
    /// `[base]`: named parts of every session's base (`[[base.part]]`).
    pub base: Option<Spanned<super::whatif_file::BaseTableFile>>,
}

/// `cap = { select, max_bytes }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CapFile {
    pub select: Option<Spanned<SelectFile>>,
    pub max_bytes: Option<Spanned<f64>>,
}

/// `dedupe = { select, placeholder_bytes }`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DedupeFile {
    pub select: Option<Spanned<SelectFile>>,
    pub placeholder_bytes: Option<Spanned<f64>>,
    /// Only a repeat whose result has the same bytes as the first call with its input.
    pub same_bytes: Option<bool>,
}

/// `base = { by_tokens | by_bytes | to_tokens }`, or over a named part `{ drop = NAME }`,
/// `{ defer = NAME, stub_tokens = s }` (docs/model.md §9).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BaseFile {
    pub by_tokens: Option<Spanned<f64>>,
    pub by_bytes: Option<Spanned<f64>>,
    pub to_tokens: Option<Spanned<f64>>,
    pub drop: Option<Spanned<String>>,
    pub defer: Option<Spanned<String>>,
    pub stub_tokens: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrimFile {
    pub call: Option<Spanned<String>>,
    pub select: Option<Spanned<SelectFile>>,
    pub by_bytes: Option<Spanned<f64>>,
    pub to_bytes: Option<Spanned<f64>>,
    pub by_percent: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MergeFile {
    pub calls: Spanned<Vec<Spanned<String>>>,
    pub overhead_bytes: Option<Spanned<f64>>,
    pub at: Option<MergeAtFile>,
}

#[derive(Debug, Deserialize, Clone, Copy)]
#[serde(rename_all = "lowercase")]
pub enum MergeAtFile {
    First,
    Last,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DropFile {
    pub call: Option<Spanned<String>>,
    pub select: Option<Spanned<SelectFile>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveFile {
    pub call: Spanned<String>,
    pub before: Option<Spanned<String>>,
    pub after: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClearFile {
    pub every_segments: Option<Spanned<i64>>,
    pub every_calls: Option<Spanned<i64>>,
    pub above_tool_bytes: Option<Spanned<f64>>,
    pub above_context_tokens: Option<Spanned<f64>>,
    pub older_than_calls: Option<Spanned<i64>>,
    pub after_gap_s: Option<Spanned<f64>>,
    pub keep_segments: Option<Spanned<i64>>,
    pub keep_results: Option<Spanned<i64>>,
    pub clear_at_least_tokens: Option<Spanned<f64>>,
    pub placeholder_bytes: Option<Spanned<f64>>,
    pub exclude_kinds: Option<Vec<String>>,
    pub tools: Option<Vec<String>>,
    pub exclude_tools: Option<Vec<String>>,
    /// `api = "clear_tool_uses_20250919"`: the provider's context editing, with its keys.
    pub api: Option<Spanned<String>>,
    pub trigger_input_tokens: Option<Spanned<f64>>,
    pub keep_tool_uses: Option<Spanned<i64>>,
    pub clear_tool_inputs: Option<bool>,
    /// `at = "cold"`: act only where the cache is already broken.
    pub at: Option<Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SweepFile {
    pub base_tokens: Option<Spanned<AxisFile>>,
    pub bytes_per_token: Option<Spanned<AxisFile>>,
    pub cache_read: Option<Spanned<AxisFile>>,
    pub retry_rate: Option<Spanned<AxisFile>>,
    pub refetch: Option<Spanned<AxisFile>>,
}

/// `[behaviour]`: assumptions about what the agent does next (docs/model.md §11).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BehaviourFile {
    /// The share of removed results the agent fetches again.
    pub refetch: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CacheFile {
    pub preset: Option<Spanned<String>>,
    pub read: Option<Spanned<f64>>,
    pub write: Option<Spanned<f64>>,
    pub ttl_s: Option<Spanned<f64>>,
    pub ttl_s_source: Option<Spanned<String>>,
    pub min_tokens: Option<Spanned<f64>>,
    pub min_tokens_source: Option<Spanned<String>>,
    pub miss_share: Option<Spanned<f64>>,
    pub miss_share_source: Option<Spanned<String>>,
    pub warm_share: Option<Spanned<f64>>,
    pub warm_share_source: Option<Spanned<String>>,
    /// An output token's price in input tokens, assumed (docs/model.md §4).
    pub output: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PriceFile {
    pub model: Option<Spanned<String>>,
    pub input: Option<Spanned<f64>>,
    pub output: Option<Spanned<f64>>,
    pub source: Option<Spanned<String>>,
}

/// A swept axis: a list of values, or `{ from, to, steps }`.
#[derive(Debug, Clone, PartialEq)]
pub enum AxisFile {
    List(Vec<f64>),
    Range { from: f64, to: f64, steps: i64 },
}

impl<'de> Deserialize<'de> for AxisFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(AxisVisitor)
    }
}

struct AxisVisitor;

impl<'de> Visitor<'de> for AxisVisitor {
    type Value = AxisFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of numbers, or a table { from = .., to = .., steps = .. }")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<AxisFile, A::Error> {
        let mut values = Vec::new();
        while let Some(v) = seq.next_element::<f64>()? {
            values.push(v);
        }
        Ok(AxisFile::List(values))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<AxisFile, A::Error> {
        const KEYS: &[&str] = &["from", "to", "steps"];
        let (mut from, mut to, mut steps) = (None, None, None);
        while let Some(key) = map.next_key::<String>()? {
            match key.as_str() {
                "from" => from = Some(map.next_value::<f64>()?),
                "to" => to = Some(map.next_value::<f64>()?),
                "steps" => steps = Some(map.next_value::<i64>()?),
                other => return Err(de::Error::unknown_field(other, KEYS)),
            }
        }
        match (from, to, steps) {
            (Some(from), Some(to), Some(steps)) => Ok(AxisFile::Range { from, to, steps }),
            (None, _, _) => Err(de::Error::missing_field("from")),
            (_, None, _) => Err(de::Error::missing_field("to")),
            (_, _, None) => Err(de::Error::missing_field("steps")),
        }
    }
}
