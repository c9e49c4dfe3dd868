//! Numbers for people: thousands separators and short forms. Only what is shown is rounded.

/// `1234567.891` with 1 decimal → `1,234,567.9`.
pub fn grouped(x: f64, decimals: usize) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    let text = format!("{:.*}", decimals, x.abs());
    let (whole, fraction) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text.as_str(), None),
    };
    let mut out = String::with_capacity(text.len() + whole.len() / 3 + 1);
    let negative = x < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0');
    if negative {
        out.push('-');
    }
    for (i, c) in whole.chars().enumerate() {
        if i > 0 && (whole.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = fraction {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// Short form for axes and labels: `950`, `30k`, `1.2M`, `3.4G`.
pub fn short(x: f64) -> String {
    let a = x.abs();
    let (value, suffix) = if a >= 1e9 {
        (x / 1e9, "G")
    } else if a >= 1e6 {
        (x / 1e6, "M")
    } else if a >= 1e3 {
        (x / 1e3, "k")
    } else {
        (x, "")
    };
    let digits = if value.abs() >= 100.0 || value.fract().abs() < 0.05 {
        0
    } else {
        1
    };
    let mut text = format!("{value:.digits$}");
    if text.contains('.') {
        text = text.trim_end_matches('0').trim_end_matches('.').to_string();
    }
    format!("{text}{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(117_878.787_878, 1), "117,878.8");
        assert_eq!(grouped(30_000.0, 0), "30,000");
        assert_eq!(grouped(-1234.5, 1), "-1,234.5");
        assert_eq!(grouped(-0.01, 1), "0.0");
        assert_eq!(grouped(999.0, 0), "999");
    }

    #[test]
    fn short_forms() {
        assert_eq!(short(30_000.0), "30k");
        assert_eq!(short(1_234_567.0), "1.2M");
        assert_eq!(short(950.0), "950");
        assert_eq!(short(2.5), "2.5");
        assert_eq!(short(133_333.3), "133k");
    }
}
