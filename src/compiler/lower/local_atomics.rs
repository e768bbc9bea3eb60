//! Which `__local` data is declared atomic: only what a kernel, or a function it calls,
//! applies an atomic built-in to (where the pointers may point is found by `points_to.rs`).
//! The rest stays plain, so that its loads and stores are ordinary ones (naga loads and
//! stores an atomic variable with atomic instructions).

use super::points_to::{Object, PointsTo};
use std::collections::BTreeSet;

/// The `__local` data the atomic built-ins of one kernel reach.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalAtomics {
    /// `__local` variables (by id) an atomic may be applied to.
    vars: BTreeSet<u32>,
    /// An atomic may be applied to a `__local` pointer argument's data.
    args: bool,
    /// An atomic may be applied anywhere: every `__local` integer is atomic.
    all: bool,
}

impl LocalAtomics {
    pub fn of(points_to: &PointsTo) -> Self {
        let mut found = LocalAtomics::default();
        for o in points_to.atomic_objects() {
            match *o {
                Object::Workgroup(id) => {
                    found.vars.insert(id);
                }
                Object::KernelArg(_) => found.args = true,
                Object::Any => found.all = true,
                _ => {}
            }
        }
        found
    }

    /// Whether `__local` variable `id` is atomic.
    pub fn var(&self, id: u32) -> bool {
        self.all || self.vars.contains(&id)
    }

    /// Whether `__local` pointer arguments point to atomic integers.
    pub fn args(&self) -> bool {
        self.all || self.args
    }
}
