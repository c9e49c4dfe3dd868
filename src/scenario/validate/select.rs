//! `select = {…}`: which calls a rule edit, or a model edit, applies to (docs/model.md §7).

use super::Checker;
use crate::error::Located;
use crate::scenario::file::SelectFile;
use crate::scenario::{LabelGlob, Selector};
use toml::Spanned;

/// `select = {…}`: at least one key; names as given, the label a valid glob.
pub(super) fn selector(
    ck: &Checker,
    s: &Spanned<SelectFile>,
    place: &str,
) -> Result<Selector, Located> {
    let span = Some(s.span());
    let s = s.get_ref();
    let names = |v: &Option<Spanned<crate::scenario::file::OneOrMany>>, key: &str| {
        v.as_ref()
            .map(|v| {
                let list = v.get_ref().clone().into_vec();
                if list.is_empty() {
                    Err(ck.err(
                        Some(v.span()),
                        &format!("{place}.{key}"),
                        format!(
                            "{key} = [] selects nothing: name at least one, or leave {key} out"
                        ),
                    ))
                } else {
                    Ok(list)
                }
            })
            .transpose()
    };
    let label = match &s.label {
        Some(l) => {
            let text = ck.label(l, &format!("{place}.label"))?;
            let pattern = glob::Pattern::new(text).map_err(|e| {
                ck.err(
                    Some(l.span()),
                    &format!("{place}.label"),
                    format!("\"{}\" is not a valid glob: {}", super::shown(text), e.msg),
                )
            })?;
            Some(LabelGlob {
                text: text.to_string(),
                pattern,
            })
        }
        None => None,
    };
    let selector = Selector {
        tools: names(&s.tool, "tool")?,
        kinds: names(&s.kind, "kind")?,
        label,
        min_bytes: s
            .min_bytes
            .as_ref()
            .map(|v| ck.non_negative(v, &format!("{place}.min_bytes")))
            .transpose()?,
    };
    if selector == Selector::default() {
        return Err(ck.err(
            span,
            place,
            "select = {} selects every call: give at least one of tool, kind, label or min_bytes",
        ));
    }
    Ok(selector)
}
