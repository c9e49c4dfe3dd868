//! The schedule search's per-session figures, kept out of memory until they are summed.
//!
//! The search prices every session under about a hundred schedules (three figures each:
//! 3.5 KB a session), and sums them in session-name order, as the history sums, while the
//! files come in path order. Held until sorted, a million sessions would take 3.5 GB; so
//! each session's figures go, as they are priced, to an unnamed spill file on the file
//! system of `--out` (`crate::import::spill`, the import's: nothing appears in any folder
//! and nothing is left behind, even by a killed run), and only the session's name and
//! where its figures are stay in memory. Where no spill file can be made (a file system
//! without `O_TMPFILE`), the figures are held, as before.
//!
//! The encoding is this module's own, read only by the process that wrote it: the number
//! of edits + 1 (u32), then each cost, each dollar figure (a flag byte, then the value)
//! and each removed context, as little-endian f64.

use super::SessionCosts;
use crate::error::Error;
use crate::import::spill::Spill;
use std::io;
use std::path::Path;

/// Where one session's figures are in the spill.
pub(super) struct Entry {
    name: Box<str>,
    offset: u64,
    len: u32,
}

/// Sessions' figures, in the order they came; [`Ordered::in_name_order`] reads them back
/// in session-name order (sessions of one name in the order they came, as a stable sort
/// leaves them).
pub(super) enum Ordered {
    Spilled { spill: Spill, index: Vec<Entry> },
    Held(Vec<(String, SessionCosts)>),
}

impl Ordered {
    /// A spill beside `out` where one can be made, else figures held in memory.
    pub(super) fn near(out: &Path) -> Ordered {
        match Spill::create(out) {
            Some(spill) => Ordered::Spilled {
                spill,
                index: Vec::new(),
            },
            None => Ordered::Held(Vec::new()),
        }
    }

    /// Figures held in memory (a search over sessions already in memory).
    pub(super) fn held() -> Ordered {
        Ordered::Held(Vec::new())
    }

    /// Sessions added.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        match self {
            Ordered::Spilled { index, .. } => index.len(),
            Ordered::Held(held) => held.len(),
        }
    }

    /// Adds the session `name`'s figures.
    ///
    /// Errors: [`Error::Write`] naming the spill's folder when the write failed.
    pub(super) fn push(&mut self, name: String, costs: SessionCosts) -> Result<(), Error> {
        match self {
            Ordered::Spilled { spill, index } => {
                let bytes = encode(&costs);
                let Some(offset) = spill.put_bytes(&bytes) else {
                    return spill.check();
                };
                let len = u32::try_from(bytes.len()).map_err(|_| {
                    spill.corrupt(io::Error::other("a session's figures over 4 GiB"))
                })?;
                index.push(Entry {
                    name: name.into_boxed_str(),
                    offset,
                    len,
                });
                Ok(())
            }
            Ordered::Held(held) => {
                held.push((name, costs));
                Ok(())
            }
        }
    }

    /// Calls `each` with every session's figures in session-name order.
    ///
    /// Errors: [`Error::Unreadable`] when the spill cannot be read back; `each`'s.
    pub(super) fn in_name_order(
        self,
        mut each: impl FnMut(&str, &SessionCosts),
    ) -> Result<(), Error> {
        match self {
            Ordered::Spilled { spill, mut index } => {
                spill.check()?;
                index.sort_by(|a, b| a.name.cmp(&b.name));
                for entry in &index {
                    let bytes = spill.bytes(entry.offset, entry.len as usize)?;
                    each(&entry.name, &decode(&bytes).map_err(|e| spill.corrupt(e))?);
                }
                Ok(())
            }
            Ordered::Held(mut held) => {
                held.sort_by(|a, b| a.0.cmp(&b.0));
                held.iter().for_each(|(name, c)| each(name, c));
                Ok(())
            }
        }
    }
}

fn encode(c: &SessionCosts) -> Vec<u8> {
    let n = c.cost.len();
    let mut out = Vec::with_capacity(4 + n * 8 + n * 9 + c.removed.len() * 8);
    out.extend_from_slice(&(n as u32).to_le_bytes());
    for x in &c.cost {
        out.extend_from_slice(&x.to_le_bytes());
    }
    for d in &c.dollars {
        out.push(u8::from(d.is_some()));
        out.extend_from_slice(&d.unwrap_or(0.0).to_le_bytes());
    }
    for x in &c.removed {
        out.extend_from_slice(&x.to_le_bytes());
    }
    out
}

fn decode(bytes: &[u8]) -> io::Result<SessionCosts> {
    let bad = || io::Error::new(io::ErrorKind::InvalidData, "a session's figures cut short");
    let (head, mut rest) = bytes.split_first_chunk::<4>().ok_or_else(bad)?;
    let n = u32::from_le_bytes(*head) as usize;
    let f64s = |k: usize, rest: &mut &[u8]| -> io::Result<Vec<f64>> {
        (0..k)
            .map(|_| {
                let (x, r) = rest.split_first_chunk::<8>().ok_or_else(bad)?;
                *rest = r;
                Ok(f64::from_le_bytes(*x))
            })
            .collect()
    };
    let cost = f64s(n, &mut rest)?;
    let mut dollars = Vec::with_capacity(n);
    for _ in 0..n {
        let (flag, r) = rest.split_first().ok_or_else(bad)?;
        let (x, r) = r.split_first_chunk::<8>().ok_or_else(bad)?;
        rest = r;
        dollars.push((*flag == 1).then(|| f64::from_le_bytes(*x)));
    }
    let removed = f64s(n.saturating_sub(1), &mut rest)?;
    if !rest.is_empty() {
        return Err(bad());
    }
    Ok(SessionCosts {
        cost,
        dollars,
        removed,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn costs(k: f64) -> SessionCosts {
        SessionCosts {
            cost: vec![k, k - 0.5, f64::MIN_POSITIVE],
            dollars: vec![Some(k / 3.0), None, Some(-0.0)],
            removed: vec![1e300, k],
        }
    }

    /// Spilled or held, the figures come back bit for bit, in name order, sessions of
    /// one name in the order they came.
    #[test]
    fn figures_come_back_whole_in_name_order() {
        let dir = tempfile::tempdir().unwrap();
        for mut store in [Ordered::near(dir.path()), Ordered::held()] {
            for (name, k) in [("b", 2.0), ("a", 1.0), ("c", 3.0), ("a", 4.0)] {
                store.push(name.into(), costs(k)).unwrap();
            }
            assert_eq!(store.len(), 4);
            let mut seen = Vec::new();
            store
                .in_name_order(|_, c| {
                    seen.push((c.cost.clone(), c.dollars.clone(), c.removed.clone()))
                })
                .unwrap();
            let want: Vec<_> = [1.0, 4.0, 2.0, 3.0]
                .map(|k| {
                    let c = costs(k);
                    (c.cost, c.dollars, c.removed)
                })
                .into();
            assert_eq!(format!("{seen:?}"), format!("{want:?}"));
        }
        assert!(matches!(Ordered::near(dir.path()), Ordered::Spilled { .. }));
    }

    #[test]
    fn a_record_cut_short_is_refused() {
        let bytes = encode(&costs(1.0));
        for cut in [0, 3, 4, 11, bytes.len() - 1] {
            assert!(decode(&bytes[..cut]).is_err(), "cut at {cut}");
        }
        assert!(decode(&[bytes.as_slice(), &[0]].concat()).is_err());
    }
}
