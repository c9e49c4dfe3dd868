//! A call's id as [`super::Calls`] hands it out: borrowed text, or a trace's call number
//! written out in place, so ids that are numbers take no memory per call.

use std::fmt;
use std::ops::Deref;

/// A call's id; derefs to its text.
#[derive(Clone, Copy)]
pub struct Id<'a>(Repr<'a>);

#[derive(Clone, Copy)]
enum Repr<'a> {
    Text(&'a str),
    /// A number's decimal digits, the last `len` of `digits`.
    Number {
        digits: [u8; 20],
        len: u8,
    },
}

impl<'a> Id<'a> {
    /// The id `text`.
    pub fn text(text: &'a str) -> Id<'a> {
        Id(Repr::Text(text))
    }

    /// The id that is `n` in decimal.
    pub fn number(n: u64) -> Id<'a> {
        let mut digits = [0u8; 20];
        let mut buf = itoa::Buffer::new();
        let s = buf.format(n).as_bytes();
        digits[20 - s.len()..].copy_from_slice(s);
        Id(Repr::Number {
            digits,
            len: s.len() as u8,
        })
    }
}

impl Deref for Id<'_> {
    type Target = str;

    fn deref(&self) -> &str {
        match &self.0 {
            Repr::Text(t) => t,
            // Only ASCII digits are ever written there.
            Repr::Number { digits, len } => {
                std::str::from_utf8(&digits[20 - *len as usize..]).unwrap_or_default()
            }
        }
    }
}

impl AsRef<str> for Id<'_> {
    fn as_ref(&self) -> &str {
        self
    }
}

impl fmt::Display for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self)
    }
}

impl fmt::Debug for Id<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&**self, f)
    }
}

impl PartialEq for Id<'_> {
    fn eq(&self, other: &Id<'_>) -> bool {
        **self == **other
    }
}

impl PartialEq<str> for Id<'_> {
    fn eq(&self, other: &str) -> bool {
        &**self == other
    }
}

impl PartialEq<&str> for Id<'_> {
    fn eq(&self, other: &&str) -> bool {
        &**self == *other
    }
}
