//! One line of the Collector's file output (an OTLP/JSON `LogsData`) → its log records,
//! each parsed on its own.
//!
//! A line is one export: a batch of many records, often of many sessions. Records are kept
//! as raw JSON until each is parsed, so one record of an unexpected shape costs that
//! record, not the batch. Attribute values are read as the OTLP/JSON encoding writes them
//! (`{"stringValue": …}`, `{"intValue": "42"}` with 64-bit integers as decimal strings,
//! `{"doubleValue": …}`, `{"boolValue": …}`), and numbers are read from any of them:
//! Claude Code sends most of its numbers as strings.

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// One line: an export of logs, or something else (traces, metrics, another format's line).
#[derive(Debug, Deserialize)]
pub struct Line<'a> {
    #[serde(rename = "resourceLogs", borrow, default)]
    pub resource_logs: Option<Vec<ResourceLogs<'a>>>,
    #[serde(rename = "resourceSpans", borrow, default)]
    pub resource_spans: Option<Vec<ResourceSpans<'a>>>,
    #[serde(rename = "resourceMetrics", default)]
    pub resource_metrics: Option<serde::de::IgnoredAny>,
    /// The `type` of a line of another format (a Claude Code or Codex transcript line).
    #[serde(rename = "type", default)]
    pub kind: crate::import::json::StrOrNot,
}

/// One line read in one pass, every record and span typed as it is met: what a line is
/// when nothing in it is of an unexpected shape (nearly always). Where this does not
/// parse, the line is read as a [`Line`], each record on its own, so that one odd record
/// costs that record; so a line read either way gives the same records.
#[derive(Debug, Deserialize)]
pub struct TypedLine<'a> {
    #[serde(rename = "resourceLogs", borrow, default)]
    pub resource_logs: Option<Vec<TypedLogs<'a>>>,
    #[serde(rename = "resourceSpans", borrow, default)]
    pub resource_spans: Option<Vec<TypedSpans<'a>>>,
    #[serde(rename = "resourceMetrics", default)]
    pub resource_metrics: Option<serde::de::IgnoredAny>,
    #[serde(rename = "type", default)]
    pub kind: crate::import::json::StrOrNot,
}

/// [`ResourceLogs`] with its records typed.
#[derive(Debug, Deserialize)]
pub struct TypedLogs<'a> {
    #[serde(borrow, default)]
    pub resource: Option<Resource<'a>>,
    #[serde(rename = "scopeLogs", borrow, default)]
    pub scope_logs: Vec<TypedScopeLogs<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct TypedScopeLogs<'a> {
    #[serde(rename = "logRecords", borrow, default)]
    pub log_records: Vec<LogRecord<'a>>,
}

/// [`ResourceSpans`] with its spans typed.
#[derive(Debug, Deserialize)]
pub struct TypedSpans<'a> {
    #[serde(borrow, default)]
    pub resource: Option<Resource<'a>>,
    #[serde(rename = "scopeSpans", borrow, default)]
    pub scope_spans: Vec<TypedScopeSpans<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct TypedScopeSpans<'a> {
    #[serde(borrow, default)]
    pub spans: Vec<Span<'a>>,
}

/// The records of one resource (one Claude Code process, as the SDK describes it).
#[derive(Debug, Deserialize)]
pub struct ResourceLogs<'a> {
    #[serde(borrow, default)]
    pub resource: Option<Resource<'a>>,
    #[serde(rename = "scopeLogs", borrow, default)]
    pub scope_logs: Vec<ScopeLogs<'a>>,
}

#[derive(Debug, Default, Deserialize)]
pub struct Resource<'a> {
    #[serde(borrow, default)]
    pub attributes: Vec<KeyValue<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct ScopeLogs<'a> {
    #[serde(rename = "logRecords", borrow, default)]
    pub log_records: Vec<&'a RawValue>,
}

/// The spans of one resource (a traces export: `TracesData`).
#[derive(Debug, Deserialize)]
pub struct ResourceSpans<'a> {
    #[serde(borrow, default)]
    pub resource: Option<Resource<'a>>,
    #[serde(rename = "scopeSpans", borrow, default)]
    pub scope_spans: Vec<ScopeSpans<'a>>,
}

#[derive(Debug, Deserialize)]
pub struct ScopeSpans<'a> {
    #[serde(borrow, default)]
    pub spans: Vec<&'a RawValue>,
}

/// One span (OTLP `Span`): its ids, name, times, attributes and events.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Span<'a> {
    /// Hex (OTLP/JSON writes ids as hex strings, not base64).
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub trace_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub span_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub name: Option<Cow<'a, str>>,
    #[serde(default)]
    pub start_time_unix_nano: Option<Int>,
    #[serde(default)]
    pub end_time_unix_nano: Option<Int>,
    #[serde(borrow, default)]
    pub attributes: Vec<KeyValue<'a>>,
    #[serde(borrow, default)]
    pub events: Vec<SpanEvent<'a>>,
}

/// An event recorded on a span (Claude Code's `tool.output`).
#[derive(Debug, Default, Deserialize)]
pub struct SpanEvent<'a> {
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub attributes: Vec<KeyValue<'a>>,
}

/// One log record: a Claude Code event.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LogRecord<'a> {
    #[serde(default)]
    pub time_unix_nano: Option<Int>,
    #[serde(default)]
    pub observed_time_unix_nano: Option<Int>,
    /// Claude Code writes the event's name here too (`claude_code.api_request`).
    #[serde(borrow, default)]
    pub body: Option<AnyValue<'a>>,
    /// The event name field of newer SDKs.
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub event_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    pub attributes: Vec<KeyValue<'a>>,
    /// The span the record was emitted in, where the SDK set one (hex).
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub span_id: Option<Cow<'a, str>>,
}

#[derive(Debug, Deserialize)]
pub struct KeyValue<'a> {
    #[serde(borrow)]
    pub key: Cow<'a, str>,
    #[serde(borrow, default)]
    pub value: Option<AnyValue<'a>>,
}

/// An attribute value. Arrays and key-value lists (a structured `gen_ai.tool.call.result`)
/// are kept as raw JSON, to be measured; bytes are not read.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AnyValue<'a> {
    #[serde(borrow, default, deserialize_with = "crate::import::json::borrowed")]
    pub string_value: Option<Cow<'a, str>>,
    #[serde(default)]
    pub int_value: Option<Int>,
    #[serde(default)]
    pub double_value: Option<Double>,
    #[serde(default)]
    pub bool_value: Option<bool>,
    #[serde(borrow, default)]
    pub array_value: Option<&'a RawValue>,
    #[serde(borrow, default)]
    pub kvlist_value: Option<&'a RawValue>,
}

impl AnyValue<'_> {
    /// The value as text: a string as it is, a number or bool written out.
    pub fn text(&self) -> Option<Cow<'_, str>> {
        if let Some(s) = &self.string_value {
            return Some(Cow::Borrowed(s.as_ref()));
        }
        if let Some(Int(Some(i))) = self.int_value {
            return Some(Cow::Owned(i.to_string()));
        }
        if let Some(Double(Some(d))) = self.double_value {
            return Some(Cow::Owned(d.to_string()));
        }
        self.bool_value
            .map(|b| Cow::Borrowed(if b { "true" } else { "false" }))
    }

    /// The length of the value's text in UTF-16 code units (the unit of Claude Code's own
    /// sizes, so that a size from content and a logged size agree): a string's, or the
    /// summed strings of a structured value; None for a number or nothing.
    pub fn text_units(&self) -> Option<u64> {
        if let Some(s) = &self.string_value {
            return Some(s.encode_utf16().count() as u64);
        }
        let raw = self.array_value.or(self.kvlist_value)?;
        let v: serde_json::Value = serde_json::from_str(raw.get()).ok()?;
        Some(utf16_strings(&v))
    }

    /// The value as a whole number ≥ 0, from an int, a whole double or a string of digits;
    /// `Err` when it is there but is not one.
    pub fn count(&self) -> Result<u64, ()> {
        if let Some(Int(i)) = self.int_value {
            return i.and_then(|i| u64::try_from(i).ok()).ok_or(());
        }
        if let Some(Double(d)) = self.double_value {
            return d.and_then(whole).ok_or(());
        }
        match &self.string_value {
            Some(s) => {
                let s = s.trim();
                s.parse::<u64>()
                    .ok()
                    .or_else(|| s.parse::<f64>().ok().and_then(whole))
                    .ok_or(())
            }
            None => Err(()),
        }
    }
}

/// UTF-16 code units of every string value in an OTLP/JSON structured value.
fn utf16_strings(v: &serde_json::Value) -> u64 {
    match v {
        serde_json::Value::String(s) => s.encode_utf16().count() as u64,
        serde_json::Value::Array(items) => items.iter().map(utf16_strings).sum(),
        serde_json::Value::Object(map) => map
            .iter()
            .filter(|(k, _)| k.as_str() != "key")
            .map(|(_, v)| utf16_strings(v))
            .sum(),
        _ => 0,
    }
}

/// `x` as a whole number ≥ 0, if it is one.
fn whole(x: f64) -> Option<u64> {
    (x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x < 1.8e19).then_some(x as u64)
}

/// An OTLP/JSON 64-bit integer: a decimal string (as the encoding writes it) or a number;
/// None when it is neither (never an error).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Int(pub Option<i64>);

impl<'de> Deserialize<'de> for Int {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Int;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an integer or a decimal string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Int, E> {
                Ok(Int(v.trim().parse().ok()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Int, E> {
                Ok(Int(Some(v)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Int, E> {
                Ok(Int(i64::try_from(v).ok()))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Int, E> {
                Ok(Int(
                    (v.is_finite() && v.fract() == 0.0 && v.abs() < 9.2e18).then_some(v as i64)
                ))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Int, E> {
                Ok(Int(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// An OTLP/JSON double: a number, or a string (`"NaN"`, `"1.5"`); None when it is
/// neither.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Double(pub Option<f64>);

impl<'de> Deserialize<'de> for Double {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = Double;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a number or a numeric string")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Double, E> {
                Ok(Double(v.trim().parse().ok()))
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Double, E> {
                Ok(Double(Some(v as f64)))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Double, E> {
                Ok(Double(Some(v as f64)))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Double, E> {
                Ok(Double(Some(v)))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Double, E> {
                Ok(Double(None))
            }
        }
        d.deserialize_any(V)
    }
}

/// The attributes of a record, looked up by key (the record's own first, then its
/// resource's).
pub struct Attributes<'r, 'a> {
    pub own: &'r [KeyValue<'a>],
    pub resource: &'r [KeyValue<'a>],
}

impl<'r, 'a> Attributes<'r, 'a> {
    /// The record's own value of `key`.
    pub fn get(&self, key: &str) -> Option<&'r AnyValue<'a>> {
        find(self.own, key)
    }

    /// The record's value of `key`, else its resource's.
    pub fn get_or_resource(&self, key: &str) -> Option<&'r AnyValue<'a>> {
        find(self.own, key).or_else(|| find(self.resource, key))
    }

    /// The value of `key` as text, empty text as none.
    pub fn text(&self, key: &str) -> Option<Cow<'r, str>> {
        self.get(key)?.text().filter(|t| !t.is_empty())
    }

    /// The value of `key` as a count of tokens or bytes: `Ok(None)` when absent, `Err`
    /// with why when it is there but not a whole number ≥ 0, or above
    /// [`MAX_NUMBER`](crate::scenario::MAX_NUMBER) (1e15), the most a scenario holds: no
    /// request or result is that large, and one such record must cost that record (listed
    /// as malformed), not every session the file holds.
    pub fn count(&self, key: &str) -> Result<Option<u64>, String> {
        match self.whole(key)? {
            Some(n) if n as f64 > crate::scenario::MAX_NUMBER => Err(format!(
                "`{key}` is {n}, above 1e15, the most a scenario holds (no real count is this large)"
            )),
            n => Ok(n),
        }
    }

    /// The value of `key` as a whole number ≥ 0 of any size (an order, not a count):
    /// `Ok(None)` when absent, `Err` with why when it is there but not one.
    pub fn whole(&self, key: &str) -> Result<Option<u64>, String> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => v.count().map(Some).map_err(|()| {
                let shown = v.text().map_or_else(|| "?".to_string(), |t| t.into_owned());
                format!("`{key}` is not a whole number ≥ 0 ({shown})")
            }),
        }
    }
}

fn find<'r, 'a>(list: &'r [KeyValue<'a>], key: &str) -> Option<&'r AnyValue<'a>> {
    list.iter()
        .find(|kv| kv.key == key)
        .and_then(|kv| kv.value.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_read_in_every_encoding() {
        let r: LogRecord = serde_json::from_str(
            r#"{"timeUnixNano":"1760000000000000000","attributes":[
                {"key":"a","value":{"intValue":"42"}},
                {"key":"b","value":{"intValue":7}},
                {"key":"c","value":{"stringValue":"1200"}},
                {"key":"d","value":{"doubleValue":3.0}},
                {"key":"e","value":{"doubleValue":2.5}},
                {"key":"f","value":{"stringValue":"x"}},
                {"key":"g","value":{"arrayValue":{"values":[]}}},
                {"key":"h","value":{"boolValue":true}},
                {"key":"big","value":{"stringValue":"1e16"}},
                {"key":"edge","value":{"intValue":"1000000000000000"}}]}"#,
        )
        .unwrap();
        assert_eq!(r.time_unix_nano, Some(Int(Some(1_760_000_000_000_000_000))));
        let a = Attributes {
            own: &r.attributes,
            resource: &[],
        };
        assert_eq!(a.count("a"), Ok(Some(42)));
        assert_eq!(a.count("b"), Ok(Some(7)));
        assert_eq!(a.count("c"), Ok(Some(1200)));
        assert_eq!(a.count("d"), Ok(Some(3)));
        assert!(a.count("e").is_err());
        assert!(a.count("f").is_err());
        assert_eq!(a.count("missing"), Ok(None));
        assert!(a.count("big").unwrap_err().contains("above 1e15"));
        assert_eq!(a.whole("big"), Ok(Some(10_000_000_000_000_000)));
        assert_eq!(a.count("edge"), Ok(Some(1_000_000_000_000_000)));
        assert_eq!(a.text("g"), None);
        assert_eq!(a.text("h").as_deref(), Some("true"));
        assert_eq!(a.text("f").as_deref(), Some("x"));
    }

    #[test]
    fn one_odd_record_does_not_cost_the_line() {
        let line: Line = serde_json::from_str(
            r#"{"resourceLogs":[{"resource":{"attributes":[]},"scopeLogs":[{"scope":{"name":"com.anthropic.claude_code.events"},"logRecords":[{"attributes":"not a list"},{"attributes":[]}]}]}]}"#,
        )
        .unwrap();
        let records = &line.resource_logs.unwrap()[0].scope_logs[0].log_records;
        assert_eq!(records.len(), 2);
        assert!(serde_json::from_str::<LogRecord>(records[0].get()).is_err());
        assert!(serde_json::from_str::<LogRecord>(records[1].get()).is_ok());
    }
}
