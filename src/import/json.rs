//! JSON pieces the readers share: measuring text without keeping it, and hashing a tool
//! input in a canonical form.
//!
//! Tool results can be megabytes; the ledger needs their length, not their text. The
//! visitors here see each string once, as the parser decodes it, and keep only a count
//! (and, for labels, the first few characters). Every visitor accepts any JSON value, so
//! an unexpected shape in a field we only measure never costs the whole line.
//!
//! Where only the count is needed, strings are not even decoded: the `Raw…` types take a
//! value's raw JSON text from serde_json (already checked: UTF-8, escapes, no control
//! characters) and count the bytes its decoded value has, escapes resolved ([`raw_string`]),
//! without unescaping, copying or validating it again. They are exactly as strict as
//! decoding is, or stricter; where they refuse a value, the line is parsed again with every
//! string decoded ([`decoding_strings`]), so a line reads the same either way.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use serde_json::value::RawValue;
use std::cell::Cell;
use std::fmt;
use xxhash_rust::xxh3::Xxh3;

/// A string that is borrowed from the line where it has no escapes.
#[derive(Deserialize)]
struct Borrowed<'a>(#[serde(borrow)] std::borrow::Cow<'a, str>);

/// An optional string, borrowed from the line where it can be: for `deserialize_with` on
/// `Option<Cow<str>>` fields. serde's `borrow` attribute reaches a `Cow` only when it is
/// the field's own type, so an `Option<Cow<str>>` would be copied into a new `String` on
/// every line (several allocations a line, a tenth of an import's time in the allocator).
pub fn borrowed<'de: 'a, 'a, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<std::borrow::Cow<'a, str>>, D::Error> {
    Ok(Option::<Borrowed<'a>>::deserialize(d)?.map(|b| b.0))
}

/// At most this many bytes of a text are kept, for labels.
pub const SNIPPET_BYTES: usize = 160;

/// The start of `text`, cut at a character boundary.
pub fn snippet(text: &str) -> String {
    let mut end = text.len().min(SNIPPET_BYTES);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_string()
}

/// The UTF-8 length of the text blocks, images counted apart, of a result: a string, or a
/// list of blocks (`text`/`input_text`/`output_text` by their text; `image`/`input_image`
/// as images; any other block by the strings in it); anything else by its strings.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ContentBytes {
    /// UTF-8 bytes of text.
    pub bytes: u64,
    pub images: u64,
    /// The first text, cut to [`SNIPPET_BYTES`].
    pub snippet: Option<String>,
    /// How many text pieces there were (0: none at all).
    pub texts: u64,
    /// `tool_reference` blocks (tool search naming deferred tools): each loads a tool's
    /// full definition, which the log does not size; their names are not counted as bytes.
    pub tool_references: u64,
}

impl<'de> Deserialize<'de> for ContentBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor::<false>)
    }
}

/// Measures a result; with `RAW`, the text of its blocks is counted from the raw JSON.
struct ContentVisitor<const RAW: bool>;

impl<'de, const RAW: bool> Visitor<'de> for ContentVisitor<RAW> {
    type Value = ContentBytes;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a result: a string or a list of blocks")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<ContentBytes, E> {
        Ok(ContentBytes {
            bytes: v.len() as u64,
            images: 0,
            snippet: Some(snippet(v)),
            texts: 1,
            tool_references: 0,
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<ContentBytes, A::Error> {
        let mut out = ContentBytes::default();
        while let Some(BlockOf::<RAW>(block)) = seq.next_element()? {
            if block.image {
                out.images += 1;
            } else if block.tool_reference {
                out.tool_references += 1;
            } else if block.text.is_some() || block.typed_text {
                out.bytes += block.text_bytes;
                out.texts += 1;
                if out.snippet.is_none() {
                    out.snippet = block.text;
                }
            } else {
                out.bytes += block.text_bytes + block.other_bytes;
            }
        }
        Ok(out)
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<ContentBytes, A::Error> {
        let bytes = StringBytesVisitor.visit_map(map)?;
        Ok(ContentBytes {
            bytes: bytes.0,
            ..ContentBytes::default()
        })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<ContentBytes, E> {
        Ok(ContentBytes::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<ContentBytes, E> {
        Ok(ContentBytes::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<ContentBytes, E> {
        Ok(ContentBytes::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<ContentBytes, E> {
        Ok(ContentBytes::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<ContentBytes, E> {
        Ok(ContentBytes::default())
    }
}

/// One block of a result list, measured.
#[derive(Default)]
struct Block {
    image: bool,
    /// A `tool_reference`: it loads a definition; its strings are a name, not content.
    tool_reference: bool,
    /// The block's `type` says it is text.
    typed_text: bool,
    text: Option<String>,
    text_bytes: u64,
    other_bytes: u64,
}

/// A [`Block`], its strings counted from the raw JSON with `RAW`.
struct BlockOf<const RAW: bool>(Block);

impl<'de, const RAW: bool> Deserialize<'de> for BlockOf<RAW> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BlockVisitor::<RAW>).map(BlockOf)
    }
}

struct BlockVisitor<const RAW: bool>;

impl<'de, const RAW: bool> Visitor<'de> for BlockVisitor<RAW> {
    type Value = Block;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Block, A::Error> {
        let mut block = Block::default();
        while let Some(key) = map.next_key::<KeyName>()? {
            match key {
                KeyName::Type => {
                    let kind = map.next_value::<StrOrNot>()?.0;
                    match kind.as_deref() {
                        Some("image" | "input_image") => block.image = true,
                        Some("tool_reference") => block.tool_reference = true,
                        Some("text" | "input_text" | "output_text") => block.typed_text = true,
                        _ => {}
                    }
                }
                KeyName::Text => {
                    let text = if RAW {
                        map.next_value::<RawText>()?.0
                    } else {
                        map.next_value::<ContentBytes>()?
                    };
                    block.text_bytes += text.bytes;
                    if block.text.is_none() {
                        block.text = text.snippet;
                    }
                }
                // Image data and cache settings are not text the model reads.
                KeyName::Skip => {
                    map.next_value::<IgnoredAny>()?;
                }
                KeyName::Other if RAW => {
                    block.other_bytes += map.next_value::<RawStringBytes>()?.0;
                }
                KeyName::Other => block.other_bytes += map.next_value::<StringBytes>()?.0,
            }
        }
        Ok(block)
    }

    fn visit_str<E: de::Error>(self, v: &str) -> Result<Block, E> {
        Ok(Block {
            typed_text: true,
            text: Some(snippet(v)),
            text_bytes: v.len() as u64,
            ..Block::default()
        })
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Block, A::Error> {
        Ok(Block {
            other_bytes: StringBytesVisitor.visit_seq(seq)?.0,
            ..Block::default()
        })
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Block, E> {
        Ok(Block::default())
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Block, E> {
        Ok(Block::default())
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Block, E> {
        Ok(Block::default())
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Block, E> {
        Ok(Block::default())
    }
    fn visit_unit<E: de::Error>(self) -> Result<Block, E> {
        Ok(Block::default())
    }
}

/// The keys of a block that matter.
enum KeyName {
    Type,
    Text,
    Skip,
    Other,
}

impl<'de> Deserialize<'de> for KeyName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyName;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<KeyName, E> {
                Ok(match v {
                    "type" => KeyName::Type,
                    "text" => KeyName::Text,
                    "source" | "image_url" | "cache_control" | "tool_use_id" | "id" => {
                        KeyName::Skip
                    }
                    _ => KeyName::Other,
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// A string if the value is one, else nothing (never an error).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StrOrNot(pub Option<String>);

impl<'de> Deserialize<'de> for StrOrNot {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = StrOrNot;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any value")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<StrOrNot, E> {
                Ok(StrOrNot(Some(v.to_string())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StrOrNot, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(StrOrNot(None))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StrOrNot, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(StrOrNot(None))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<StrOrNot, E> {
                Ok(StrOrNot(None))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<StrOrNot, E> {
                Ok(StrOrNot(None))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<StrOrNot, E> {
                Ok(StrOrNot(None))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<StrOrNot, E> {
                Ok(StrOrNot(None))
            }
            fn visit_unit<E: de::Error>(self) -> Result<StrOrNot, E> {
                Ok(StrOrNot(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The summed UTF-8 length of every string value (not keys) inside any JSON value.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct StringBytes(pub u64);

impl<'de> Deserialize<'de> for StringBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StringBytesVisitor)
    }
}

struct StringBytesVisitor;

impl<'de> Visitor<'de> for StringBytesVisitor {
    type Value = StringBytes;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any value")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<StringBytes, E> {
        Ok(StringBytes(v.len() as u64))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<StringBytes, A::Error> {
        let mut n = 0;
        while let Some(s) = seq.next_element::<StringBytes>()? {
            n += s.0;
        }
        Ok(StringBytes(n))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<StringBytes, A::Error> {
        let mut n = 0;
        while let Some((_, s)) = map.next_entry::<IgnoredAny, StringBytes>()? {
            n += s.0;
        }
        Ok(StringBytes(n))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<StringBytes, E> {
        Ok(StringBytes(0))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<StringBytes, E> {
        Ok(StringBytes(0))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<StringBytes, E> {
        Ok(StringBytes(0))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<StringBytes, E> {
        Ok(StringBytes(0))
    }
    fn visit_unit<E: de::Error>(self) -> Result<StringBytes, E> {
        Ok(StringBytes(0))
    }
}

thread_local! {
    /// Set while [`decoding_strings`] runs: the `Raw…` types then decode like the others.
    static DECODING: Cell<bool> = const { Cell::new(false) };
}

/// Runs `parse` with every string the `Raw…` types meet decoded by serde_json, as
/// [`ContentBytes`] and [`StringBytes`] do: for a line the raw count refused, so that it is
/// read (or reported malformed) exactly as decoding reads it.
pub fn decoding_strings<T>(parse: impl FnOnce() -> T) -> T {
    DECODING.with(|d| d.set(true));
    let out = parse();
    DECODING.with(|d| d.set(false));
    out
}

/// Takes a value as its raw JSON text and measures it: a string with `string` (None: refused,
/// the line is then decoded instead), anything else by parsing the text with `other`.
fn measure_raw<'de, D: Deserializer<'de>, T>(
    d: D,
    string: impl FnOnce(&str) -> Option<T>,
    other: impl FnOnce(
        &mut serde_json::Deserializer<serde_json::de::StrRead<'de>>,
    ) -> serde_json::Result<T>,
) -> Result<T, D::Error> {
    let raw = <&'de RawValue>::deserialize(d)?.get();
    let refused = || de::Error::custom("a string the raw count does not take");
    if raw.starts_with('"') {
        return string(raw).ok_or_else(refused);
    }
    let mut parser = serde_json::Deserializer::from_str(raw);
    other(&mut parser)
        .and_then(|v| parser.end().map(|()| v))
        .map_err(|_| refused())
}

/// [`ContentBytes`] of a result, its text counted from the raw JSON: the hot path of an
/// import (tool results are most of a log's bytes). Only for serde_json's own deserializer
/// from text in memory; elsewhere use [`ContentBytes`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RawContentBytes(pub ContentBytes);

impl std::ops::Deref for RawContentBytes {
    type Target = ContentBytes;
    fn deref(&self) -> &ContentBytes {
        &self.0
    }
}

impl<'de> Deserialize<'de> for RawContentBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if DECODING.with(Cell::get) {
            return ContentBytes::deserialize(d).map(RawContentBytes);
        }
        measure_raw(d, text_of_raw, |p| {
            de::Deserializer::deserialize_any(p, ContentVisitor::<true>)
        })
        .map(RawContentBytes)
    }
}

/// A block's `text`: [`RawContentBytes`] one level down (what is not a string is decoded).
struct RawText(ContentBytes);

impl<'de> Deserialize<'de> for RawText {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if DECODING.with(Cell::get) {
            return ContentBytes::deserialize(d).map(RawText);
        }
        measure_raw(d, text_of_raw, |p| {
            de::Deserializer::deserialize_any(p, ContentVisitor::<false>)
        })
        .map(RawText)
    }
}

/// [`StringBytes`], a string counted from the raw JSON (what is not a string is decoded).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawStringBytes(pub u64);

impl<'de> Deserialize<'de> for RawStringBytes {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        if DECODING.with(Cell::get) {
            return StringBytes::deserialize(d).map(|b| RawStringBytes(b.0));
        }
        measure_raw(
            d,
            |raw| raw_string(raw, 0).map(|(n, _)| n),
            |p| de::Deserializer::deserialize_any(p, StringBytesVisitor).map(|b| b.0),
        )
        .map(RawStringBytes)
    }
}

/// A string result from its raw text, as [`ContentVisitor::visit_str`] measures it.
fn text_of_raw(raw: &str) -> Option<ContentBytes> {
    let (bytes, start) = raw_string(raw, SNIPPET_BYTES)?;
    Some(ContentBytes {
        bytes,
        images: 0,
        snippet: Some(snippet(&start)),
        texts: 1,
        tool_references: 0,
    })
}

/// The UTF-8 length of the value of `raw`, a JSON string literal as serde_json accepted it
/// in a raw value (quotes included; valid UTF-8, valid escapes, no control characters),
/// and its first `keep` bytes or more, decoded, whole characters. None where decoding it
/// as a Rust string fails: a lone surrogate (`\ud800` alone, `\udc00` first).
///
/// Every escape stands for 1 byte but `\uXXXX`: 1 to 3 bytes by the code point, or 4 for
/// a surrogate pair (`\ud83d\ude00`, 12 bytes of text); everything else is itself. So
/// where the text holds neither `\u` nor `\\`, every backslash starts a 2-byte escape of
/// 1 byte, and the length is the text's less its backslashes: counted in three passes the
/// compiler vectorizes, never stopping at an escape.
pub fn raw_string(raw: &str, keep: usize) -> Option<(u64, String)> {
    let body = raw.strip_prefix('"')?.strip_suffix('"')?;
    let bytes = body.as_bytes();
    let (backslashes, special) = backslashes(bytes);
    if special {
        return walk(body, keep, true);
    }
    let (_, start) = walk(body, keep, false)?;
    Some(((bytes.len() - backslashes) as u64, start))
}

/// How many backslashes `bytes` holds, and whether one is followed by `u` or another
/// backslash (then escapes must be read one by one). Counted in blocks of 255 bytes into a
/// byte each, which the compiler turns into vector instructions.
fn backslashes(bytes: &[u8]) -> (usize, bool) {
    let (mut count, mut special) = (0usize, 0usize);
    let next = bytes.get(1..).unwrap_or_default();
    for (block, following) in bytes
        .chunks(255)
        .zip(next.chunks(255).chain(std::iter::once(&[][..])))
    {
        count += usize::from(block.iter().fold(0u8, |n, &b| n + u8::from(b == b'\\')));
        special += usize::from(block.iter().zip(following).fold(0u8, |n, (&b, &f)| {
            n + u8::from(b == b'\\' && (f == b'u' || f == b'\\'))
        }));
    }
    (count, special > 0)
}

/// Decodes `body` (a JSON string's text, between its quotes) escape by escape: its length
/// and its first `keep` bytes or more; without `to_end`, it stops once those are kept (the
/// length is then that of the part read).
fn walk(body: &str, keep: usize, to_end: bool) -> Option<(u64, String)> {
    let bytes = body.as_bytes();
    let mut start = String::new();
    let mut len = 0u64;
    let mut at = 0;
    loop {
        if !to_end && start.len() >= keep {
            return Some((len, start));
        }
        let next = memchr::memchr(b'\\', &bytes[at..]).map_or(bytes.len(), |i| at + i);
        len += (next - at) as u64;
        if start.len() < keep {
            // Only what is kept is copied: whole characters, up to `keep` or just past it.
            let mut end = (at + keep - start.len()).min(next);
            while !body.is_char_boundary(end) {
                end += 1;
            }
            start.push_str(body.get(at..end)?);
        }
        if next == bytes.len() {
            return Some((len, start));
        }
        let (c, used) = match bytes.get(next + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let high = hex4(bytes.get(next + 2..next + 6)?)?;
                match high {
                    0xD800..=0xDBFF => {
                        let low = match bytes.get(next + 6..next + 12)? {
                            [b'\\', b'u', hex @ ..] => hex4(hex)?,
                            _ => return None,
                        };
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return None;
                        }
                        let code = 0x1_0000
                            + ((u32::from(high) - 0xD800) << 10)
                            + (u32::from(low) - 0xDC00);
                        (char::from_u32(code)?, 12)
                    }
                    0xDC00..=0xDFFF => return None,
                    code => (char::from_u32(u32::from(code))?, 6),
                }
            }
            _ => return None,
        };
        len += c.len_utf8() as u64;
        if start.len() < keep {
            start.push(c);
        }
        at = next + used;
    }
}

/// Four hex digits (either case) as a number.
fn hex4(digits: &[u8]) -> Option<u16> {
    digits.iter().try_fold(0u16, |n, &d| {
        let v = (d as char).to_digit(16)?;
        Some(n << 4 | v as u16)
    })
}

/// xxh3 (64-bit) of the tool name, a 0 byte, and the input as canonical JSON (object keys
/// sorted, no white space), so the same tool asked the same thing hashes alike however
/// the log ordered the keys.
pub fn input_hash(tool: &str, input: &Value) -> u64 {
    let mut h = Xxh3::new();
    h.update(tool.as_bytes());
    h.update(&[0]);
    canonical(input, &mut h);
    h.digest()
}

/// Like [`input_hash`] for an input given as text (Codex arguments): parsed as JSON when
/// it is JSON, else hashed as the text itself.
pub fn text_input_hash(tool: &str, input: &str) -> u64 {
    match serde_json::from_str::<Value>(input) {
        Ok(v) => input_hash(tool, &v),
        Err(_) => input_hash(tool, &Value::String(input.to_string())),
    }
}

fn canonical(v: &Value, h: &mut Xxh3) {
    match v {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            h.update(b"{");
            for (i, k) in keys.into_iter().enumerate() {
                if i > 0 {
                    h.update(b",");
                }
                h.update(Value::String(k.clone()).to_string().as_bytes());
                h.update(b":");
                if let Some(item) = map.get(k) {
                    canonical(item, h);
                }
            }
            h.update(b"}");
        }
        Value::Array(items) => {
            h.update(b"[");
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    h.update(b",");
                }
                canonical(item, h);
            }
            h.update(b"]");
        }
        scalar => h.update(scalar.to_string().as_bytes()),
    }
}

/// A 64-bit hash as 16 lower-case hex digits.
pub fn hex(hash: u64) -> String {
    format!("{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_are_measured_by_their_text() {
        let c: ContentBytes = serde_json::from_str(r#""héllo""#).unwrap();
        assert_eq!((c.bytes, c.images, c.texts), (6, 0, 1));
        let c: ContentBytes = serde_json::from_str(
            r#"[{"type":"text","text":"ab\n"},{"type":"image","source":{"type":"base64","data":"AAAA"}},{"text":"cd","type":"text"}]"#,
        )
        .unwrap();
        assert_eq!((c.bytes, c.images), (5, 1));
        assert_eq!(c.snippet.as_deref(), Some("ab\n"));
        let c: ContentBytes = serde_json::from_str(
            r#"[{"type":"web_search_result","title":"T","url":"https://x","page_age":null}]"#,
        )
        .unwrap();
        assert_eq!(c.bytes, 1 + 9);
        let c: ContentBytes = serde_json::from_str("null").unwrap();
        assert_eq!(c, ContentBytes::default());
        // Tool search's answer: two definitions loaded, their names not counted as text.
        let c: ContentBytes = serde_json::from_str(
            r#"[{"type":"tool_reference","tool_name":"mcp__github__create_issue"},{"tool_name":"WebFetch","type":"tool_reference"},{"type":"text","text":"ok"}]"#,
        )
        .unwrap();
        assert_eq!((c.bytes, c.tool_references, c.texts), (2, 2, 1));
    }

    /// What decoding gives for the JSON string literal `raw`: its UTF-8 length and snippet,
    /// or None where serde_json refuses it as a Rust string.
    fn decoded(raw: &str) -> Option<(u64, String)> {
        serde_json::from_str::<String>(raw)
            .ok()
            .map(|s| (s.len() as u64, snippet(&s)))
    }

    /// What the raw count gives, where serde_json takes `raw` as a raw value at all.
    fn counted(raw: &str) -> Option<Option<(u64, String)>> {
        let value = serde_json::from_str::<&RawValue>(raw).ok()?;
        Some(raw_string(value.get(), SNIPPET_BYTES).map(|(n, start)| (n, snippet(&start))))
    }

    #[test]
    fn raw_strings_count_what_decoding_counts() {
        for raw in [
            r#""""#,
            r#""plain""#,
            r#""a\nb\t\"q\" \\ \/ \b\f\r""#,
            r#""\u0041\u00e9\u20ac\uFFFF""#,
            r#""\ud83d\ude00 pair""#,
            r#""\uD83D\uDE00""#,
            r#""\\u0041 is not an escape""#,
            r#""\\\\""#,
            r#""héllo wörld ✓ 😀""#,
            r#""\u0000\u001f""#,
        ] {
            assert_eq!(counted(raw), Some(decoded(raw)), "{raw}");
            assert!(decoded(raw).is_some(), "{raw}");
        }
        // Lone surrogates: serde_json refuses them as strings, and so does the count.
        for raw in [
            r#""\ud800""#,
            r#""\ud800x""#,
            r#""\ud800\n""#,
            r#""\ud800\u0041""#,
            r#""\udc00\ud800""#,
            r#""\udfff""#,
        ] {
            assert_eq!(decoded(raw), None, "{raw}");
            assert_eq!(counted(raw), Some(None), "{raw}");
        }
        // A long text keeps only its first 160 bytes, cut at a character.
        let long = format!("\"{}\\n{}\"", "é".repeat(100), "x".repeat(1000));
        assert_eq!(counted(&long), Some(decoded(&long)));
        assert_eq!(decoded(&long).unwrap().1.len(), 160);
    }

    #[test]
    fn a_result_reads_the_same_counted_raw_or_decoded() {
        for raw in [
            r#""ab\ncd""#,
            r#"[{"type":"text","text":"ab\n\u00e9"},{"type":"image","source":{"data":"AAAA"}},{"text":"cd","type":"text"}]"#,
            r#"[{"type":"web_search_result","title":"T\u00e9","url":"https://x","page_age":null}]"#,
            r#"[{"type":"tool_reference","tool_name":"mcp__github__create_issue"},{"type":"text","text":"ok"}]"#,
            r#"{"a":"b\"c","d":[1,"e"]}"#,
            r#"[{"type":"text","text":["nested","list"]}]"#,
            "null",
            "17",
            "[]",
        ] {
            let fast: RawContentBytes = serde_json::from_slice(raw.as_bytes()).unwrap();
            let slow: ContentBytes = serde_json::from_str(raw).unwrap();
            assert_eq!(fast.0, slow, "{raw}");
            let fast: RawStringBytes = serde_json::from_slice(raw.as_bytes()).unwrap();
            let slow: StringBytes = serde_json::from_str(raw).unwrap();
            assert_eq!(fast.0, slow.0, "{raw}");
        }
        // A lone surrogate is refused by the raw count; decoding then reads it (and refuses
        // it too, with serde_json's own message).
        let lone = r#"[{"type":"text","text":"\ud800"}]"#;
        assert!(serde_json::from_str::<RawContentBytes>(lone).is_err());
        let decoded = decoding_strings(|| serde_json::from_str::<RawContentBytes>(lone));
        assert_eq!(
            decoded.unwrap_err().to_string(),
            serde_json::from_str::<ContentBytes>(lone)
                .unwrap_err()
                .to_string()
        );
    }

    use proptest::prelude::*;

    /// JSON string texts as logs hold them and as they can go wrong: any characters, every
    /// escape, `\u` with any four hex digits (surrogates paired, lone and reversed often),
    /// escaped backslashes before a `u`.
    fn json_string_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            any::<char>()
                .prop_filter("no quote, backslash or control", |c| {
                    *c != '"' && *c != '\\' && !c.is_control()
                })
                .prop_map(String::from),
            prop::sample::select(vec![
                "\\n",
                "\\t",
                "\\\"",
                "\\\\",
                "\\/",
                "\\b",
                "\\f",
                "\\r",
                "\\\\u0041",
                "é",
                "😀",
            ])
            .prop_map(str::to_string),
            any::<u16>().prop_map(|u| format!("\\u{u:04x}")),
            (0xD800u16..0xE000).prop_map(|u| format!("\\u{u:04X}")),
            (0xD800u16..0xDC00, 0xDC00u16..0xE000)
                .prop_map(|(h, l)| format!("\\u{h:04x}\\u{l:04x}")),
        ];
        proptest::collection::vec(piece, 0..300).prop_map(|p| format!("\"{}\"", p.concat()))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The raw count is serde_json's decoding, byte for byte: the same length and
        /// snippet where it decodes, and a refusal exactly where it refuses.
        #[test]
        fn the_raw_count_is_the_decoded_length(raw in json_string_text()) {
            prop_assert_eq!(counted(&raw), Some(decoded(&raw)), "{}", raw);
        }

        /// Any string, as serde_json writes it.
        #[test]
        fn any_string_as_written_counts_its_own_length(text in any::<String>()) {
            let raw = serde_json::to_string(&text).unwrap();
            prop_assert_eq!(raw_string(&raw, SNIPPET_BYTES).map(|(n, _)| n), Some(text.len() as u64));
        }
    }

    #[test]
    fn input_hash_ignores_key_order() {
        let a: Value = serde_json::from_str(r#"{"b":1,"a":[1,{"y":2,"x":"s"}]}"#).unwrap();
        let b: Value = serde_json::from_str(r#"{"a":[1,{"x":"s","y":2}],"b":1}"#).unwrap();
        assert_eq!(input_hash("Read", &a), input_hash("Read", &b));
        assert_ne!(input_hash("Read", &a), input_hash("Grep", &a));
        assert_eq!(
            text_input_hash("shell", r#"{"b":1,"a":2}"#),
            text_input_hash("shell", r#"{"a":2, "b":1}"#)
        );
        assert_eq!(hex(0xab), "00000000000000ab");
    }
}
