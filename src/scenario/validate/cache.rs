//! `[cache]` (the prompt-cache prices, or a preset) and `[price]` (dollars).

use super::Checker;
use crate::cache::presets;
use crate::error::Located;
use crate::scenario::file::{CacheFile, PriceFile};
use crate::scenario::{CacheSpec, Price};
use toml::Spanned;

pub(super) fn cache(ck: &Checker, c: &Spanned<CacheFile>) -> Result<CacheSpec, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    let preset = match &c.preset {
        Some(p) => Some(presets::find(p.get_ref()).ok_or_else(|| {
            ck.err(
                Some(p.span()),
                "[cache] preset",
                format!(
                    "unknown preset \"{}\"; known presets: {}",
                    p.get_ref(),
                    presets::names().join(", ")
                ),
            )
        })?),
        None => None,
    };
    let pick = |v: &Option<Spanned<f64>>,
                key: &str,
                from: Option<f64>,
                min_zero: bool|
     -> Result<f64, Located> {
        let place = format!("[cache] {key}");
        match (v, from) {
            (Some(v), _) if min_zero => ck.non_negative(v, &place),
            (Some(v), _) => ck.positive(v, &place),
            (None, Some(x)) => Ok(x),
            (None, None) => Err(ck.err(span.clone(), &place, format!("missing key `{key}` (give read, write, ttl_s and min_tokens, or a preset such as preset = \"anthropic-5m\")"))),
        }
    };
    let read = pick(&c.read, "read", preset.map(|p| p.read), false)?;
    let write = pick(&c.write, "write", preset.map(|p| p.write), false)?;
    if write < read {
        let at = c.write.as_ref().map(|w| w.span()).or(span);
        return Err(ck.err(at, "[cache] write", format!("write = {write} is below read = {read}: writing to the cache never costs less than reading from it")));
    }
    Ok(CacheSpec {
        read,
        write,
        ttl_s: pick(&c.ttl_s, "ttl_s", preset.map(|p| p.ttl_s), false)?,
        min_tokens: pick(
            &c.min_tokens,
            "min_tokens",
            preset.map(|p| p.min_tokens),
            true,
        )?,
        preset: preset.map(|p| format!("{} ({})", p.name, p.source)),
    })
}

pub(super) fn price(ck: &Checker, p: &Spanned<PriceFile>) -> Result<Price, Located> {
    let span = Some(p.span());
    let p = p.get_ref();
    let input = match &p.input {
        Some(v) => ck.positive(v, "[price] input")?,
        None => {
            return Err(ck.err(
                span,
                "[price] input",
                "missing key `input`: USD per million input tokens",
            ));
        }
    };
    let output = p
        .output
        .as_ref()
        .map(|v| ck.positive(v, "[price] output"))
        .transpose()?;
    let source = match &p.source {
        Some(s) if !s.trim().is_empty() => s.clone(),
        _ => return Err(ck.err(span, "[price] source", "missing key `source`: where the prices come from (e.g. \"list price, 2026-11\"); it is printed beside every dollar figure")),
    };
    Ok(Price {
        input,
        output,
        source,
    })
}
