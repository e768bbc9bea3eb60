//! Which `__local` data is declared atomic: only what a kernel, or a function it calls,
//! applies an atomic built-in to. The rest stays plain, so that its loads and stores are
//! ordinary ones (naga loads and stores an atomic variable with atomic instructions).
//!
//! Where a pointer may point is found without regard to order: every pointer variable
//! (parameters included) collects what its initialisations, assignments and call arguments
//! give it, until nothing changes.

use crate::compiler::sema::model::{Builtin, Expr, ExprKind, FuncId, Place, PlaceKind, Program, Scalar, Space, Stmt, Type};
use super::types::LocalAtomic;
use crate::compiler::sema::visit::{self, Node};
use std::collections::{BTreeMap, BTreeSet};

/// Where a pointer may point, as far as `__local` memory goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Target {
    /// `__local` variable `id`.
    Var(u32),
    /// A `__local` pointer argument of the kernel.
    Args,
    /// Anywhere: a pointer read from memory or returned by a function, or held by a pointer
    /// variable whose address is taken.
    Any,
}

/// A pointer variable: its function and its local.
type VarKey = (u32, u32);

/// What a pointer is made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Target(Target),
    Var(VarKey),
}

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
    /// What kernel `kernel` and the functions it calls apply atomics to.
    pub fn of_kernel(program: &Program, kernel: FuncId) -> Self {
        let facts = Facts::collect(program, kernel);
        let points_to = facts.solve();
        let mut found = LocalAtomics { floats: facts.float_atomics, ..LocalAtomics::default() };
        for target in facts.atomics.iter().flat_map(|s| resolve(*s, &points_to)) {
            match target {
                Target::Var(id) => {
                    found.vars.insert(id);
                }
                Target::Args => found.args = true,
                Target::Any => found.all = true,
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

/// What the functions of one kernel do with pointers.
#[derive(Default)]
struct Facts {
    /// A pointer variable may hold what a source gives.
    flows: Vec<(VarKey, Source)>,
    /// What the `__local` pointers that atomics are applied to are made from.
    atomics: Vec<Source>,
    /// Some atomic is applied to a `__local` float.
    float_atomics: bool,
}

impl Facts {
    fn collect(program: &Program, kernel: FuncId) -> Facts {
        let mut facts = Facts::default();
        for p in program.function(kernel).map_or(&[][..], |k| k.params.as_slice()) {
            facts.flows.push(((kernel.0, p.local.0), Source::Target(Target::Args)));
        }
        let (mut seen, mut todo) = (BTreeSet::from([kernel.0]), vec![kernel]);
        while let Some(id) = todo.pop() {
            let Some(f) = program.function(id) else { continue };
            let mut body = f.body.clone();
            visit::walk_mut(&mut body, &mut |n| match n {
                Node::Stmt(Stmt::Decl { local, init: Some(e) }) if e.ty.is_pointer() => facts.flow((id.0, local.0), sources(id.0, e)),
                Node::Expr(e) => {
                    if let ExprKind::Call(callee, _) = &e.kind {
                        if seen.insert(callee.0) {
                            todo.push(*callee);
                        }
                    }
                    facts.expr(program, id.0, e);
                }
                Node::Stmt(_) => {}
            });
        }
        facts
    }

    fn flow(&mut self, var: VarKey, sources: Vec<Source>) {
        self.flows.extend(sources.into_iter().map(|s| (var, s)));
    }

    /// The facts expression `e` of function `f` gives (not those of its operands).
    fn expr(&mut self, program: &Program, f: u32, e: &Expr) {
        match &e.kind {
            ExprKind::Builtin(Builtin::Atomic(_), args) => {
                if let Some(Type::Pointer { pointee, space: Space::Local, .. }) = args.first().map(|p| &p.ty) {
                    self.float_atomics |= matches!(**pointee, Type::Scalar(Scalar::Float));
                    self.atomics.extend(args.first().map_or(Vec::new(), |p| sources(f, p)));
                }
            }
            ExprKind::Assign { place, value, .. } => {
                if let (true, PlaceKind::Local(id)) = (place.ty.is_pointer(), &place.kind) {
                    self.flow((f, id.0), sources(f, value));
                }
            }
            // A pointer variable that a pointer to it may change.
            ExprKind::AddrOf(place) => {
                if let (true, PlaceKind::Local(id)) = (place.ty.is_pointer(), &place.kind) {
                    self.flows.push(((f, id.0), Source::Target(Target::Any)));
                }
            }
            ExprKind::Call(callee, args) => {
                let params = program.function(*callee).map_or(&[][..], |c| c.params.as_slice());
                for (p, a) in params.iter().zip(args).filter(|(_, a)| a.ty.is_pointer()) {
                    self.flow((callee.0, p.local.0), sources(f, a));
                }
            }
            _ => {}
        }
    }

    /// Where each pointer variable may point: the flows applied until nothing changes.
    fn solve(&self) -> BTreeMap<VarKey, BTreeSet<Target>> {
        let mut points_to: BTreeMap<VarKey, BTreeSet<Target>> = BTreeMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            for &(var, source) in &self.flows {
                let targets = resolve(source, &points_to);
                let set = points_to.entry(var).or_default();
                for t in targets {
                    changed |= set.insert(t);
                }
            }
        }
        points_to
    }
}

fn resolve(source: Source, points_to: &BTreeMap<VarKey, BTreeSet<Target>>) -> Vec<Target> {
    match source {
        Source::Target(t) => vec![t],
        Source::Var(v) => points_to.get(&v).map_or(Vec::new(), |s| s.iter().copied().collect()),
    }
}

/// What pointer `e` of function `f` is made from.
fn sources(f: u32, e: &Expr) -> Vec<Source> {
    match &e.kind {
        ExprKind::AddrOf(p) | ExprKind::Decay(p) => place_sources(f, p),
        ExprKind::PtrAdd(a, _) | ExprKind::PtrCast(a) | ExprKind::Comma(_, a) => sources(f, a),
        ExprKind::Cond(_, a, b) => [sources(f, a), sources(f, b)].concat(),
        ExprKind::Load(p) | ExprKind::Assign { place: p, .. } => match p.kind {
            PlaceKind::Local(id) => vec![Source::Var((f, id.0))],
            _ => vec![Source::Target(Target::Any)],
        },
        // The variable's own value, in a compound assignment to it.
        ExprKind::Current => Vec::new(),
        _ => vec![Source::Target(Target::Any)],
    }
}

fn place_sources(f: u32, p: &Place) -> Vec<Source> {
    match &p.kind {
        PlaceKind::Workgroup(id) => vec![Source::Target(Target::Var(id.0))],
        PlaceKind::Member(base, _) | PlaceKind::Index(base, _) | PlaceKind::Swizzle(base, _) => place_sources(f, base),
        PlaceKind::Deref(e) => sources(f, e),
        // Private or constant memory.
        PlaceKind::Local(_) | PlaceKind::Constant(_) => Vec::new(),
    }
}
