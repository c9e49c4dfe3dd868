//! A fast reader for the `[[call]]` tables of scenario files as `simulate import` writes
//! them, for commands that read thousands of sessions (`simulate history`).
//!
//! Why: an imported session is mostly `[[call]]` tables (about 400 bytes a call), and the
//! general TOML parser plus validation spends about 2 ms on a 200-call file, most of it
//! building tables nobody keeps; ten thousand sessions took 20 s of CPU. This reader walks
//! the call tables line by line instead.
//!
//! How it stays right: it never decides alone. The file up to the second `[[call]]` (the
//! header and the first call) goes through the general path ([`load_str`]), which checks
//! everything about the scenario as usual; this reader takes the call tables only, in a
//! strict subset of TOML (bare keys, basic and literal strings, decimal numbers, booleans,
//! comments, `[[call]]` and `[call.measured]` headers) and with the same checks as
//! `validate::calls`. Anything outside the subset, anything a check would refuse, or a
//! first call that differs from the general path's, and the whole file goes through the
//! general path, which then gives its usual result or message. So the result is always
//! what [`load_str`] gives; the tests compare the two on every kind of file at hand.

mod syntax;

use super::validate::{MAX_CALL_TABLES, MAX_LABEL_CHARS, MAX_NUMBER, MAX_UNITS};
use super::{Call, CallDetail, Convention, MeasuredUsage, Scenario, load_str};
use crate::error::Error;
use compact_str::CompactString;
use rustc_hash::{FxHashMap, FxHashSet};
use std::borrow::Cow;
use std::path::Path;
use std::sync::Arc;
use syntax::{RawCall, RawMeasured, parse_calls};

/// Longest call id, kind, tool, hash or model, in characters (as `validate::calls`).
const MAX_ID_CHARS: usize = 200;

/// Reads scenario text as if from `path`: the same result as [`load_str`], faster for
/// files in the importer's layout.
pub fn load_quick(text: &str, path: &Path) -> Result<Scenario, Error> {
    match quick(text, path) {
        Some(s) => Ok(s),
        None => load_str(text, path),
    }
}

/// The scenario, if the quick path can vouch for it; None: use the general path.
fn quick(text: &str, path: &Path) -> Option<Scenario> {
    let first = first_call_header(text)?;
    let mut interned = Interned::default();
    // The importer writes about 400 bytes a call.
    let mut calls: Vec<Call> = Vec::with_capacity((text.len() - first) / 350 + 1);
    let mut segments: Vec<Option<i64>> = Vec::with_capacity(calls.capacity());
    let body = parse_calls(&text[first..], |raw| {
        if calls.len() >= MAX_CALL_TABLES {
            return None;
        }
        segments.push(raw.segment);
        calls.push(checked(raw, &mut interned)?);
        Some(())
    })?;
    let prefix_end = body.second.map_or(text.len(), |offset| first + offset);
    let head = load_str(&text[..prefix_end], path).ok()?;
    let calls = finish(calls, &segments)?;
    if head.calls.len() != 1 || head.calls.first() != calls.first().map(Call::as_ref) {
        return None;
    }
    // A call that loads tool definitions needs their size: the general path says so.
    if head.terms.tokens_per_loaded_tool.is_none()
        && calls
            .iter()
            .any(|c| c.detail.as_ref().is_some_and(|d| d.loaded_tools > 0))
    {
        return None;
    }
    Some(Scenario {
        calls: std::sync::Arc::new(calls.into()),
        ..head
    })
}

/// Byte offset of the first line that is exactly `[[call]]`.
fn first_call_header(text: &str) -> Option<usize> {
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        if line.trim_end_matches(['\n', '\r']) == "[[call]]" {
            return Some(start);
        }
        start += line.len();
    }
    None
}

/// The check of `validate`'s names and labels: not blank, no control character, at most
/// `max_chars` characters.
fn text_ok(s: &str, max_chars: usize) -> bool {
    !s.trim().is_empty() && !s.chars().any(char::is_control) && s.chars().count() <= max_chars
}

/// A size or count: finite, ≥ 0, at most [`MAX_NUMBER`].
fn size_ok(x: f64) -> bool {
    x.is_finite() && (0.0..=MAX_NUMBER).contains(&x)
}

/// One `Arc<str>` per distinct kind, tool and model in a file: equal values either way,
/// without an allocation per call.
#[derive(Default)]
struct Interned {
    strings: FxHashMap<String, Arc<str>>,
}

impl Interned {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.strings.get(s) {
            return a.clone();
        }
        let a: Arc<str> = Arc::from(s);
        self.strings.insert(s.to_string(), a.clone());
        a
    }
}

/// The call, if `validate::calls::call` would accept it (segment left at 0).
fn checked(c: RawCall, interned: &mut Interned) -> Option<Call> {
    let name = |s: &Option<Cow<str>>| s.as_deref().is_none_or(|s| text_ok(s, MAX_ID_CHARS));
    if !(name(&c.id)
        && c.label
            .as_deref()
            .is_none_or(|s| text_ok(s, MAX_LABEL_CHARS))
        && name(&c.kind)
        && name(&c.tool)
        && name(&c.input_hash)
        && c.other_tools
            .iter()
            .flatten()
            .all(|t| text_ok(t, MAX_ID_CHARS)))
    {
        return None;
    }
    let (id, label) = match (c.id, c.label) {
        (Some(id), Some(label)) => (id, label),
        (Some(id), None) => (id.clone(), id),
        (None, Some(label)) => (label.clone(), label),
        (None, None) => return None,
    };
    if c.bytes.is_none() && c.tokens.is_none() && c.images.is_none() {
        return None;
    }
    let sizes = [
        c.bytes,
        c.tokens,
        c.output_tokens,
        c.output_bytes,
        c.tool_input_bytes,
        c.gap_s,
    ];
    if !sizes.iter().flatten().all(|&x| size_ok(x)) {
        return None;
    }
    let kind = c.kind.as_deref().unwrap_or("tool");
    let measured = match c.measured {
        Some(m) => Some(measured(m, interned)?),
        None => None,
    };
    let tool = c.tool.as_deref().map(|t| interned.get(t));
    let other_tools = match (&c.other_tools, &tool) {
        (None, _) => Vec::new(),
        (Some(_), None) => return None,
        (Some(list), Some(first)) => {
            crate::scenario::other_tools(first, list.iter().map(|t| t.as_ref()), |t| {
                interned.get(t)
            })
        }
    };
    let input_hash = c.input_hash.as_deref().map(CompactString::from);
    let units = |n: Option<i64>| match n {
        None => Some(0),
        Some(n) if (0..=MAX_UNITS as i64).contains(&n) => Some(n as u64),
        Some(_) => None,
    };
    let (images, loaded_tools) = (units(c.images)?, units(c.loaded_tools)?);
    let output_bytes = c.output_bytes;
    let tool_input_bytes = c.tool_input_bytes;
    let detail = (tool.is_some()
        || !other_tools.is_empty()
        || input_hash.is_some()
        || measured.is_some()
        || output_bytes.is_some()
        || tool_input_bytes.is_some()
        || images > 0
        || loaded_tools > 0)
        .then(|| {
            Box::new(CallDetail {
                tool,
                other_tools,
                input_hash,
                measured,
                output_bytes,
                tool_input_bytes: tool_input_bytes.unwrap_or(0.0),
                images,
                loaded_tools,
            })
        });
    Some(Call {
        id: CompactString::from(id.as_ref()),
        label: CompactString::from(label.as_ref()),
        pinned: c.pinned.unwrap_or(kind == "web_search"),
        kind: interned.get(kind),
        bytes: c.bytes.unwrap_or(0.0),
        tokens: c.tokens.unwrap_or(0.0),
        output_tokens: c.output_tokens.unwrap_or(0.0),
        segment: 0,
        gap_s: c.gap_s.unwrap_or(0.0),
        measured: c.tokens.is_some(),
        detail,
    })
}

/// `[call.measured]`, if `validate::calls::measured` would accept it.
fn measured(m: RawMeasured, interned: &mut Interned) -> Option<MeasuredUsage> {
    let counts = [
        m.input_tokens,
        m.cache_creation_input_tokens,
        m.cache_creation_1h_input_tokens,
        m.cache_read_input_tokens,
        m.output_tokens,
        m.cost_usd,
    ];
    if !counts.iter().flatten().all(|&x| size_ok(x)) {
        return None;
    }
    let convention = match m.convention.as_deref()? {
        "anthropic" => Convention::Anthropic,
        "openai" => Convention::OpenAi,
        _ => return None,
    };
    if m.model
        .as_deref()
        .is_some_and(|s| !text_ok(s, MAX_ID_CHARS))
    {
        return None;
    }
    if let (Some(all), Some(one_hour)) = (
        m.cache_creation_input_tokens,
        m.cache_creation_1h_input_tokens,
    ) && one_hour > all
    {
        return None;
    }
    Some(MeasuredUsage {
        input_tokens: m.input_tokens,
        cache_creation_input_tokens: m.cache_creation_input_tokens,
        cache_creation_1h_input_tokens: m.cache_creation_1h_input_tokens,
        cache_read_input_tokens: m.cache_read_input_tokens,
        output_tokens: m.output_tokens,
        cost_usd: m.cost_usd,
        model: m.model.as_deref().map(|s| interned.get(s)),
        convention,
        cache_event: None,
    })
}

/// Unique ids and contiguous segments (default: the previous call's, the first 1), as
/// `validate::calls::finish_calls`.
fn finish(mut calls: Vec<Call>, segments: &[Option<i64>]) -> Option<Vec<Call>> {
    let mut ids: FxHashSet<&str> = FxHashSet::default();
    ids.reserve(calls.len());
    if !calls.iter().all(|c| ids.insert(c.id.as_str())) {
        return None;
    }
    drop(ids);
    let mut previous: Option<u64> = None;
    let mut finished: FxHashSet<u64> = FxHashSet::default();
    for (c, s) in calls.iter_mut().zip(segments) {
        let segment = match *s {
            Some(s) if s >= 0 => s as u64,
            Some(_) => return None,
            None => previous.unwrap_or(1),
        };
        if let Some(prev) = previous.filter(|p| *p != segment) {
            finished.insert(prev);
            if finished.contains(&segment) {
                return None;
            }
        }
        c.segment = segment;
        previous = Some(segment);
    }
    Some(calls)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEAD: &str = "name = \"s\"\nbase_tokens = 1000\nbytes_per_token = 2.5\n";

    /// The quick path's scenario, which must exist and equal the general path's.
    fn same(text: &str) -> Scenario {
        let path = Path::new("s.toml");
        let slow = load_str(text, path).unwrap();
        let fast = quick(text, path).expect("the quick path takes this file");
        assert_eq!(fast, slow);
        fast
    }

    /// The quick path must hand this file to the general path.
    fn declined(text: &str) {
        assert!(quick(text, Path::new("s.toml")).is_none(), "{text}");
    }

    #[test]
    fn reads_what_the_general_path_reads() {
        let text = format!(
            "{HEAD}\n[[call]]\nid = \"a\"\nlabel = 'cat \"x\".md' # a comment\ntool = \"Read\"\nbytes = 120\nsegment = 2\ngap_s = 4.25\noutput_tokens = 7\ninput_hash = \"00ff\"\n[call.measured]\ninput_tokens = 3\ncache_creation_input_tokens = 900\ncache_creation_1h_input_tokens = 0\ncache_read_input_tokens = 1.6e4\noutput_tokens = 7\nmodel = \"claude\"\nconvention = \"anthropic\"\n\n# between calls\n[[call]]\nlabel = \"search \\\"rust\\\" \\u00e9 #1 \\\\\"\nkind = \"web_search\"\ntokens = 50\n\n[[call]]\nid = \"c\"\nlabel = \"answer\"\nbytes = 0\npinned = true\nsegment = 3\n"
        );
        let s = same(&text);
        assert_eq!(s.calls.len(), 3);
        assert_eq!(s.calls.at(1).segment, 2);
        assert!(s.calls.at(1).pinned);
        assert_eq!(s.calls.at(1).label, "search \"rust\" é #1 \\");
        // A CRLF file reads the same.
        same(&text.replace('\n', "\r\n"));
    }

    #[test]
    fn hands_anything_unusual_to_the_general_path() {
        let call =
            |body: &str| format!("{HEAD}[[call]]\nlabel = \"a\"\nbytes = 1\n[[call]]\n{body}\n");
        for body in [
            "label = \"b\"\nbytes = -1",
            "label = \"b\"\nbytes = 01",
            "label = \"b\"\nbytes = 1_000",
            "label = \"b\"\nbytes = inf",
            "label = \"b\"\nbytes = 1e16",
            "label = \"b\"\nbytes = \"1\"",
            "label = \"b\"\nbytes = 1\nbytes = 2",
            "label = \"b\"\nbytes = 1\nsegment = 1.5",
            "label = \"b\"\nbytes = 1\ncolour = \"red\"",
            "label = \"\"\"b\nc\"\"\"\nbytes = 1",
            "label = \"b\\x41\"\nbytes = 1",
            "label = \"b\\tc\"\nbytes = 1",
            "label = \"  \"\nbytes = 1",
            "label = \"a\"\nbytes = 1",
            "label = \"b\"",
            "label = \"b\"\nbytes = 1\nmeasured = { input_tokens = 1 }",
            "label = \"b\"\nbytes = 1\n[call.measured]\ninput_tokens = 1",
            "label = \"b\"\nbytes = 1\n[call.measured]\nconvention = \"google\"",
            "label = \"b\"\nbytes = 1\n[[edit]]\nname = \"x\"\ndrop = { call = \"a\" }",
            "\"label\" = \"b\"\nbytes = 1",
            "label = \"b\"\nbytes = 1\nsegment = 2\n[[call]]\nlabel = \"c\"\nbytes = 1\nsegment = 1",
        ] {
            declined(&call(body));
        }
        // Nothing to speed up, or a header the general path refuses.
        declined(HEAD);
        declined(
            "name = \"S\"\nbase_tokens = 1\nbytes_per_token = 1\n[[call]]\nlabel = \"a\"\nbytes = 1\n",
        );
    }

    #[test]
    fn takes_every_shipped_imported_session() {
        let dir = Path::new("scenarios/history/sessions");
        let mut n = 0;
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            same(&std::fs::read_to_string(&path).unwrap());
            n += 1;
        }
        assert!(n >= 12);
    }

    #[test]
    fn other_tools_read_alike_each_once_after_the_first() {
        let text = format!(
            "{HEAD}\n[[call]]\nlabel = \"a\"\ntool = \"Read\"\nother_tools = [\"mcp__srv__t\", 'Read', \"Bash\", \"mcp__srv__t\",]\nbytes = 1\n"
        );
        let s = same(&text);
        let tools: Vec<&str> = s.calls.at(0).tools().collect();
        assert_eq!(tools, ["Read", "mcp__srv__t", "Bash"]);
        // An empty list is the general path's to read; a list without `tool` is refused.
        let empty = text.replace(
            "[\"mcp__srv__t\", 'Read', \"Bash\", \"mcp__srv__t\",]",
            "[]",
        );
        declined(&empty);
        let s = load_str(&empty, Path::new("s.toml")).unwrap();
        assert_eq!(s.calls.at(0).tools().collect::<Vec<_>>(), ["Read"]);
        let orphan = text.replace("tool = \"Read\"\n", "");
        declined(&orphan);
        let err = load_str(&orphan, Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("give the first as `tool` too"), "{err}");
    }

    #[test]
    fn load_quick_gives_the_general_paths_error() {
        let text = format!(
            "{HEAD}[[call]]\nlabel = \"a\"\nbytes = 1\n[[call]]\nlabel = \"b\"\nbytes = -1\n"
        );
        let path = Path::new("s.toml");
        assert_eq!(
            load_quick(&text, path).unwrap_err().to_string(),
            load_str(&text, path).unwrap_err().to_string()
        );
    }

    use proptest::prelude::*;

    /// Field values of one generated call: label, bytes, gap, segment, tool, whether it
    /// has an input hash, and measured (input, written, read) tokens.
    type Fields = (
        String,
        u32,
        f64,
        u8,
        Option<String>,
        bool,
        Option<(u32, u32, u32)>,
    );

    /// A call table as the importer would write it, from arbitrary field values.
    fn table((label, bytes, gap, segment, tool, hash, measured): Fields, index: usize) -> String {
        let string = |s: &str| toml::Value::String(s.to_string()).to_string();
        let mut t = format!(
            "\n[[call]]\nid = \"req_{index}\"\nlabel = {}\nkind = \"tool\"\nbytes = {bytes}\nsegment = {segment}\ngap_s = {gap}\n",
            string(&label)
        );
        if let Some(tool) = tool {
            t.push_str(&format!("tool = {}\n", string(&tool)));
        }
        if hash {
            t.push_str(&format!("input_hash = \"{:016x}\"\n", bytes));
        }
        if let Some((input, written, read)) = measured {
            t.push_str(&format!(
                "[call.measured]\ninput_tokens = {input}\ncache_creation_input_tokens = {written}\ncache_read_input_tokens = {read}\noutput_tokens = 5\nmodel = \"m\"\nconvention = \"anthropic\"\n"
            ));
        }
        t
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// Whatever the field values, the quick reader gives what the general path gives,
        /// and takes every file whose values the general path accepts.
        #[test]
        fn the_quick_path_agrees_with_the_general_path(
            calls in proptest::collection::vec(
                (
                    "[a-z \"'#\\\\\\u{e9}\\u{1}\\t=\\[\\]]{0,12}",
                    0u32..2_000_000,
                    (0u32..100_000).prop_map(|g| f64::from(g) / 8.0),
                    0u8..3,
                    proptest::option::of("[A-Za-z_]{1,8}"),
                    any::<bool>(),
                    proptest::option::of((0u32..10, 0u32..5000, 0u32..90_000)),
                ),
                1..6,
            )
        ) {
            let mut segments: Vec<u8> = calls.iter().map(|c| c.3).collect();
            segments.sort_unstable();
            let text: String = std::iter::once(HEAD.to_string())
                .chain(calls.into_iter().zip(segments).enumerate().map(|(i, (mut c, s))| {
                    c.3 = s;
                    table(c, i)
                }))
                .collect();
            let path = Path::new("s.toml");
            let general = load_str(&text, path);
            match (&general, load_quick(&text, path)) {
                (Ok(a), Ok(b)) => {
                    prop_assert_eq!(a, &b);
                    prop_assert!(quick(&text, path).is_some(), "declined an accepted file:\n{}", text);
                }
                (Err(a), Err(b)) => prop_assert_eq!(a.to_string(), b.to_string()),
                (a, b) => prop_assert!(false, "general {:?}, quick {:?}", a, b),
            }
        }
    }
}
