//! A run as edited: the sequence of calls an edit leaves, stored compactly.
//!
//! A million-call trace is compared under several edits at once, so an edited run does not
//! copy the baseline's calls: each slot says which baseline call it stands for (its id,
//! kind, segment and gap come from there) and holds only what an edit can change.

use crate::scenario::Call;

/// One call of an edited run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Slot {
    /// Index of the baseline call whose id, kind, segment, gap and pinning this call keeps.
    pub origin: u32,
    /// Label: below the baseline's call count, that call's label; above, a merged label
    /// in [`Run::merged_labels`].
    pub label: u32,
    /// Bytes of result, converted with ρ.
    pub bytes: f64,
    /// Measured tokens of result.
    pub tokens: f64,
    /// Tokens the model wrote at this call.
    pub output_tokens: f64,
}

impl Slot {
    /// What joins the context after this call, in est. tokens at `bytes_per_token`.
    #[inline]
    pub fn size(&self, bytes_per_token: f64) -> f64 {
        self.tokens + self.bytes / bytes_per_token + self.output_tokens
    }
}

/// The sequence of calls of the baseline or of an edited run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Run {
    pub slots: Vec<Slot>,
    /// Labels made by merges.
    pub merged_labels: Vec<Box<str>>,
}

impl Run {
    /// The baseline run: every call as given.
    pub fn baseline(calls: &[Call]) -> Run {
        let slots = calls
            .iter()
            .enumerate()
            .map(|(i, c)| Slot {
                origin: i as u32,
                label: i as u32,
                bytes: c.bytes,
                tokens: c.tokens,
                output_tokens: c.output_tokens,
            })
            .collect();
        Run {
            slots,
            merged_labels: Vec::new(),
        }
    }

    /// Number of calls.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Whether the run has no calls left.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// The label of `slot`, looking up baseline labels in `calls`.
    pub fn label<'a>(&'a self, calls: &'a [Call], slot: &Slot) -> &'a str {
        let i = slot.label as usize;
        match calls.get(i) {
            Some(call) => &call.label,
            None => &self.merged_labels[i - calls.len()],
        }
    }

    /// Adds a merged label and returns its index for [`Slot::label`].
    pub fn push_label(&mut self, calls: &[Call], label: String) -> u32 {
        self.merged_labels.push(label.into_boxed_str());
        (calls.len() + self.merged_labels.len() - 1) as u32
    }
}
