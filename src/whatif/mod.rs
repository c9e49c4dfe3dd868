//! What-if edits that change what a run is priced and based on, not its calls
//! (docs/model.md §9): `cache` (other prompt-cache terms, per trace kind), `model` (another
//! model's prices and cache terms, and its tokenizer's factor), and `base = { drop | defer }`
//! over the base's named parts (`[[base.part]]`).
//!
//! `crate::edit` hands each such step to a [`Steps`], which keeps what the steps leave
//! beside the run: a [`WhatIf`]. The subject carries it (`crate::evaluate::Subject`), so
//! everything that prices or walks a run takes the subject's own cache terms, prices and
//! ρ, not the scenario's. None of these edits changes the sequence of calls; a deferred part
//! adds one request (the tool search) before the first call that uses its tools, at a
//! position fixed by the sequence, so the reread total stays affine in B and 1/ρ.

mod parts;
mod pricing;

pub use parts::PartUse;

use crate::pricing::Pricing;
use crate::run::EditError;
use crate::run::Run;
use crate::scenario::Calls;
use crate::scenario::{
    BaseChange, BasePart, CacheChange, CacheSpec, ModelChange, PartChange, Price, Scenario,
    TraceKind,
};
use crate::timeline::AddedRequest;

/// What the scenario says that the what-if steps need.
#[derive(Debug, Clone, Copy)]
pub struct Scope<'a> {
    /// The scenario's `[cache]`.
    pub cache: Option<&'a CacheSpec>,
    /// The scenario's `[price]`.
    pub price: Option<&'a Price>,
    /// The models the scenario's calls are priced at.
    pub pricing: &'a Pricing,
    /// The scenario's calls, for a model edit's selector.
    pub calls: &'a Calls,
    /// Main or subagent, from `[import] trace`.
    pub trace: TraceKind,
    /// `[[base.part]]`.
    pub parts: &'a [BasePart],
    /// The input price (USD per million tokens) the scenario's cost is counted in: its
    /// `[price]`, else the price data's for its log's model. A model edit's cost is
    /// converted into these input-token equivalents.
    pub input_price: Option<f64>,
    /// `[import]`: with the calls' measured usage, which provider's edits apply
    /// (`crate::scenario::provider`).
    pub import: Option<&'a crate::scenario::ImportInfo>,
}

impl<'a> Scope<'a> {
    /// The scope of `s`, whose calls are priced by `pricing`.
    pub fn of(s: &'a Scenario, pricing: &'a Pricing) -> Scope<'a> {
        Scope {
            cache: s.cache.as_ref(),
            price: s.price.as_ref(),
            pricing,
            calls: &s.calls,
            trace: TraceKind::of(s.import.as_ref()),
            parts: &s.base_parts,
            input_price: pricing.input_price,
            import: s.import.as_ref(),
        }
    }
}

/// What the what-if steps of an edit leave beside its run. The default changes nothing.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct WhatIf {
    /// The models the run's calls are priced at, after a `cache` or `model` step; None:
    /// the scenario's.
    pub pricing: Option<Pricing>,
    /// The model a `model` step moved calls to, and whether it moved only those it selects.
    pub priced_as: Option<(String, bool)>,
    /// A `model` step's tokens factor f (None: 1): the run is walked at ρ ÷ f.
    pub tokens_factor: Option<f64>,
    /// The trace kind of a scenario that a `cache` step's `traces` leave out: that step
    /// changed nothing here.
    pub trace_unchanged: Option<TraceKind>,
    /// Every base part dropped or deferred, with the calls that use its tools.
    pub parts: Vec<PartUse>,
    /// The tool-search requests deferred parts add, by position.
    pub searches: Vec<AddedRequest>,
    /// Things to know that are not errors and do not leave the step without effect (a
    /// model edit without a price to compare with): reported as warnings.
    pub remarks: Vec<String>,
}

impl WhatIf {
    /// f: the same bytes give f times the tokens (1 without a model edit).
    pub fn tokens_factor(&self) -> f64 {
        self.tokens_factor.unwrap_or(1.0)
    }

    /// Whether nothing here changes the run.
    pub fn is_none(&self) -> bool {
        *self == WhatIf::default()
    }

    /// Where tokens join the context between calls: before the call at each position, the
    /// definitions its tool search loads (for a clearing's context trigger).
    pub fn joins(&self) -> Vec<(usize, f64)> {
        self.searches
            .iter()
            .map(|r| (r.before, r.joins_tokens))
            .collect()
    }
}

/// The what-if steps of one edit, applied in order.
#[derive(Debug)]
pub struct Steps<'a> {
    scope: &'a Scope<'a>,
    whatif: WhatIf,
    /// Steps that change nothing here, as rules that select nothing are noted (a part the
    /// scenario does not have).
    notes: Vec<String>,
}

impl<'a> Steps<'a> {
    /// No step yet.
    pub fn new(scope: &'a Scope<'a>) -> Steps<'a> {
        Steps {
            scope,
            whatif: WhatIf::default(),
            notes: Vec::new(),
        }
    }

    /// The scope the steps apply in.
    pub fn scope(&self) -> &Scope<'a> {
        self.scope
    }

    /// A `cache` step.
    pub fn cache(&mut self, change: &CacheChange) -> Result<(), EditError> {
        pricing::cache(self.scope, &mut self.whatif, change, &mut self.notes)
    }

    /// A `model` step, moving the calls `selected` (by baseline call; None: every call).
    pub fn model(
        &mut self,
        change: &ModelChange,
        selected: Option<&[bool]>,
    ) -> Result<(), EditError> {
        pricing::model(self.scope, &mut self.whatif, change, selected)
    }

    /// A `base = { drop | defer }` step: the change to the base tokens it makes.
    pub fn part(&mut self, change: &PartChange) -> Result<BaseChange, EditError> {
        parts::step(self.scope, &mut self.whatif, change, &mut self.notes)
    }

    /// What the steps leave beside `run`, the run as every step of the edit left it: the
    /// calls that use each part's tools, and the tool searches, placed on it.
    pub fn finish(mut self, calls: &Calls, run: &mut Run) -> (WhatIf, Vec<String>) {
        parts::place(self.scope, &mut self.whatif, calls, run);
        (self.whatif, self.notes)
    }
}
