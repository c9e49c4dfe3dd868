//! The text elements of a drawn chart, read back from its SVG, for tests that check where
//! labels stand (inside the picture, clear of each other and of axis titles).

/// One `<text>`: its anchor point's `x` (px), its `text-anchor` (`start` when not given)
/// and its text, trimmed.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Text {
    pub x: i32,
    pub anchor: String,
    pub text: String,
}

impl Text {
    /// Left and right edges in px for a text `width` px wide.
    pub(super) fn span(&self, width: i32) -> (i32, i32) {
        let start = match self.anchor.as_str() {
            "end" => self.x - width,
            "middle" => self.x - width / 2,
            _ => self.x,
        };
        (start, start + width)
    }
}

/// Every `<text>` of `svg` with an `x`, in order.
pub(super) fn texts(svg: &str) -> Vec<Text> {
    let attribute = |tag: &str, name: &str| -> Option<String> {
        let rest = tag.split(&format!(" {name}=\"")).nth(1)?;
        Some(rest.split('"').next()?.to_string())
    };
    svg.split("<text")
        .skip(1)
        .filter_map(|piece| {
            let (tag, rest) = piece.split_once('>')?;
            Some(Text {
                x: attribute(tag, "x")?.parse().ok()?,
                anchor: attribute(tag, "text-anchor").unwrap_or_else(|| "start".into()),
                text: rest.split('<').next()?.trim().to_string(),
            })
        })
        .collect()
}
