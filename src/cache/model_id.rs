//! From a log's model id to the ids the price data may know it by.
//!
//! Logs name a model the way the route to it does: `claude-sonnet-4-5-20250929` (the Claude
//! API), `us.anthropic.claude-sonnet-4-5-20250929-v1:0` (a Bedrock cross-region inference
//! profile), `converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0` (through a proxy's
//! Bedrock Converse route), `claude-sonnet-4-5@20250929` (Vertex AI), `gpt-5-codex`. The
//! price data (LiteLLM's keys) has some of these forms and not others, and a route's price
//! can differ from the model's list price (Bedrock's regional profiles cost 10 % more), so
//! the most specific form it has wins: [`candidates`] lists them, most specific first.

/// The ids to look `id` up by, most specific first, lower-cased, without repeats:
///
/// 1. `id` as it is;
/// 2. without a route before the last `/` (`converse/`, `bedrock/converse/`, `openai/`, an
///    ARN's `…:inference-profile/`);
/// 3. a Vertex AI id (`claude-sonnet-4-5@20250929`): `vertex_ai/` and the id, `vertex_ai/`
///    and the name without its `@` version, then the name alone;
/// 4. a Bedrock id: without its region (`us.`, `eu.`, `jp.`, `apac.`, `au.`, `global.`,
///    `us-gov.`), then without `anthropic.`, then without its version (`-v1:0`, `-v1`);
/// 5. without a date (`-20250929`, OpenAI's `-2025-08-07`): the undated alias.
///
/// An OpenRouter id (`google/gemini-3-pro-preview`: the model's vendor, `/`, the model, as
/// OpenRouter names models, <https://openrouter.ai/docs/api-reference/overview>, read
/// 2026-12-02) first tries LiteLLM's OpenRouter key (`openrouter/google/…`), then the model
/// without its vendor; a Gemini model's name (`gemini-3-pro-preview`) also tries LiteLLM's
/// Google AI Studio key (`gemini/gemini-3-pro-preview`) after its bare name.
pub fn candidates(id: &str) -> Vec<String> {
    let id = id.trim().to_ascii_lowercase();
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: &str| {
        if !s.is_empty() && !out.iter().any(|o| o == s) {
            out.push(s.to_string());
        }
    };
    push(&id);
    if let Some((vendor, model)) = id.split_once('/')
        && OPENROUTER_VENDORS.contains(&vendor)
        && !model.contains('/')
    {
        push(&format!("openrouter/{id}"));
    }
    let mut rest = id.rsplit('/').next().unwrap_or(&id);
    push(rest);
    if rest.starts_with("gemini-") {
        push(&format!("gemini/{rest}"));
        push(&format!("vertex_ai/{rest}"));
    }
    if let Some((name, _version)) = rest.split_once('@') {
        push(&format!("vertex_ai/{rest}"));
        push(&format!("vertex_ai/{name}"));
        rest = name;
        push(rest);
    }
    if let Some(r) = without_region(rest) {
        rest = r;
        push(rest);
    }
    if let Some(r) = rest.strip_prefix("anthropic.") {
        rest = r;
        push(rest);
    }
    if let Some(r) = without_version(rest) {
        rest = r;
        push(rest);
    }
    if let Some(r) = without_date(rest) {
        push(r);
    }
    out
}

/// The vendor namespaces of OpenRouter's model ids that are not also a route LiteLLM
/// names (`openai/` is LiteLLM's OpenAI route, kept as it is).
const OPENROUTER_VENDORS: &[&str] = &[
    "google",
    "anthropic",
    "meta-llama",
    "mistralai",
    "deepseek",
    "x-ai",
    "qwen",
    "moonshotai",
    "z-ai",
];

/// The model a price-data key is an entry of, without route, platform, version or date:
/// `us.anthropic.claude-opus-4-6-v1` and `vertex_ai/claude-opus-4-6@default` are both
/// `claude-opus-4-6`. What overlay amendments are keyed by.
pub fn base(key: &str) -> String {
    let all = candidates(key);
    // The last form without a route (`gemini/…` is a route added after the bare name).
    all.iter()
        .rev()
        .find(|c| !c.contains('/'))
        .or(all.last())
        .cloned()
        .unwrap_or_default()
}

/// The undated alias of a key (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`,
/// `vertex_ai/claude-opus-4-6@default` → `vertex_ai/claude-opus-4-6`, `gpt-5-2025-08-07` →
/// `gpt-5`), if it has a date or a Vertex AI version.
pub fn undated(key: &str) -> Option<&str> {
    match key.split_once('@') {
        Some((name, _)) => Some(name),
        None => without_date(key),
    }
}

/// `us.anthropic.…` → `anthropic.…`: a Bedrock region prefix (letters and `-`, then `.`)
/// before `anthropic.`.
fn without_region(id: &str) -> Option<&str> {
    let (region, rest) = id.split_once('.')?;
    let is_region = !region.is_empty()
        && region.len() <= 8
        && region.bytes().all(|b| b.is_ascii_lowercase() || b == b'-');
    (is_region && region != "anthropic" && rest.starts_with("anthropic.")).then_some(rest)
}

/// `…-v1:0`, `…-v2:0`, `…-v1` → `…`: a Bedrock model version.
fn without_version(id: &str) -> Option<&str> {
    let (name, version) = id.rsplit_once("-v")?;
    let (major, minor) = match version.split_once(':') {
        Some((major, minor)) => (major, Some(minor)),
        None => (version, None),
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (digits(major) && minor.is_none_or(digits)).then_some(name)
}

/// `…-20250929` or `…-2025-08-07` → `…`.
fn without_date(id: &str) -> Option<&str> {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((name, date)) = id.rsplit_once('-')
        && digits(date, 8)
    {
        return Some(name);
    }
    let b = id.as_bytes();
    let n = b.len();
    // `-YYYY-MM-DD` is 11 bytes.
    if n > 11
        && b[n - 11] == b'-'
        && b[n - 6] == b'-'
        && b[n - 3] == b'-'
        && digits(&id[n - 10..n - 6], 4)
        && digits(&id[n - 5..n - 3], 2)
        && digits(&id[n - 2..], 2)
    {
        return Some(&id[..n - 11]);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bedrock_converse_id_goes_from_the_most_specific_form_to_the_model() {
        assert_eq!(
            candidates("converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0"),
            [
                "converse/jp.anthropic.claude-haiku-4-5-20251001-v1:0",
                "jp.anthropic.claude-haiku-4-5-20251001-v1:0",
                "anthropic.claude-haiku-4-5-20251001-v1:0",
                "claude-haiku-4-5-20251001-v1:0",
                "claude-haiku-4-5-20251001",
                "claude-haiku-4-5",
            ]
        );
    }

    #[test]
    fn a_vertex_id_tries_vertex_keys_first() {
        assert_eq!(
            candidates("claude-sonnet-4-5@20250929"),
            [
                "claude-sonnet-4-5@20250929",
                "vertex_ai/claude-sonnet-4-5@20250929",
                "vertex_ai/claude-sonnet-4-5",
                "claude-sonnet-4-5",
            ]
        );
    }

    #[test]
    fn claude_api_and_openai_ids_lose_only_their_date() {
        assert_eq!(
            candidates("Claude-Sonnet-4-5-20250929 "),
            ["claude-sonnet-4-5-20250929", "claude-sonnet-4-5"]
        );
        assert_eq!(
            candidates("gpt-5-2025-08-07"),
            ["gpt-5-2025-08-07", "gpt-5"]
        );
        assert_eq!(candidates("gpt-5.1-codex-max"), ["gpt-5.1-codex-max"]);
        // Not dates, not versions: kept.
        assert_eq!(candidates("claude-opus-4-6"), ["claude-opus-4-6"]);
        assert_eq!(candidates("o4-mini"), ["o4-mini"]);
        assert_eq!(candidates("gpt-5.5-v"), ["gpt-5.5-v"]);
    }

    #[test]
    fn an_openrouter_id_tries_litellm_s_openrouter_key_then_the_model() {
        assert_eq!(
            candidates("google/gemini-3-pro-preview"),
            [
                "google/gemini-3-pro-preview",
                "openrouter/google/gemini-3-pro-preview",
                "gemini-3-pro-preview",
                "gemini/gemini-3-pro-preview",
                "vertex_ai/gemini-3-pro-preview",
            ]
        );
        assert_eq!(
            candidates("gemini-3-pro-preview"),
            [
                "gemini-3-pro-preview",
                "gemini/gemini-3-pro-preview",
                "vertex_ai/gemini-3-pro-preview"
            ]
        );
        // The price data has Gemini 3 Pro through Vertex AI (the same list price).
        assert_eq!(
            crate::cache::models::find("google/gemini-3-pro-preview").map(|m| m.name.as_str()),
            Some("vertex_ai/gemini-3-pro-preview")
        );
        // LiteLLM's own routes are not vendors: as before.
        assert_eq!(candidates("openai/gpt-5"), ["openai/gpt-5", "gpt-5"]);
    }

    #[test]
    fn keys_have_a_base_model_and_dated_keys_an_alias() {
        assert_eq!(base("us.anthropic.claude-opus-4-6-v1"), "claude-opus-4-6");
        assert_eq!(base("vertex_ai/claude-opus-4-6@default"), "claude-opus-4-6");
        assert_eq!(
            base("anthropic.claude-haiku-4-5@20251001"),
            "claude-haiku-4-5"
        );
        assert_eq!(base("us-gov.anthropic.claude-sonnet-5"), "claude-sonnet-5");
        assert_eq!(base("claude-mythos-preview"), "claude-mythos-preview");
        assert_eq!(base("gemini/gemini-3-pro-preview"), "gemini-3-pro-preview");
        assert_eq!(base("google/gemini-3-pro-preview"), "gemini-3-pro-preview");
        assert_eq!(
            undated("claude-sonnet-4-5-20250929"),
            Some("claude-sonnet-4-5")
        );
        assert_eq!(
            undated("vertex_ai/claude-opus-4-6@default"),
            Some("vertex_ai/claude-opus-4-6")
        );
        assert_eq!(undated("gpt-5-2025-08-07"), Some("gpt-5"));
        assert_eq!(undated("claude-opus-4-6"), None);
    }
}
