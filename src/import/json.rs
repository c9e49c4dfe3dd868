//! JSON pieces the readers share: measuring text without keeping it, and hashing a tool
//! input in a canonical form.
//!
//! Tool results can be megabytes; the ledger needs their length, not their text. The
//! visitors here see each string once, as the parser decodes it, and keep only a count
//! (and, for labels, the first few characters). Every visitor accepts any JSON value, so
//! an unexpected shape in a field we only measure never costs the whole line.

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::fmt;
use xxhash_rust::xxh3::Xxh3;

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
        d.deserialize_any(ContentVisitor)
    }
}

struct ContentVisitor;

impl<'de> Visitor<'de> for ContentVisitor {
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
        while let Some(block) = seq.next_element::<Block>()? {
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

impl<'de> Deserialize<'de> for Block {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BlockVisitor)
    }
}

struct BlockVisitor;

impl<'de> Visitor<'de> for BlockVisitor {
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
                    let text = map.next_value::<ContentBytes>()?;
                    block.text_bytes += text.bytes;
                    if block.text.is_none() {
                        block.text = text.snippet;
                    }
                }
                // Image data and cache settings are not text the model reads.
                KeyName::Skip => {
                    map.next_value::<IgnoredAny>()?;
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
