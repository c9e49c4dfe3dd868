//! Turning the file's serde shapes into checked engine types.
//!
//! Every check that can fail on user input lives in this module and its parts, one per
//! section of the file: `calls`, `edits`, `clearing`, `cache` (with `[price]`) and
//! `sweep`. Each error names the file, the line and column where known, the key, and what
//! would be valid.

mod cache;
mod calls;
mod clearing;
mod compact;
mod edits;
mod rules;
mod select;
mod slips;
mod sweep;
mod terms;
mod whatif;

pub use clearing::API_CLEAR;
pub use sweep::{MAX_RANGE_STEPS, checked_axis, range};
pub use terms::MAX_UNITS;

use super::file::{EditsFile, ImportFile, ScenarioFile};
use super::{Assumption, AssumptionSources, Calls, Convention, ImportInfo, Scenario};
use crate::error::{Error, LineIndex, Located};
use std::ops::Range;
use std::path::Path;
use toml::Spanned;

/// Largest number accepted anywhere in a scenario: a petabyte of bytes, a quadrillion
/// tokens. Beyond it, sums over a million calls could overflow to infinity.
pub const MAX_NUMBER: f64 = 1e15;

/// Longest label, in characters.
pub const MAX_LABEL_CHARS: usize = 1000;
/// Longest description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4000;
/// Longest edit name, in characters.
pub const MAX_NAME_CHARS: usize = 200;
/// Most `[[call]]` tables in a scenario; longer traces belong in a `calls_tsv` file.
pub const MAX_CALL_TABLES: usize = 200_000;

/// User text for a message: cut to 60 characters, control characters escaped
/// ([`crate::printable`]).
pub(super) fn shown(s: &str) -> String {
    let mut cut: String = s.chars().take(60).collect();
    if s.chars().nth(60).is_some() {
        cut.push('…');
    }
    crate::printable::printable(&cut).into_owned()
}

/// Where errors point: the file's name and text; and the warnings found on the way.
struct Checker<'a> {
    file: String,
    text: &'a str,
    /// Values that are legal but almost surely a slip (a percent for a multiplier), located
    /// as errors are: `file:line:column: place: message`.
    warnings: std::cell::RefCell<Vec<String>>,
    /// `text`'s lines, indexed at the first place asked for: an edit of many steps
    /// locates every key of every step.
    lines: std::cell::OnceCell<LineIndex>,
}

impl<'a> Checker<'a> {
    fn new(path: &Path, text: &'a str) -> Self {
        Checker {
            file: path.display().to_string(),
            text,
            warnings: std::cell::RefCell::default(),
            lines: std::cell::OnceCell::new(),
        }
    }

    /// 1-based line and column of byte `offset` of the text (as [`line_column`]).
    fn line_column(&self, offset: usize) -> (usize, usize) {
        self.lines
            .get_or_init(|| LineIndex::new(self.text))
            .line_column(self.text, offset)
    }

    fn err(&self, span: Option<Range<usize>>, place: &str, message: impl Into<String>) -> Located {
        let at = span.map(|s| self.line_column(s.start));
        Located::new(&self.file, message).at(at).place(place)
    }

    /// Records a warning at `span`.
    fn warn(&self, span: Range<usize>, place: &str, message: impl Into<String>) {
        let w = self.err(Some(span), place, message).to_string();
        self.warnings.borrow_mut().push(w);
    }

    /// Records a warning about the file as a whole (or a trace it names), at no place in it.
    fn warn_file(&self, place: &str, message: impl Into<String>) {
        let w = self.err(None, place, message).to_string();
        self.warnings.borrow_mut().push(w);
    }

    /// The warnings recorded since there were `from`.
    fn warnings_since(&self, from: usize) -> Vec<String> {
        self.warnings
            .borrow()
            .get(from..)
            .unwrap_or_default()
            .to_vec()
    }

    /// One of the assumptions, in its range.
    fn assumption(&self, v: &Spanned<f64>, place: &str, what: Assumption) -> Result<f64, Located> {
        what.check(*v.get_ref())
            .map_err(|m| self.err(Some(v.span()), place, m))
    }

    /// A finite number `> 0`.
    fn positive(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x > 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number > 0", show(x)),
            ))
        }
    }

    /// A finite number `>= 0`.
    fn non_negative(&self, v: &Spanned<f64>, place: &str) -> Result<f64, Located> {
        let x = *v.get_ref();
        if x.is_finite() && x > MAX_NUMBER {
            Err(self.too_large(v, place))
        } else if x.is_finite() && x >= 0.0 {
            Ok(x)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{} must be a finite number ≥ 0", show(x)),
            ))
        }
    }

    fn too_large(&self, v: &Spanned<f64>, place: &str) -> Located {
        let x = *v.get_ref();
        self.err(
            Some(v.span()),
            place,
            format!(
                "{} is too large: give at most 1e15 (sums of larger values overflow)",
                show(x)
            ),
        )
    }

    /// A name, id or key value: no control characters (they corrupt SVG, HTML and the
    /// terminal), not empty, at most `max_chars` characters.
    fn name<'v>(
        &self,
        v: &'v Spanned<String>,
        place: &str,
        max_chars: usize,
    ) -> Result<&'v str, Located> {
        self.text_value(v, place, max_chars, &[])
    }

    /// A label: as [`Checker::name`], up to [`MAX_LABEL_CHARS`].
    fn label<'v>(&self, v: &'v Spanned<String>, place: &str) -> Result<&'v str, Located> {
        self.text_value(v, place, MAX_LABEL_CHARS, &[])
    }

    /// Free text (a description): line breaks and tabs allowed, other control characters
    /// not, at most [`MAX_DESCRIPTION_CHARS`].
    fn prose<'v>(&self, v: &'v Spanned<String>, place: &str) -> Result<&'v str, Located> {
        self.text_value(v, place, MAX_DESCRIPTION_CHARS, &['\n', '\t', '\r'])
    }

    fn text_value<'v>(
        &self,
        v: &'v Spanned<String>,
        place: &str,
        max_chars: usize,
        allowed: &[char],
    ) -> Result<&'v str, Located> {
        let s = v.get_ref();
        if s.trim().is_empty() {
            return Err(self.err(Some(v.span()), place, "is empty: give some text"));
        }
        if let Some(c) = s.chars().find(|c| c.is_control() && !allowed.contains(c)) {
            return Err(self.err(
                Some(v.span()),
                place,
                format!(
                    "\"{}\" holds the control character U+{:04X}: remove it (control characters would corrupt the charts, the HTML page and the terminal)",
                    shown(s),
                    c as u32
                ),
            ));
        }
        let chars = s.chars().count();
        if chars > max_chars {
            return Err(self.err(
                Some(v.span()),
                place,
                format!(
                    "is {chars} characters long; the limit is {max_chars}: shorten it (\"{}…\")",
                    shown(&s.chars().take(40).collect::<String>())
                ),
            ));
        }
        Ok(s)
    }

    /// A whole number `>= min`.
    fn count(&self, v: &Spanned<i64>, place: &str, min: i64) -> Result<u64, Located> {
        let x = *v.get_ref();
        if x >= min {
            Ok(x as u64)
        } else {
            Err(self.err(
                Some(v.span()),
                place,
                format!("{x} must be a whole number ≥ {min}"),
            ))
        }
    }
}

fn show(x: f64) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.abs() >= 1e15 || (x != 0.0 && x.abs() < 1e-6) {
        // Not 300 zeros for 1e-300.
        format!("{x:e}")
    } else {
        x.to_string()
    }
}

/// Checks a parsed scenario file; `path` is where it was read from.
pub fn scenario(raw: ScenarioFile, text: &str, path: &Path) -> Result<Scenario, Error> {
    let ck = Checker::new(path, text);
    let top = Some(0..0);
    let name = match &raw.name {
        Some(n) => scenario_name(&ck, n)?,
        None => return Err(ck.err(top, "name", "missing key `name` (e.g. name = \"nightly-maintenance\"; results go to out/<name>/)").into()),
    };
    let base_tokens = match &raw.base_tokens {
        Some(v) => ck.assumption(v, "base_tokens", Assumption::BaseTokens)?,
        None => return Err(ck.err(top, "base_tokens", "missing key `base_tokens`: the tokens every call reads (system prompt, tools), e.g. base_tokens = 30000").into()),
    };
    let bytes_per_token = match &raw.bytes_per_token {
        Some(v) => {
            let rho = ck.assumption(v, "bytes_per_token", Assumption::BytesPerToken)?;
            slips::bytes_per_token(&ck, v.span(), rho);
            rho
        }
        None => return Err(ck.err(top, "bytes_per_token", "missing key `bytes_per_token`: bytes per estimated token, e.g. bytes_per_token = 3.3").into()),
    };
    let retry_rate = match &raw.retry_rate {
        Some(v) => ck.assumption(v, "retry_rate", Assumption::RetryRate)?,
        None => 0.0,
    };
    let refetch = match raw
        .behaviour
        .as_ref()
        .and_then(|b| b.get_ref().refetch.as_ref())
    {
        Some(v) => {
            let p = ck.assumption(v, "[behaviour] refetch", Assumption::Refetch)?;
            slips::refetch(&ck, v.span(), p);
            p
        }
        None => 0.0,
    };
    if raw.call.len() > MAX_CALL_TABLES {
        return Err(ck
            .err(
                raw.call.get(MAX_CALL_TABLES).map(|c| c.span()),
                "[[call]]",
                format!(
                    "the scenario has {} [[call]] tables; the limit is {MAX_CALL_TABLES}: put a long trace in a TSV file and name it with calls_tsv = \"run.tsv\"",
                    raw.call.len()
                ),
            )
            .into());
    }
    let calls = match (&raw.calls_tsv, raw.call.is_empty()) {
        // A trace's ids are its distinct numbers and its segments checked as read.
        (Some(tsv), true) => calls::tsv_calls(&ck, tsv, path)?,
        (None, false) => {
            let calls = raw
                .call
                .iter()
                .enumerate()
                .map(|(i, c)| calls::call(&ck, i, c))
                .collect::<Result<Vec<_>, _>>()?;
            Calls::from(calls::finish_calls(&ck, calls, &raw.call)?)
        }
        (Some(tsv), false) => {
            return Err(ck
                .err(
                    Some(tsv.span()),
                    "calls_tsv",
                    "give the calls either as [[call]] tables or as calls_tsv, not both",
                )
                .into());
        }
        (None, true) => {
            return Err(ck
                .err(
                    top,
                    "call",
                    "the scenario has no calls: add [[call]] tables or calls_tsv = \"run.tsv\"",
                )
                .into());
        }
    };
    let terms = raw
        .terms
        .as_ref()
        .map(|t| terms::terms(&ck, t))
        .transpose()?
        .unwrap_or_default();
    terms::check_units(&ck, &terms, &calls)?;
    calls::kind_slips(&ck, &calls);
    let cache = raw
        .cache
        .as_ref()
        .map(|c| cache::cache(&ck, c))
        .transpose()?;
    let price = raw
        .price
        .as_ref()
        .map(|p| cache::price(&ck, p))
        .transpose()?;
    cache::one_output_price(&ck, raw.cache.as_ref(), price.as_ref())?;
    let sweep = raw
        .sweep
        .as_ref()
        .map(|s| sweep::sweep(&ck, s))
        .transpose()?;
    let before_edits = ck.warnings.borrow().len();
    let edits = edits::edits(&ck, raw.edit)?;
    let after_edits = ck.warnings.borrow().len();
    let base_parts = raw
        .base
        .as_ref()
        .map(|b| whatif::base_parts(&ck, b, base_tokens, &terms))
        .transpose()?
        .unwrap_or_default();
    let source = |v: &Option<Spanned<String>>, key: &str| {
        v.as_ref()
            .map(|v| ck.label(v, key).map(str::to_string))
            .transpose()
    };
    let sources = AssumptionSources {
        base_tokens: source(&raw.base_tokens_source, "base_tokens_source")?,
        bytes_per_token: source(&raw.bytes_per_token_source, "bytes_per_token_source")?,
    };
    let import = raw.import.as_ref().map(|i| import(&ck, i)).transpose()?;
    let description = raw
        .description
        .as_ref()
        .map(|d| ck.prose(d, "description").map(str::to_string))
        .transpose()?;
    let mut inputs = vec![path.to_path_buf()];
    inputs.extend(raw.calls_tsv.as_ref().map(|tsv| calls::tsv_path(tsv, path)));
    // The edits' warnings go with each edit (an edits file can replace them); the rest
    // are the scenario's.
    let warnings = {
        let all = ck.warnings.borrow();
        all[..before_edits]
            .iter()
            .chain(&all[after_edits..])
            .cloned()
            .collect()
    };
    Ok(Scenario {
        warnings,
        inputs,
        name,
        description,
        source: ck.file.clone(),
        base_tokens,
        bytes_per_token,
        retry_rate,
        refetch,
        calls: std::sync::Arc::new(calls),
        edits,
        sweep,
        cache,
        price,
        sources,
        terms,
        import,
        edits_file: None,
        base_parts,
    })
}

/// Checks an edits file's `[[edit]]` and `[[base.part]]` tables; `path` is where it was
/// read from. A part is sized by `tokens` or `published` (`definitions` needs a scenario's
/// own `[terms]`); whether the parts fit a session's B is checked when they are applied
/// ([`crate::scenario::Scenario::with_parts`]).
pub fn edits(raw: EditsFile, text: &str, path: &Path) -> Result<super::EditsSet, Located> {
    let ck = Checker::new(path, text);
    if raw.edit.is_empty() {
        let more = if raw.base.is_some() {
            ": its [[base.part]] tables name parts, and an [[edit]] with base = { drop = \"<part>\" } or { defer = \"<part>\" } says what to do with one"
        } else {
            ""
        };
        return Err(ck.err(
            Some(0..0),
            "[[edit]]",
            format!("the edits file has no [[edit]] tables: add at least one{more}"),
        ));
    }
    let edits = edits::edits(&ck, raw.edit)?;
    let parts = raw
        .base
        .as_ref()
        .map(|b| base_parts_of_edits_file(&ck, b))
        .transpose()?
        .unwrap_or_default();
    Ok(super::EditsSet { edits, parts })
}

/// The `[[base.part]]` tables of a file that is not a scenario (an edits file, what
/// `simulate import context` writes): no B to bound them, no `[terms]` to size
/// `definitions` by.
fn base_parts_of_edits_file(
    ck: &Checker,
    b: &toml::Spanned<super::whatif_file::BaseTableFile>,
) -> Result<Vec<super::BasePart>, Located> {
    whatif::base_parts(ck, b, f64::INFINITY, &super::Terms::default())
}

/// Checks the `[[base.part]]` tables of an edits-file-shaped file read for its parts alone
/// (what `simulate import context` writes: parts and no edits); its `[[edit]]` tables, if
/// any, are checked too and left out.
pub fn parts_file(
    raw: EditsFile,
    text: &str,
    path: &Path,
) -> Result<Vec<super::BasePart>, Located> {
    let ck = Checker::new(path, text);
    if !raw.edit.is_empty() {
        edits::edits(&ck, raw.edit)?;
    }
    let Some(base) = &raw.base else {
        return Err(ck.err(
            Some(0..0),
            "[[base.part]]",
            "the file has no [[base.part]] tables: give a file `simulate import context` wrote, or Claude Code's /context text itself",
        ));
    };
    base_parts_of_edits_file(&ck, base)
}

/// The `[import]` table: kept for reports; its convention must be a known one.
fn import(ck: &Checker, i: &Spanned<ImportFile>) -> Result<ImportInfo, Located> {
    let span = Some(i.span());
    let i = i.get_ref();
    let convention = match &i.convention {
        None => None,
        Some(c) => Some(match c.get_ref().as_str() {
            "anthropic" => Convention::Anthropic,
            "openai" => Convention::OpenAi,
            other => {
                return Err(ck.err(
                    Some(c.span()),
                    "[import] convention",
                    format!(
                        "\"{}\" is not a convention: give \"anthropic\" or \"openai\"",
                        shown(other)
                    ),
                ));
            }
        }),
    };
    let (Some(format), Some(file)) = (&i.format, &i.file) else {
        return Err(ck.err(span, "[import]", "an [import] table needs `format` (claude-code, codex or otel) and `file` (the transcript it came from)"));
    };
    Ok(ImportInfo {
        format: format.clone(),
        file: file.clone(),
        session_id: i.session_id.clone(),
        trace: i.trace.clone().unwrap_or_else(|| "main".into()),
        part: i.part,
        parent_session: i.parent_session.clone(),
        agent_id: i.agent_id.clone(),
        requests: i.requests,
        duplicates_removed: i.duplicates_removed,
        malformed_lines: i.malformed_lines,
        model: i.model.clone(),
        convention,
        compaction_trigger: i.compaction_trigger.clone(),
        compaction_pre_tokens: i.compaction_pre_tokens,
        compaction_summary_bytes: i.compaction_summary_bytes,
        compaction_post_tokens: i.compaction_post_tokens,
        reset_from_input_tokens: i.reset_from_input_tokens,
        reset_to_input_tokens: i.reset_to_input_tokens,
        user_id: i.user_id.clone(),
        organization_id: i.organization_id.clone(),
        account_uuid: i.account_uuid.clone(),
        team: i.team.clone(),
        team_attribute: i.team_attribute.clone(),
        tokens_sent: i.tokens_sent,
        tokens_received: i.tokens_received,
        api_calls: i.api_calls,
        instance_cost_usd: i.instance_cost_usd,
    })
}

fn scenario_name(ck: &Checker, n: &Spanned<String>) -> Result<String, Located> {
    let s = n.get_ref();
    let mut chars = s.chars();
    let first_ok = chars
        .next()
        .is_some_and(|c| c.is_ascii_lowercase() || c.is_ascii_digit());
    let rest_ok =
        chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if first_ok && rest_ok && s.len() <= 100 {
        Ok(s.clone())
    } else {
        Err(ck.err(Some(n.span()), "name", format!("\"{s}\" is not a valid name: use lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 100 characters (it becomes the directory out/<name>/)")))
    }
}

/// The nearest of `names` to `given`, as "did you mean \"x\"? "; else, for a short name
/// (`haiku`), the shortest three that contain it; else nothing. Names are compared with
/// `.` read as `-` and without case first: model ids write versions with `-`
/// (`claude-sonnet-4.5` is `claude-sonnet-4-5`, not `claude-sonnet-5`, another model at
/// another price).
pub(super) fn nearest<'a>(given: &str, names: impl Iterator<Item = &'a str>) -> String {
    let names: Vec<&str> = names.collect();
    let plain = |s: &str| s.trim().to_ascii_lowercase().replace('.', "-");
    let given_plain = plain(given);
    if let Some(n) = names.iter().find(|n| plain(n) == given_plain) {
        return format!("did you mean \"{n}\"? ");
    }
    if let Some((_, n)) = names
        .iter()
        .map(|n| (strsim::jaro_winkler(&given_plain, &plain(n)), n))
        .filter(|(score, _)| *score >= 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0))
    {
        return format!("did you mean \"{n}\"? ");
    }
    let part = given.trim().to_ascii_lowercase();
    if part.len() < 3 {
        return String::new();
    }
    let mut containing: Vec<&str> = names
        .into_iter()
        .filter(|n| !n.contains('/') && n.to_ascii_lowercase().contains(&part))
        .collect();
    containing.sort_by_key(|n| (n.len(), *n));
    containing.dedup();
    match containing.as_slice() {
        [] => String::new(),
        some => format!(
            "names with \"{part}\" in them: {}{}; ",
            some.iter().take(3).copied().collect::<Vec<_>>().join(", "),
            if some.len() > 3 { ", …" } else { "" }
        ),
    }
}
