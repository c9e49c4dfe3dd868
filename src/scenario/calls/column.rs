//! Columns of a scenario's calls, each stored as narrowly as its values allow, exactly.
//!
//! A 10-million-call trace has a few columns that vary (its labels and sizes) and many
//! that do not (kind, segment, tokens, gap: the defaults of a trace without those
//! columns). A column holds one value until a second one comes, then whole numbers as
//! `u32` until one does not fit, then `f64` (or `u64`): every read gives back, bit for
//! bit, the value pushed.

/// A column of `f64` values: one value for all, whole numbers as `u32`, or any `f64`.
#[derive(Debug, Clone)]
pub(super) enum Reals {
    Const(f64),
    Whole(Vec<u32>),
    Any(Vec<f64>),
}

/// `x` as a `u32`, when it is one exactly (`-0.0` is not: its bits would not come back).
#[inline]
fn whole(x: f64) -> Option<u32> {
    let w = x as u32;
    (f64::from(w).to_bits() == x.to_bits()).then_some(w)
}

impl Reals {
    /// Appends `x` as the value of position `len` (the column's length before the push).
    #[inline]
    pub(super) fn push(&mut self, len: usize, x: f64) {
        match self {
            // The column's two steady states first: one value, or whole numbers.
            Reals::Const(c) if len > 0 && c.to_bits() == x.to_bits() => {}
            Reals::Whole(v) if let Some(w) = whole(x) => v.push(w),
            _ => self.push_other(len, x),
        }
    }

    /// [`Reals::push`] where the column's representation may change.
    #[cold]
    fn push_other(&mut self, len: usize, x: f64) {
        match self {
            Reals::Const(c) if len == 0 => *c = x,
            Reals::Const(c) if c.to_bits() == x.to_bits() => {}
            Reals::Const(c) => {
                let c = *c;
                *self = match (whole(c), whole(x)) {
                    (Some(cw), Some(xw)) => {
                        let mut v = vec![cw; len];
                        v.push(xw);
                        Reals::Whole(v)
                    }
                    _ => {
                        let mut v = vec![c; len];
                        v.push(x);
                        Reals::Any(v)
                    }
                }
            }
            Reals::Whole(v) => match whole(x) {
                Some(w) => v.push(w),
                None => {
                    let mut any: Vec<f64> = Vec::with_capacity(v.capacity().max(len + 1));
                    any.extend(v.iter().map(|&w| f64::from(w)));
                    any.push(x);
                    *self = Reals::Any(any);
                }
            },
            Reals::Any(v) => v.push(x),
        }
    }

    /// The value at `i` (below the length pushed).
    #[inline]
    pub(super) fn get(&self, i: usize) -> f64 {
        match self {
            Reals::Const(c) => *c,
            Reals::Whole(v) => f64::from(v[i]),
            Reals::Any(v) => v[i],
        }
    }

    /// Appends the `n` values of `other` after the `len` of this column: as pushing them
    /// one by one would, by whole vectors where the layouts allow.
    pub(super) fn append(&mut self, len: usize, other: &Reals, n: usize) {
        match (&mut *self, other) {
            _ if n == 0 => {}
            (Reals::Const(a), Reals::Const(b)) if len > 0 && a.to_bits() == b.to_bits() => {}
            (Reals::Whole(v), Reals::Whole(w)) => v.extend_from_slice(w),
            (Reals::Any(v), Reals::Any(w)) => v.extend_from_slice(w),
            (Reals::Any(v), Reals::Whole(w)) => v.extend(w.iter().map(|&x| f64::from(x))),
            _ => (0..n).for_each(|i| self.push(len + i, other.get(i))),
        }
    }

    pub(super) fn shrink(&mut self) {
        match self {
            Reals::Const(_) => {}
            Reals::Whole(v) => v.shrink_to_fit(),
            Reals::Any(v) => v.shrink_to_fit(),
        }
    }
}

/// A column of `u64` values: one for all, `start + i`, `u32`, or any `u64`.
#[derive(Debug, Clone)]
pub(super) enum Wholes {
    Const(u64),
    /// Position `i` holds `start + i` (call numbers 1, 2, 3…).
    Counting(u64),
    Narrow(Vec<u32>),
    Wide(Vec<u64>),
}

impl Wholes {
    /// Appends `x` as the value of position `len` (the column's length before the push).
    #[inline]
    pub(super) fn push(&mut self, len: usize, x: u64) {
        match self {
            Wholes::Const(c) if len > 0 && *c == x => {}
            Wholes::Counting(start) if start.checked_add(len as u64) == Some(x) => {}
            Wholes::Narrow(v) if let Ok(n) = u32::try_from(x) => v.push(n),
            _ => self.push_other(len, x),
        }
    }

    /// [`Wholes::push`] where the column's representation may change.
    #[cold]
    fn push_other(&mut self, len: usize, x: u64) {
        match self {
            Wholes::Const(c) if len == 0 => *c = x,
            Wholes::Const(c) if *c == x => {}
            Wholes::Const(c) if len == 1 && c.checked_add(1) == Some(x) => {
                *self = Wholes::Counting(*c);
            }
            Wholes::Counting(start) if start.checked_add(len as u64) == Some(x) => {}
            Wholes::Narrow(v) => match u32::try_from(x) {
                Ok(n) => v.push(n),
                Err(_) => {
                    let mut wide: Vec<u64> = Vec::with_capacity(v.capacity().max(len + 1));
                    wide.extend(v.iter().map(|&n| u64::from(n)));
                    wide.push(x);
                    *self = Wholes::Wide(wide);
                }
            },
            Wholes::Wide(v) => v.push(x),
            _ => {
                let mut values: Vec<u64> = (0..len).map(|i| self.get(i)).collect();
                values.push(x);
                *self = match values.iter().all(|&n| u32::try_from(n).is_ok()) {
                    true => Wholes::Narrow(values.into_iter().map(|n| n as u32).collect()),
                    false => Wholes::Wide(values),
                };
            }
        }
    }

    /// The value at `i` (below the length pushed).
    #[inline]
    pub(super) fn get(&self, i: usize) -> u64 {
        match self {
            Wholes::Const(c) => *c,
            Wholes::Counting(start) => start + i as u64,
            Wholes::Narrow(v) => u64::from(v[i]),
            Wholes::Wide(v) => v[i],
        }
    }

    /// Appends the `n` values of `other` after the `len` of this column (see
    /// [`Reals::append`]).
    pub(super) fn append(&mut self, len: usize, other: &Wholes, n: usize) {
        match (&mut *self, other) {
            _ if n == 0 => {}
            (Wholes::Const(a), Wholes::Const(b)) if len > 0 && a == b => {}
            (Wholes::Counting(a), Wholes::Counting(b)) if a.checked_add(len as u64) == Some(*b) => {
            }
            (Wholes::Narrow(v), Wholes::Narrow(w)) => v.extend_from_slice(w),
            (Wholes::Wide(v), Wholes::Wide(w)) => v.extend_from_slice(w),
            (Wholes::Wide(v), Wholes::Narrow(w)) => v.extend(w.iter().map(|&x| u64::from(x))),
            _ => (0..n).for_each(|i| self.push(len + i, other.get(i))),
        }
    }

    pub(super) fn shrink(&mut self) {
        match self {
            Wholes::Const(_) | Wholes::Counting(_) => {}
            Wholes::Narrow(v) => v.shrink_to_fit(),
            Wholes::Wide(v) => v.shrink_to_fit(),
        }
    }
}

/// A column of flags: one for all, or one byte each.
#[derive(Debug, Clone)]
pub(super) enum Flags {
    Const(bool),
    Each(Vec<bool>),
}

impl Flags {
    #[inline]
    pub(super) fn push(&mut self, len: usize, x: bool) {
        match self {
            Flags::Const(c) if *c == x => {}
            Flags::Const(c) if len == 0 => *c = x,
            Flags::Const(c) => {
                let mut v = vec![*c; len];
                v.push(x);
                *self = Flags::Each(v);
            }
            Flags::Each(v) => v.push(x),
        }
    }

    /// Appends the `n` values of `other` after the `len` of this column (see
    /// [`Reals::append`]).
    pub(super) fn append(&mut self, len: usize, other: &Flags, n: usize) {
        match (&mut *self, other) {
            _ if n == 0 => {}
            (Flags::Const(a), Flags::Const(b)) if len > 0 && a == b => {}
            (Flags::Each(v), Flags::Each(w)) => v.extend_from_slice(w),
            _ => (0..n).for_each(|i| self.push(len + i, other.get(i))),
        }
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> bool {
        match self {
            Flags::Const(c) => *c,
            Flags::Each(v) => v[i],
        }
    }

    pub(super) fn shrink(&mut self) {
        if let Flags::Each(v) = self {
            v.shrink_to_fit();
        }
    }
}

/// A column of strings in one buffer, each ending where its entry in `ends` says; the
/// strings from some position on may be in a second column, appended whole.
#[derive(Debug, Clone)]
pub(super) struct Strings {
    text: String,
    ends: Wholes,
    /// The strings from position `.0` on, when a column was appended whole (a long
    /// trace's second half): its text is not copied.
    rest: Option<Box<(usize, Strings)>>,
}

impl Default for Strings {
    fn default() -> Self {
        Strings {
            text: String::new(),
            ends: Wholes::Const(0),
            rest: None,
        }
    }
}

/// Text from which an appended column is kept apart rather than copied.
const APART_BYTES: usize = 1 << 20;

impl Strings {
    #[inline]
    pub(super) fn push(&mut self, len: usize, s: &str) {
        if let Some(rest) = &mut self.rest {
            return rest.1.push(len - rest.0, s);
        }
        self.text.push_str(s);
        self.ends.push(len, self.text.len() as u64);
    }

    #[inline]
    pub(super) fn get(&self, i: usize) -> &str {
        if let Some(rest) = &self.rest
            && i >= rest.0
        {
            return rest.1.get(i - rest.0);
        }
        let start = match i {
            0 => 0,
            _ => self.ends.get(i - 1) as usize,
        };
        &self.text[start..self.ends.get(i) as usize]
    }

    /// Appends the `n` strings of `other` after the `len` of this column: a long column
    /// kept apart as it is, a short one copied.
    pub(super) fn append(&mut self, len: usize, other: Strings, n: usize) {
        if let Some(rest) = &mut self.rest {
            return rest.1.append(len - rest.0, other, n);
        }
        if n == 0 {
            return;
        }
        if other.text.len() >= APART_BYTES {
            self.rest = Some(Box::new((len, other)));
            return;
        }
        let offset = self.text.len() as u64;
        self.text.push_str(&other.text);
        for i in 0..n {
            let end = match other.rest.as_ref().filter(|r| i >= r.0) {
                // A short column with a part apart: copy that part's strings one by one.
                Some(_) => {
                    self.text.push_str(other.get(i));
                    self.text.len() as u64
                }
                None => offset + other.ends.get(i),
            };
            self.ends.push(len + i, end);
        }
    }

    pub(super) fn shrink(&mut self) {
        self.text.shrink_to_fit();
        self.ends.shrink();
        if let Some(rest) = &mut self.rest {
            rest.1.shrink();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reals(xs: &[f64]) -> Reals {
        let mut r = Reals::Const(0.0);
        for (i, &x) in xs.iter().enumerate() {
            r.push(i, x);
        }
        r
    }

    fn wholes(xs: &[u64]) -> Wholes {
        let mut w = Wholes::Const(0);
        for (i, &x) in xs.iter().enumerate() {
            w.push(i, x);
        }
        w
    }

    #[test]
    fn reals_give_back_every_value_bit_for_bit() {
        let cases: [&[f64]; 6] = [
            &[3.0, 3.0, 3.0],
            &[1.0, 2.0, 4_294_967_295.0],
            &[1.0, 2.0, 4_294_967_296.0, 5.0],
            &[0.0, -0.0, 0.5],
            &[7.0, 7.0, 0.25, 1e15],
            &[f64::NAN, 1.0],
        ];
        for xs in cases {
            let r = reals(xs);
            for (i, x) in xs.iter().enumerate() {
                assert_eq!(r.get(i).to_bits(), x.to_bits(), "{xs:?} at {i}");
            }
        }
        assert!(matches!(reals(&[3.0, 3.0]), Reals::Const(_)));
        assert!(matches!(reals(&[3.0, 4.0]), Reals::Whole(_)));
        assert!(matches!(reals(&[3.0, 4.5]), Reals::Any(_)));
        assert!(matches!(reals(&[3.0, 4.0, -1.0]), Reals::Any(_)));
    }

    #[test]
    fn wholes_count_narrow_and_widen() {
        let cases: [&[u64]; 6] = [
            &[5, 5, 5],
            &[1, 2, 3, 4],
            &[1, 2, 3, 9],
            &[1, 2, u64::MAX],
            &[u64::MAX, u64::MAX],
            &[u64::MAX - 1, u64::MAX, 0],
        ];
        for xs in cases {
            let w = wholes(xs);
            for (i, x) in xs.iter().enumerate() {
                assert_eq!(w.get(i), *x, "{xs:?} at {i}");
            }
        }
        assert!(matches!(wholes(&[1, 2, 3, 4]), Wholes::Counting(1)));
        assert!(matches!(wholes(&[1, 2, 3, 9]), Wholes::Narrow(_)));
        assert!(matches!(wholes(&[1, 2, 1 << 40]), Wholes::Wide(_)));
    }

    #[test]
    fn strings_appended_apart_or_copied_read_back_and_grow() {
        let long = "x".repeat(APART_BYTES);
        for tail in [vec!["d", "", "é"], vec![long.as_str(), "e"]] {
            let mut s = Strings::default();
            for (i, t) in ["a", "bb", ""].iter().enumerate() {
                s.push(i, t);
            }
            let mut other = Strings::default();
            for (i, t) in tail.iter().enumerate() {
                other.push(i, t);
            }
            s.append(3, other, tail.len());
            s.push(3 + tail.len(), "last");
            let mut want = vec!["a", "bb", ""];
            want.extend(&tail);
            want.push("last");
            let got: Vec<&str> = (0..want.len()).map(|i| s.get(i)).collect();
            assert_eq!(got, want);
            assert_eq!(s.rest.is_some(), tail.len() == 2);
        }
    }

    #[test]
    fn strings_and_flags() {
        let mut s = Strings::default();
        for (i, t) in ["a", "", "héllo", "x"].iter().enumerate() {
            s.push(i, t);
        }
        assert_eq!(
            (0..4).map(|i| s.get(i)).collect::<Vec<_>>(),
            ["a", "", "héllo", "x"]
        );
        let mut f = Flags::Const(false);
        for (i, x) in [true, true, false].into_iter().enumerate() {
            f.push(i, x);
        }
        assert_eq!(
            (0..3).map(|i| f.get(i)).collect::<Vec<_>>(),
            [true, true, false]
        );
    }
}
