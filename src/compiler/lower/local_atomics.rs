//! Which `__local` data is declared atomic: only what a kernel, or a function it calls,
//! applies an atomic built-in to (where the pointers may point is found by `points_to.rs`).
//! The rest stays plain, so that its loads and stores are ordinary ones (naga loads and
//! stores an atomic variable with atomic instructions).

use super::points_to::{Object, PointsTo};
use super::types::LocalAtomic;
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
    /// An atomic is applied to a `__local` float (`atomic_xchg`): the floats of the atomic
    /// data are atomic words too.
    floats: bool,
}

impl LocalAtomics {
    pub fn of(points_to: &PointsTo) -> Self {
        let mut found = LocalAtomics { floats: points_to.float_atomics(), ..LocalAtomics::default() };
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

    /// Which scalars of `__local` variable `id` are atomic; `int64`: the device has 64-bit
    /// atomics (without them no 64-bit integer is atomic, and no atomic can reach one).
    pub fn var(&self, id: u32, int64: bool) -> LocalAtomic {
        self.scalars(self.all || self.vars.contains(&id), int64)
    }

    /// Which scalars of the data of `__local` pointer arguments are atomic.
    pub fn args(&self, int64: bool) -> LocalAtomic {
        self.scalars(self.all || self.args, int64)
    }

    fn scalars(&self, atomic: bool, int64: bool) -> LocalAtomic {
        LocalAtomic { int32: atomic, int64: atomic && int64, float: atomic && self.floats }
    }
}
