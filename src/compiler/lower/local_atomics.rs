//! Which `__local` data is declared atomic: only what a kernel, or a function it calls,
//! applies an atomic built-in to. The rest stays plain, so that its loads and stores are
//! ordinary ones (naga loads and stores an atomic variable with atomic instructions).

use crate::compiler::sema::model::{Builtin, Expr, ExprKind, FuncId, Place, PlaceKind, Program, Space, Type};
use crate::compiler::sema::visit;
use std::collections::BTreeSet;

/// The `__local` data the atomic built-ins of one kernel reach.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LocalAtomics {
    /// `__local` variables (by id) an atomic is applied to.
    vars: BTreeSet<u32>,
    /// An atomic goes through a pointer whose target is not known here (a pointer variable or
    /// parameter): every `__local` integer, pointer arguments included, is atomic.
    all: bool,
}

impl LocalAtomics {
    /// What kernel `kernel` and the functions it calls apply atomics to.
    pub fn of_kernel(program: &Program, kernel: FuncId) -> Self {
        let mut found = LocalAtomics::default();
        let (mut seen, mut todo) = (BTreeSet::from([kernel.0]), vec![kernel]);
        while let Some(id) = todo.pop() {
            let Some(f) = program.function(id) else { continue };
            let mut body = f.body.clone();
            visit::exprs_mut(&mut body, &mut |e| match &e.kind {
                ExprKind::Builtin(Builtin::Atomic(_), args) => {
                    if let Some(p) = args.first().filter(|p| matches!(p.ty, Type::Pointer { space: Space::Local, .. })) {
                        found.reach(p);
                    }
                }
                ExprKind::Call(callee, _) if seen.insert(callee.0) => todo.push(*callee),
                _ => {}
            });
        }
        found
    }

    /// Whether `__local` variable `id` is atomic.
    pub fn var(&self, id: u32) -> bool {
        self.all || self.vars.contains(&id)
    }

    /// Whether `__local` pointer arguments point to atomic integers.
    pub fn args(&self) -> bool {
        self.all
    }

    /// Records where pointer `e` may point.
    fn reach(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::AddrOf(p) | ExprKind::Decay(p) => self.reach_place(p),
            ExprKind::PtrAdd(a, _) | ExprKind::PtrCast(a) | ExprKind::Comma(_, a) => self.reach(a),
            ExprKind::Cond(_, a, b) => {
                self.reach(a);
                self.reach(b);
            }
            _ => self.all = true,
        }
    }

    fn reach_place(&mut self, p: &Place) {
        match &p.kind {
            PlaceKind::Workgroup(id) => {
                self.vars.insert(id.0);
            }
            PlaceKind::Member(base, _) | PlaceKind::Index(base, _) | PlaceKind::Swizzle(base, _) => self.reach_place(base),
            PlaceKind::Deref(e) => self.reach(e),
            PlaceKind::Local(_) | PlaceKind::Constant(_) => self.all = true,
        }
    }
}
