//! `[cache]` (the prompt-cache prices, or a preset) and `[price]` (dollars).

use super::Checker;
use crate::cache::{models, presets};
use crate::error::Located;
use crate::scenario::file::{CacheFile, PriceFile};
use crate::scenario::{CacheSpec, Price};
use toml::Spanned;

pub(super) fn cache(ck: &Checker, c: &Spanned<CacheFile>) -> Result<CacheSpec, Located> {
    let span = Some(c.span());
    let c = c.get_ref();
    // A preset by name, or by a log's model id (`claude-sonnet-4-5-20250929`, with `-1h`
    // for its 1-hour cache).
    let preset = match &c.preset {
        Some(p) => Some(
            preset_named(p.get_ref())
                .map_err(|message| ck.err(Some(p.span()), "[cache] preset", message))?,
        ),
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
    if let Some(v) = &c.read {
        super::slips::multiplier(ck, v.span(), "[cache] read", "read", read, 1.0);
    }
    if let Some(v) = &c.write {
        super::slips::multiplier(
            ck,
            v.span(),
            "[cache] write",
            "write",
            write,
            super::slips::MAX_WRITE,
        );
    }
    if write < read {
        let at = c.write.as_ref().map(|w| w.span()).or(span);
        return Err(ck.err(at, "[cache] write", format!("write = {write} is below read = {read}: writing to the cache never costs less than reading from it")));
    }
    let share = |v: &Option<Spanned<f64>>, key: &str, what: &str| -> Result<f64, Located> {
        match v {
            Some(v) => {
                let x = *v.get_ref();
                if (0.0..=1.0).contains(&x) {
                    Ok(x)
                } else {
                    Err(ck.err(
                        Some(v.span()),
                        &format!("[cache] {key}"),
                        format!("{x} is not a share: give a number from 0 to 1 ({what})"),
                    ))
                }
            }
            None => Ok(0.0),
        }
    };
    let source = |v: &Option<Spanned<String>>, key: &str| {
        v.as_ref()
            .map(|s| ck.label(s, &format!("[cache] {key}")).map(str::to_string))
            .transpose()
    };
    let miss_share = share(
        &c.miss_share,
        "miss_share",
        "0: the cache always reads what it holds; 1: every prefix is written again",
    )?;
    let miss_share_source = source(&c.miss_share_source, "miss_share_source")?;
    let warm_share = share(
        &c.warm_share,
        "warm_share",
        "the share of the base tokens already cached at the first request",
    )?;
    let warm_share_source = source(&c.warm_share_source, "warm_share_source")?;
    let output = match &c.output {
        Some(v) => {
            let r = ck.positive(v, "[cache] output")?;
            super::slips::output_ratio(ck, v.span(), r);
            Some(r)
        }
        None => None,
    };
    // Where a fitted lifetime or minimum came from: checked like every label; the value's
    // own label in reports is the preset's "with ttl_s from the scenario file".
    source(&c.ttl_s_source, "ttl_s_source")?;
    source(&c.min_tokens_source, "min_tokens_source")?;
    Ok(CacheSpec {
        output,
        model: preset.and_then(|p| preset_model(&p.name)),
        miss_share,
        miss_share_source,
        warm_share,
        warm_share_source,
        read,
        write,
        ttl_s: pick(&c.ttl_s, "ttl_s", preset.map(|p| p.ttl_s), false)?,
        min_tokens: pick(
            &c.min_tokens,
            "min_tokens",
            preset.map(|p| p.min_tokens),
            true,
        )?,
        preset: preset.map(|p| {
            // Keys given beside the preset are the scenario's: the label says which.
            let given: Vec<&str> = [
                ("read", c.read.is_some()),
                ("write", c.write.is_some()),
                ("ttl_s", c.ttl_s.is_some()),
                ("min_tokens", c.min_tokens.is_some()),
            ]
            .into_iter()
            .filter_map(|(key, given)| given.then_some(key))
            .collect();
            match given.as_slice() {
                [] => format!("{} ({})", p.name, p.source),
                keys => format!(
                    "{} ({}), with {} from the scenario file",
                    p.name,
                    p.source,
                    crate::cache::models::in_words(keys)
                ),
            }
        }),
    })
}

/// The price data's model a per-model preset is of (`claude-sonnet-4-5-1h` →
/// `claude-sonnet-4-5`); None for a generic preset.
fn preset_model(preset: &str) -> Option<String> {
    let bare = preset.strip_suffix("-1h").unwrap_or(preset);
    models::all()
        .find(|m| m.name == bare)
        .map(|m| m.name.clone())
}

/// Presets named in the advice for an unknown one; a unit test checks that each exists.
const PRESET_EXAMPLES: [&str; 3] = ["claude-sonnet-4-5", "claude-sonnet-4-5-1h", "gpt-5-codex"];

/// The preset `name` names: a preset, a model of the price data or a log's model id, each
/// with `-1h` for the 1-hour cache where the data has one. Else why not, in words that name
/// only presets that exist.
fn preset_named(name: &str) -> Result<&'static presets::Preset, String> {
    if let Some(p) =
        presets::find(name).or_else(|| presets::for_model(name, false).and_then(presets::find))
    {
        return Ok(p);
    }
    if let Some(base) = name.strip_suffix("-1h")
        && let Some(m) = models::find(base)
    {
        return match presets::for_model(base, true) {
            Some(p) if p.ends_with("-1h") => presets::find(p).ok_or_else(String::new),
            Some(five) => Err(format!(
                "\"{}\" is not a preset: the {} has no 1-hour cache terms for {}; use preset = \"{five}\" (its 5-minute cache), or give read, write, ttl_s and min_tokens yourself",
                super::shown(name),
                models::described(),
                m.name
            )),
            None => Err(format!(
                "\"{}\" is not a preset: the {} has no cache terms for {} ({} missing); give read, write, ttl_s and min_tokens yourself",
                super::shown(name),
                models::described(),
                m.name,
                models::in_words(&m.missing(false))
            )),
        };
    }
    let nearest = super::nearest(name, presets::names().into_iter());
    Err(format!(
        "unknown preset \"{}\"; {nearest}give one of {}, or a model name or a log's model id from the {} (e.g. {}, {} for its 1-hour cache, {})",
        super::shown(name),
        presets::generic_names().join(", "),
        models::described(),
        PRESET_EXAMPLES[0],
        PRESET_EXAMPLES[1],
        PRESET_EXAMPLES[2],
    ))
}

pub(super) fn price(ck: &Checker, p: &Spanned<PriceFile>) -> Result<Price, Located> {
    let span = Some(p.span());
    let p = p.get_ref();
    // `model = "claude-sonnet-4-5"` fills the prices and their source from the model data;
    // keys given beside it override.
    let model = match &p.model {
        Some(m) => Some(models::find(m.get_ref()).ok_or_else(|| {
            let nearest = super::nearest(m.get_ref(), models::all().map(|k| k.name.as_str()));
            ck.err(
                Some(m.span()),
                "[price] model",
                format!(
                    "no prices for model \"{}\" in the {}; {nearest}name a model or a log's model id (claude-sonnet-4-5, gpt-5-codex, …), or give input, output and source yourself (or the model's prices in a file named by the SIMULATE_PRICES environment variable)",
                    super::shown(m.get_ref()),
                    models::described()
                ),
            )
        })?),
        None => None,
    };
    let input = match (&p.input, model) {
        (Some(v), _) => ck.positive(v, "[price] input")?,
        (None, Some(m)) => m.input,
        (None, None) => {
            return Err(ck.err(
                span,
                "[price] input",
                "missing key `input`: USD per million input tokens (or name a model, e.g. model = \"claude-sonnet-4-5\")",
            ));
        }
    };
    let output = match (&p.output, model) {
        (Some(v), _) => Some(ck.positive(v, "[price] output")?),
        (None, Some(m)) => Some(m.output),
        (None, None) => None,
    };
    // A blank source is no source; any other is text like a label (no control characters:
    // it is printed beside every dollar figure).
    let given = match &p.source {
        Some(s) if !s.get_ref().trim().is_empty() => Some(ck.label(s, "[price] source")?),
        _ => None,
    };
    let source = match (given, model) {
        (Some(s), _) => s.to_string(),
        (None, Some(m)) => {
            // A price given beside the model is the scenario's, not the list price: say so.
            let list = format!("{} list price: {}", m.name, m.source);
            match (p.input.is_some(), p.output.is_some()) {
                (false, false) => list,
                (true, false) => format!("input from the scenario file; output: {list}"),
                (false, true) => format!("output from the scenario file; input: {list}"),
                (true, true) => "input and output from the scenario file".to_string(),
            }
        }
        (None, None) => return Err(ck.err(span, "[price] source", "missing key `source`: where the prices come from (e.g. \"list price, 2026-11\"); it is printed beside every dollar figure")),
    };
    Ok(Price {
        input,
        output,
        source,
        model: model.map(|m| m.name.clone()),
    })
}

/// `[cache] output` assumes what a `[price]` with an output price already says: two
/// figures for one ratio would price output one way in cost and another in dollars.
pub(super) fn one_output_price(
    ck: &Checker,
    c: Option<&Spanned<CacheFile>>,
    price: Option<&Price>,
) -> Result<(), Located> {
    let (Some(v), Some(p)) = (c.and_then(|c| c.get_ref().output.as_ref()), price) else {
        return Ok(());
    };
    let Some(output) = p.output else {
        return Ok(());
    };
    Err(ck.err(
        Some(v.span()),
        "[cache] output",
        format!(
            "output = {} assumes the price of an output token, but [price] gives it (output {} ÷ input {} = {} input tokens, {}): remove one of the two",
            super::show(*v.get_ref()),
            super::show(output),
            super::show(p.input),
            super::show(output / p.input),
            p.source
        ),
    ))
}
