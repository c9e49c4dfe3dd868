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

/// `$1,234.50`, `-$0.08`; a non-zero amount under a cent keeps two significant digits
/// (`$0.0042`), so a saving never reads as `$0.00`.
pub fn dollars(x: f64) -> String {
    let decimals = if x != 0.0 && x.abs() < 0.01 {
        ((-x.abs().log10()).floor() as usize + 2).min(8)
    } else {
        2
    };
    // The sign before the symbol, as money is written: -$0.08, not $-0.08.
    if x < 0.0 {
        format!("-${}", grouped(-x, decimals))
    } else {
        format!("${}", grouped(x, decimals))
    }
}

/// A number at the precision a person needs: at most 4 significant digits below 1,000
/// (`2.4749999999999996` → `2.475`, `3.3` → `3.3`), grouped whole numbers above, and never
/// `-0`. For values that are not counts: ρ, multipliers, rates.
pub fn decimal(x: f64) -> String {
    if !x.is_finite() {
        return "—".into();
    }
    if x.abs() >= 1000.0 {
        return grouped(x, if x.fract().abs() < 0.05 { 0 } else { 1 });
    }
    if x == 0.0 {
        return "0".into();
    }
    let digits = (3 - x.abs().log10().floor() as i32).clamp(0, 12) as usize;
    let text = format!("{x:.digits$}");
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".into()
    } else {
        text.to_string()
    }
}

/// A percentage for people: one decimal, `< 0.1 %` for tiny non-zero values.
pub fn percent(x: f64) -> String {
    if x != 0.0 && x.abs() < 0.05 {
        return if x > 0.0 {
            "< 0.1 %".into()
        } else {
            "> −0.1 %".into()
        };
    }
    format!("{} %", grouped(x, 1))
}

/// `1 call`, `2 calls`, `1,234 calls`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{} {many}", grouped(n as f64, 0))
    }
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

/// `+3.2 %`, `-1.0 %`; tiny differences keep two significant digits (`-0.0029 %`).
pub fn signed_percent(x: f64) -> String {
    let sign = if x > 0.0 { "+" } else { "" };
    if x != 0.0 && x.abs() < 0.05 {
        format!("{sign}{} %", decimal(x))
    } else {
        format!("{sign}{}", percent(x))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_under_a_cent_keep_two_significant_digits() {
        assert_eq!(dollars(1234.5), "$1,234.50");
        assert_eq!(dollars(0.0), "$0.00");
        assert_eq!(dollars(0.0042), "$0.0042");
        assert_eq!(dollars(0.04), "$0.04");
        assert_eq!(dollars(-0.00051), "-$0.00051");
        assert_eq!(dollars(-103.28), "-$103.28");
    }

    #[test]
    fn groups_thousands() {
        assert_eq!(grouped(117_878.787_878, 1), "117,878.8");
        assert_eq!(grouped(30_000.0, 0), "30,000");
        assert_eq!(grouped(-1234.5, 1), "-1,234.5");
        assert_eq!(grouped(-0.01, 1), "0.0");
        assert_eq!(grouped(999.0, 0), "999");
    }

    #[test]
    fn decimals_at_the_precision_a_person_needs() {
        assert_eq!(decimal(2.4749999999999996), "2.475");
        assert_eq!(decimal(3.3), "3.3");
        assert_eq!(decimal(4.0), "4");
        assert_eq!(decimal(0.1), "0.1");
        assert_eq!(decimal(1.25), "1.25");
        assert_eq!(decimal(0.000123456), "0.0001235");
        assert_eq!(decimal(30000.0), "30,000");
        assert_eq!(percent(0.01), "< 0.1 %");
        assert_eq!(percent(20.04), "20.0 %");
        assert_eq!(plural(1, "call", "calls"), "1 call");
        assert_eq!(plural(1200, "call", "calls"), "1,200 calls");
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
