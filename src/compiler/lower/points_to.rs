//! Where the pointers of one kernel (and the functions it calls) may point, found before
//! lowering and without regard to order: every pointer variable collects what its
//! initialisations, assignments and call arguments give it, until nothing changes.
//!
//! A pointer parameter of a helper that its function never points elsewhere stands for one
//! unknown object (`Object::Param`): each inlined call binds it to its argument, so a helper
//! called with different arrays does not merge them. From these sets follow the pointer
//! variables that must hold byte pointers and the objects that must be addressable (see
//! `docs/compiler.md`, "Pointers as run-time values").

use crate::compiler::sema::model::{Builtin, Expr, ExprKind, FuncId, Param, Place, PlaceKind, Program, RecordId, Scalar, Space, Stmt, Type, Types};
use crate::compiler::sema::visit::{self, Node};
use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};

/// An object a pointer may point into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Object {
    /// Private variable `.1` of function `.0` (in every inlined copy of it).
    Private(u32, u32),
    /// `__local` variable `id`.
    Workgroup(u32),
    /// What kernel pointer parameter `local` is bound to.
    KernelArg(u32),
    /// What pointer parameter `.1` of helper `.0` is bound to at one call.
    Param(u32, u32),
    /// A `__constant` variable.
    Constant(u32),
    /// A program-scope `__global` variable.
    Global(u32),
    /// Shared virtual memory: where a pointer read from memory that outlives the launch (a
    /// buffer's, a program-scope variable's) may point, stored there by the host or an earlier
    /// launch (`docs/design.md`, "64-bit addresses and shared virtual memory").
    Svm,
    /// Anywhere: a pointer read from memory or returned by a function, or held by a pointer
    /// variable whose address is taken.
    Any,
}

/// What holds pointers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Holder {
    /// Pointer variable `.1` of function `.0`.
    Var(u32, u32),
    /// The pointer function `.0` returns.
    Ret(u32),
    /// Pointer member `.1` of every struct or union of record `.0`.
    Member(u32, u32),
    /// The pointers in an object: an array of pointers, a program-scope pointer variable.
    In(Object),
    /// The pointers where pointer variable `.1` of function `.0` points (`*pp`, `pp[i]`):
    /// those in each object the variable may point to.
    Through(u32, u32),
}

/// What a pointer is made from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Source {
    Object(Object),
    Held(Holder),
}

/// Where the pointers of one kernel may point, and what follows for the lowering.
pub struct PointsTo {
    points_to: BTreeMap<Holder, BTreeSet<Object>>,
    /// Pointer variables holding byte pointers, with the concrete objects they may point to.
    byte_vars: BTreeMap<Holder, BTreeSet<Object>>,
    /// The private and `__local` objects that live in an arena of words.
    addressed: BTreeSet<Object>,
    /// The concrete objects atomics on `__local` pointers are applied to.
    atomic_objects: BTreeSet<Object>,
    /// Some atomic is applied to a `__local` float.
    float_atomics: bool,
}

impl PointsTo {
    pub fn of_kernel(program: &Program, kernel: FuncId) -> Self {
        let mut facts = Facts::collect(program, kernel);
        facts.add_shared_memory(program, kernel);
        facts.make_params_symbolic();
        facts.solve_members();
        let points_to = facts.solve();
        let concrete = Concrete { points_to: &points_to, args: &facts.args, params: Default::default(), open: Default::default(), reached: std::cell::Cell::new(usize::MAX) };
        // A pointer to pointer variables stays a compile-time choice (`place.rs`, `Root::PtrVar`).
        let to_pointer = |o: &Object| match *o {
            Object::Private(f, l) => program.function(FuncId(f)).and_then(|f| f.locals.get(l as usize)).is_some_and(|l| l.ty.is_pointer()),
            _ => false,
        };
        let many = |s: &BTreeSet<Object>| !s.iter().any(to_pointer) && s.iter().filter(|o| **o != Object::Any).count() > 1;
        // Memory holds pointers as values: byte pointers, whatever they point to.
        let in_memory = |h: &Holder| matches!(h, Holder::Member(..) | Holder::In(_) | Holder::Through(..));
        let member_stepped = facts.member_stepped();
        let byte_vars: Vec<Holder> = points_to
            .iter()
            .filter(|(v, s)| many(s) || facts.cast_into.contains(v) || in_memory(v) || member_stepped.contains(v))
            .map(|(v, _)| *v)
            .collect();
        let byte_vars: BTreeMap<Holder, BTreeSet<Object>> = byte_vars.into_iter().map(|v| (v, concrete.of(&[Source::Held(v)]))).collect();
        let atomic_objects = facts.atomics.iter().flat_map(|s| concrete.of(s)).collect();
        let single = |o: &Object| match *o {
            Object::Private(f, l) => program.function(FuncId(f)).and_then(|f| f.locals.get(l as usize)).is_some_and(|l| !matches!(l.ty, Type::Array { .. })),
            Object::Workgroup(id) => program.workgroup_vars.get(id as usize).is_some_and(|w| !matches!(w.ty, Type::Array { .. })),
            _ => false,
        };
        // A pointer stepped off a single object, or off a member (`(&s[i].x)[k]`), needs its
        // object's bytes.
        let stepped: BTreeSet<Object> = facts
            .stepped
            .iter()
            .flat_map(|(s, direct)| {
                let off_member = *direct || s.iter().any(|h| matches!(h, Source::Held(h) if facts.to_member.contains(h)));
                concrete.of(s).into_iter().filter(move |o| off_member || single(o))
            })
            .collect();
        let byte_var_sites = byte_vars.keys().map(|v| vec![Source::Held(*v)]);
        let choices = facts.choices.iter().filter(|c| concrete.of(c).len() > 1).cloned();
        let sites: Vec<Vec<Source>> = byte_var_sites.chain(choices).chain(facts.addressed.iter().cloned()).collect();
        let is_data = |o: &Object| match *o {
            Object::Private(f, l) => program.function(FuncId(f)).and_then(|f| f.locals.get(l as usize)).is_some_and(|l| !l.ty.is_pointer()),
            Object::Workgroup(_) => true,
            Object::KernelArg(l) => program
                .function(kernel)
                .and_then(|k| k.locals.get(l as usize))
                .is_some_and(|l| matches!(l.ty, Type::Pointer { space: Space::Local, .. })),
            _ => false,
        };
        let addressed = sites.iter().flat_map(|s| concrete.of(s)).chain(stepped).filter(is_data).collect();
        PointsTo { points_to, byte_vars, addressed, atomic_objects, float_atomics: facts.float_atomics }
    }

    /// Whether pointer variable `var` holds byte pointers: it may point into more than one
    /// object, or is given a reinterpreted pointer.
    pub fn is_byte_var(&self, var: Holder) -> bool {
        self.byte_vars.contains_key(&var)
    }

    /// The objects byte pointer variable `var` may point into.
    pub fn objects_of(&self, var: Holder) -> impl Iterator<Item = Object> + '_ {
        self.byte_vars.get(&var).into_iter().flatten().copied()
    }

    /// Whether private or `__local` object `o` (or the `__local` memory of a kernel argument)
    /// lives in an arena of words.
    pub fn is_addressed(&self, o: Object) -> bool {
        self.addressed.contains(&o)
    }

    /// Whether `holder` is memory reached through a pointer that may point to what the
    /// analysis cannot follow: anything (a pointer read from memory it does not follow).
    pub fn through_unknown(&self, holder: Holder) -> bool {
        let Holder::Through(f, l) = holder else { return false };
        self.points_to.get(&Holder::Var(f, l)).is_some_and(|s| s.contains(&Object::Any))
    }

    /// Whether nothing ever gives `holder` a pointer.
    pub fn never_assigned(&self, holder: Holder) -> bool {
        self.points_to.get(&holder).is_none_or(BTreeSet::is_empty)
    }

    /// Whether some atomic is applied to a `__local` float.
    pub fn float_atomics(&self) -> bool {
        self.float_atomics
    }

    /// The objects atomics on `__local` pointers may be applied to.
    pub fn atomic_objects(&self) -> &BTreeSet<Object> {
        &self.atomic_objects
    }
}

/// Resolves the `Param` objects pointers may point to into the concrete objects of their
/// calls' arguments, once per parameter: a helper called at many sites of helpers called at
/// many sites would otherwise be resolved once per path through the call tree.
struct Concrete<'a> {
    points_to: &'a BTreeMap<Holder, BTreeSet<Object>>,
    /// The argument sources of each call of a helper's pointer parameter.
    args: &'a BTreeMap<Holder, Vec<Vec<Source>>>,
    params: RefCell<BTreeMap<Holder, BTreeSet<Object>>>,
    /// The parameters being resolved, outermost first: a parameter given what its own
    /// function returns (`f(f(p))`) reaches itself.
    open: RefCell<Vec<Holder>>,
    /// The outermost of [`Concrete::open`] reached again while resolving the innermost.
    reached: std::cell::Cell<usize>,
}

impl Concrete<'_> {
    /// Every concrete object (no `Param`) that the pointers `sources` may point into.
    fn of(&self, sources: &[Source]) -> BTreeSet<Object> {
        let mut out = BTreeSet::new();
        for &s in sources {
            let objects = match s {
                Source::Object(o) => vec![o],
                Source::Held(v) => self.points_to.get(&v).map_or(Vec::new(), |s| s.iter().copied().collect()),
            };
            for o in objects {
                match o {
                    Object::Param(f, p) => out.extend(self.param(Holder::Var(f, p))),
                    o => {
                        out.insert(o);
                    }
                }
            }
        }
        out
    }

    fn param(&self, param: Holder) -> BTreeSet<Object> {
        if let Some(known) = self.params.borrow().get(&param) {
            return known.clone();
        }
        // Reaching itself adds nothing to a parameter's set; but a set resolved while an
        // outer parameter was open lacks what that one adds, so it is kept only once that one
        // is done.
        if let Some(depth) = self.open.borrow().iter().position(|&p| p == param) {
            self.reached.set(self.reached.get().min(depth));
            return BTreeSet::new();
        }
        let depth = self.open.borrow().len();
        self.open.borrow_mut().push(param);
        let outer = self.reached.replace(usize::MAX);
        let objects: BTreeSet<Object> = self.args.get(&param).into_iter().flatten().flat_map(|call| self.of(call)).collect();
        self.open.borrow_mut().pop();
        let reached = self.reached.get();
        if reached >= depth {
            self.params.borrow_mut().insert(param, objects.clone());
        }
        self.reached.set(outer.min(if reached < depth { reached } else { usize::MAX }));
        objects
    }
}

#[derive(Default)]
struct Facts {
    /// A pointer variable may hold what a source gives.
    flows: Vec<(Holder, Source)>,
    params: BTreeSet<Holder>,
    args: BTreeMap<Holder, Vec<Vec<Source>>>,
    atomics: Vec<Vec<Source>>,
    /// Pointers whose objects must be addressable: reinterpreted or turned into integers.
    addressed: Vec<Vec<Source>>,
    /// Pointers stepped by arithmetic: their single objects (not arrays) must be addressable,
    /// and every object of one that may point to a member (`true`: it is made from a member's
    /// address right there).
    stepped: Vec<(Vec<Source>, bool)>,
    /// Holders that may hold a pointer to a member of a record (see [`Facts::solve_members`]).
    to_member: BTreeSet<Holder>,
    /// `?:` between pointers.
    choices: Vec<Vec<Source>>,
    /// Some atomic is applied to a `__local` float.
    float_atomics: bool,
    /// Holders given a reinterpreted pointer or one read from memory: they hold byte
    /// pointers.
    cast_into: BTreeSet<Holder>,
}

impl Facts {
    fn collect(program: &Program, kernel: FuncId) -> Facts {
        let mut facts = Facts::default();
        for p in program.function(kernel).map_or(&[][..], |k| k.params.as_slice()) {
            facts.flows.push((Holder::Var(kernel.0, p.local.0), Source::Object(Object::KernelArg(p.local.0))));
        }
        let (mut seen, mut todo) = (BTreeSet::from([kernel.0]), vec![kernel]);
        while let Some(id) = todo.pop() {
            let Some(f) = program.function(id) else { continue };
            let mut body = f.body.clone();
            visit::walk_mut(&mut body, &mut |n| match n {
                Node::Stmt(Stmt::Decl { local, init: Some(e) }) if e.ty.is_pointer() => facts.assign(program, id.0, Holder::Var(id.0, local.0), e),
                Node::Stmt(Stmt::Decl { local, init: Some(e) }) => facts.aggregate(program, id.0, Holder::In(Object::Private(id.0, local.0)), e),
                Node::Stmt(Stmt::Return(Some(e))) if e.ty.is_pointer() => facts.assign(program, id.0, Holder::Ret(id.0), e),
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

    /// `var` is given pointer `value`, an expression of function `f`.
    fn assign(&mut self, program: &Program, f: u32, var: Holder, value: &Expr) {
        let types = &program.types;
        let sources = sources(types, f, value);
        // A reinterpreted pointer, or one read from memory, is a byte pointer.
        if is_reinterpreting(program, value) || sources.iter().any(|s| matches!(s, Source::Held(Holder::Member(..) | Holder::In(_) | Holder::Through(..)))) {
            self.cast_into.insert(var);
        }
        if to_member(value) {
            self.to_member.insert(var);
        }
        self.flows.extend(sources.into_iter().map(|s| (var, s)));
    }

    /// The pointers inside aggregate `value` (a struct or array value of function `f`) go to
    /// the members of their records, or to `holder` for elements of an array of pointers.
    fn aggregate(&mut self, program: &Program, f: u32, holder: Holder, value: &Expr) {
        let ExprKind::Aggregate(items) = &value.kind else { return };
        for (m, item) in (0u32..).zip(items) {
            let inner = match &value.ty {
                Type::Record(r) => member_holder(&program.types, *r, m),
                _ => holder,
            };
            if item.ty.is_pointer() {
                self.assign(program, f, inner, item);
            } else {
                self.aggregate(program, f, inner, item);
            }
        }
    }


    /// The facts expression `e` of function `f` gives (not those of its operands).
    fn expr(&mut self, program: &Program, f: u32, e: &Expr) {
        let types = &program.types;
        match &e.kind {
            ExprKind::Builtin(Builtin::Atomic(_) | Builtin::C11Atomic(..), args) => {
                if let Some(p) = args.first().filter(|p| matches!(p.ty, Type::Pointer { space: Space::Local | Space::Generic, .. })) {
                    let float = |t: &Type| matches!(t, Type::Scalar(Scalar::Float) | Type::Atomic(Scalar::Float));
                    self.float_atomics |= matches!(&p.ty, Type::Pointer { pointee, .. } if float(pointee));
                    self.atomics.push(sources(types, f, p));
                }
            }
            ExprKind::Assign { place, value, .. } => match holder(types, f, place) {
                Some(h) if place.ty.is_pointer() => self.assign(program, f, h, value),
                Some(h) => self.aggregate(program, f, h, value),
                None => {}
            },
            // A pointer into a union is bytes of its words: the union must be addressable.
            ExprKind::AddrOf(place) | ExprKind::Decay(place) if super::place::inside_union(types, place) => {
                self.addressed.push(place_sources(types, f, place));
            }
            // A pointer variable that a pointer to it may change.
            ExprKind::AddrOf(place) => {
                if let (true, PlaceKind::Local(id)) = (place.ty.is_pointer(), &place.kind) {
                    self.flows.push((Holder::Var(f, id.0), Source::Object(Object::Any)));
                }
            }
            ExprKind::Call(callee, args) => {
                let params = program.function(*callee).map_or(&[][..], |c| c.params.as_slice());
                for (p, a) in params.iter().zip(args).filter(|(_, a)| a.ty.is_pointer()) {
                    let key = Holder::Var(callee.0, p.local.0);
                    if to_member(a) {
                        self.to_member.insert(key);
                    }
                    self.params.insert(key);
                    self.args.entry(key).or_default().push(sources(types, f, a));
                }
            }
            ExprKind::PtrCast(inner) if is_reinterpreting(program, e) => self.addressed.push(sources(types, f, inner)),
            ExprKind::PtrToInt(p) => self.addressed.push(sources(types, f, p)),
            ExprKind::PtrAdd(p, n) if !matches!(n.kind, ExprKind::Int(0)) => self.stepped.push((sources(types, f, p), to_member(p))),
            ExprKind::Cond(_, a, b) if e.ty.is_pointer() => self.choices.push([sources(types, f, a), sources(types, f, b)].concat()),
            _ => {}
        }
    }

    /// The holders in memory that outlives the launch may hold pointers into shared virtual
    /// memory: those in program-scope variables and in what a `__global` argument points to
    /// (an array of pointers), and pointer members of records such memory holds. Only devices
    /// with 64-bit pointers have shared virtual memory.
    fn add_shared_memory(&mut self, program: &Program, kernel: FuncId) {
        if program.types.pointer_size != 8 {
            return;
        }
        // The `__global` (or `__constant`) pointer arguments: (parameter, pointee).
        let args: Vec<(u32, &Type)> = program.function(kernel).map_or(Vec::new(), |k| {
            let pointee = |p: &Param| match &k.locals.get(p.local.0 as usize)?.ty {
                Type::Pointer { pointee, space: Space::Global | Space::Constant, .. } => Some((p.local.0, &**pointee)),
                _ => None,
            };
            k.params.iter().filter_map(pointee).collect()
        });
        let mut records = BTreeSet::new();
        for ty in args.iter().map(|(_, t)| *t).chain(program.global_vars.iter().map(|g| &g.ty)) {
            records_in(&program.types, ty, &mut records);
        }
        let types = &program.types;
        let members = records.iter().flat_map(|&r| {
            let members = types.record(RecordId(r)).map_or(&[][..], |rec| rec.members.as_slice());
            (0u32..).zip(members).filter(|(_, m)| holds_pointers(&m.ty)).map(move |(m, _)| member_holder(types, RecordId(r), m))
        });
        let globals = (0u32..).zip(&program.global_vars).filter(|(_, g)| holds_pointers(&g.ty)).map(|(id, _)| Holder::In(Object::Global(id)));
        let arrays = args.iter().filter(|(_, pointee)| holds_pointers(pointee)).map(|&(l, _)| Holder::In(Object::KernelArg(l)));
        let holders: BTreeSet<Holder> = members.chain(globals).chain(arrays).collect();
        self.flows.extend(holders.into_iter().map(|h| (h, Source::Object(Object::Svm))));
    }

    /// Parameters that their function never points elsewhere stand for one object per call;
    /// the others collect their arguments.
    fn make_params_symbolic(&mut self) {
        for &key in &self.params {
            let own = self.flows.iter().any(|&(v, s)| v == key && s != Source::Held(key));
            if own {
                for call in self.args.get(&key).into_iter().flatten() {
                    self.flows.extend(call.iter().map(|s| (key, *s)));
                }
            } else if let Holder::Var(f, l) = key {
                self.flows.push((key, Source::Object(Object::Param(f, l))));
            }
        }
    }

    /// Extends [`Facts::to_member`] to the holders given what one of them holds (as a value
    /// or a call argument), until nothing changes.
    fn solve_members(&mut self) {
        let args = self.args.iter().flat_map(|(key, calls)| calls.iter().flatten().map(move |s| (*key, *s)));
        let edges: Vec<(Holder, Holder)> = self
            .flows
            .iter()
            .copied()
            .chain(args)
            .filter_map(|(to, s)| match s {
                Source::Held(from) => Some((to, from)),
                Source::Object(_) => None,
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &(to, from) in &edges {
                if self.to_member.contains(&from) {
                    changed |= self.to_member.insert(to);
                }
            }
        }
    }

    /// The holders that a step by arithmetic may move off a member: they hold byte pointers.
    fn member_stepped(&self) -> BTreeSet<Holder> {
        let held = |s: &Source| match s {
            Source::Held(h) if self.to_member.contains(h) => Some(*h),
            _ => None,
        };
        self.stepped.iter().flat_map(|(s, _)| s.iter().filter_map(held)).collect()
    }

    /// The objects the pointers of `holder` may point into.
    fn held(&self, points_to: &BTreeMap<Holder, BTreeSet<Object>>, holder: Holder) -> BTreeSet<Object> {
        self.stored_in(points_to, holder).into_iter().flat_map(|h| points_to.get(&h).into_iter().flatten().copied()).collect()
    }

    /// The holders a store to `holder` reaches: itself, or for a `Through` holder those in
    /// each object its variable may point to, a helper's parameter standing for what every
    /// call gives it.
    fn stored_in(&self, points_to: &BTreeMap<Holder, BTreeSet<Object>>, holder: Holder) -> Vec<Holder> {
        let Holder::Through(f, l) = holder else { return vec![holder] };
        let mut objects = BTreeSet::new();
        let mut seen = BTreeSet::new();
        let mut todo: Vec<Object> = points_to.get(&Holder::Var(f, l)).into_iter().flatten().copied().collect();
        while let Some(o) = todo.pop() {
            let Object::Param(g, p) = o else {
                objects.insert(o);
                continue;
            };
            if !seen.insert(o) {
                continue;
            }
            for source in self.args.get(&Holder::Var(g, p)).into_iter().flatten().flatten() {
                match *source {
                    Source::Object(o) => todo.push(o),
                    Source::Held(h) => todo.extend(points_to.get(&h).into_iter().flatten().copied()),
                }
            }
        }
        objects.into_iter().map(Holder::In).collect()
    }

    /// Where each pointer variable may point: the flows applied until nothing changes.
    fn solve(&self) -> BTreeMap<Holder, BTreeSet<Object>> {
        let mut points_to: BTreeMap<Holder, BTreeSet<Object>> = BTreeMap::new();
        let mut changed = true;
        while changed {
            changed = false;
            for &(var, source) in &self.flows {
                let targets: Vec<Object> = match source {
                    Source::Object(o) => vec![o],
                    Source::Held(h @ Holder::Through(..)) => self.held(&points_to, h).into_iter().collect(),
                    Source::Held(v) => points_to.get(&v).map_or(Vec::new(), |s| s.iter().copied().collect()),
                };
                // Only a `Through` holder stands for others; every other holder is its own.
                let holders = if matches!(var, Holder::Through(..)) { self.stored_in(&points_to, var) } else { vec![var] };
                for holder in holders {
                    let set = points_to.entry(holder).or_default();
                    for &t in &targets {
                        changed |= set.insert(t);
                    }
                }
            }
        }
        // What each pointer variable's `Through` holder holds, for the lowering's decoding
        // (also where it is only read in place, `pp[i][j]`).
        let through: Vec<Holder> = points_to.keys().filter_map(|h| if let Holder::Var(f, l) = *h { Some(Holder::Through(f, l)) } else { None }).collect();
        for h in through {
            let objects = self.held(&points_to, h);
            if !objects.is_empty() {
                points_to.insert(h, objects);
            }
        }
        points_to
    }
}

/// Whether `e` is a cast to a pointee of another layout than its operand's (a byte pointer
/// then): not the same type, nor scalars of one size.
fn is_reinterpreting(program: &Program, e: &Expr) -> bool {
    let ExprKind::PtrCast(inner) = &e.kind else { return false };
    let (Type::Pointer { pointee: to, .. }, Type::Pointer { pointee: from, .. }) = (&e.ty, &inner.ty) else { return false };
    match (&**from, &**to) {
        (a, b) if a == b => false,
        (Type::Scalar(a) | Type::Atomic(a), Type::Scalar(b) | Type::Atomic(b)) => a.size() != b.size(),
        _ => program.types.size_of(from) != 0 || program.types.size_of(to) != 0,
    }
}

/// Whether a value of type `ty` is a pointer or an array of them.
fn holds_pointers(ty: &Type) -> bool {
    match ty {
        Type::Array { elem, .. } => holds_pointers(elem),
        t => t.is_pointer(),
    }
}

/// Adds to `out` the records that a value of type `ty` holds, at any depth.
fn records_in(types: &Types, ty: &Type, out: &mut BTreeSet<u32>) {
    match ty {
        Type::Record(r) if out.insert(r.0) => {
            for m in types.record(*r).map_or(&[][..], |rec| rec.members.as_slice()) {
                records_in(types, &m.ty, out);
            }
        }
        Type::Array { elem, .. } => records_in(types, elem, out),
        _ => {}
    }
}

/// Whether pointer `e` may be made from the address of a record member (`&s.x`, `&p->x`).
fn to_member(e: &Expr) -> bool {
    match &e.kind {
        ExprKind::AddrOf(p) => matches!(p.kind, PlaceKind::Member(..)),
        ExprKind::PtrAdd(a, _) | ExprKind::PtrCast(a) | ExprKind::Comma(_, a) => to_member(a),
        ExprKind::Cond(_, a, b) => to_member(a) || to_member(b),
        _ => false,
    }
}

/// The one pointer converted to an integer inside integer expression `e`, if there is
/// exactly one: an integer made from it may become a pointer into the same object again.
pub fn converted_pointer(e: &Expr) -> Option<&Expr> {
    let mut found = Vec::new();
    collect_conversions(e, &mut found);
    match found.as_slice() {
        [p] => Some(*p),
        _ => None,
    }
}

fn collect_conversions<'e>(e: &'e Expr, found: &mut Vec<&'e Expr>) {
    match &e.kind {
        ExprKind::PtrToInt(p) => found.push(p),
        ExprKind::Convert { value: a, .. } | ExprKind::Unary(_, a) | ExprKind::Bitcast(a) => collect_conversions(a, found),
        ExprKind::Binary(_, a, b) | ExprKind::Comma(a, b) => {
            collect_conversions(a, found);
            collect_conversions(b, found);
        }
        ExprKind::Cond(_, a, b) => {
            collect_conversions(a, found);
            collect_conversions(b, found);
        }
        _ => {}
    }
}

/// What pointer `e` of function `f` is made from.
fn sources(types: &Types, f: u32, e: &Expr) -> Vec<Source> {
    match &e.kind {
        ExprKind::IntToPtr(i) => converted_pointer(i).map_or_else(|| vec![Source::Object(Object::Any)], |p| sources(types, f, p)),
        ExprKind::AddrOf(p) | ExprKind::Decay(p) => place_sources(types, f, p),
        ExprKind::PtrAdd(a, _) | ExprKind::PtrCast(a) | ExprKind::Comma(_, a) => sources(types, f, a),
        ExprKind::Cond(_, a, b) => [sources(types, f, a), sources(types, f, b)].concat(),
        ExprKind::Load(p) | ExprKind::Assign { place: p, .. } => match holder(types, f, p) {
            Some(h) => vec![Source::Held(h)],
            None => vec![Source::Object(Object::Any)],
        },
        // The variable's own value, in a compound assignment to it; a null pointer.
        ExprKind::Current | ExprKind::Zero => Vec::new(),
        ExprKind::Call(callee, _) => vec![Source::Held(Holder::Ret(callee.0))],
        _ => vec![Source::Object(Object::Any)],
    }
}

/// What holds the pointer (or the pointers inside the aggregate) at place `p` of function
/// `f`, if known.
pub fn holder(types: &Types, f: u32, p: &Place) -> Option<Holder> {
    match &p.kind {
        PlaceKind::Local(id) if p.ty.is_pointer() => Some(Holder::Var(f, id.0)),
        PlaceKind::Local(id) => Some(Holder::In(Object::Private(f, id.0))),
        PlaceKind::Workgroup(id) => Some(Holder::In(Object::Workgroup(id.0))),
        PlaceKind::Global(id) => Some(Holder::In(Object::Global(id.0))),
        PlaceKind::Member(base, m) => match base.ty {
            Type::Record(r) => Some(member_holder(types, r, *m)),
            _ => None,
        },
        PlaceKind::Index(base, _) => holder(types, f, base),
        PlaceKind::Deref(e) => pointer_variable(e).map(|id| Holder::Through(f, id)),
        PlaceKind::Constant(_) | PlaceKind::Swizzle(..) => None,
    }
}

/// The pointer variable pointer `e` is read from, stepped or cast (`pp`, `pp + i`).
fn pointer_variable(e: &Expr) -> Option<u32> {
    match &e.kind {
        ExprKind::Load(p) => match p.kind {
            PlaceKind::Local(id) if p.ty.is_pointer() => Some(id.0),
            _ => None,
        },
        ExprKind::PtrAdd(a, _) | ExprKind::PtrCast(a) => pointer_variable(a),
        _ => None,
    }
}


/// What holds the pointers of member `m` of record `r`: the members of a union share their
/// bytes, so one holder stands for all of them.
fn member_holder(types: &Types, r: RecordId, m: u32) -> Holder {
    let union = types.record(r).is_some_and(|rec| rec.is_union);
    Holder::Member(r.0, if union { 0 } else { m })
}

fn place_sources(types: &Types, f: u32, p: &Place) -> Vec<Source> {
    match &p.kind {
        PlaceKind::Workgroup(id) => vec![Source::Object(Object::Workgroup(id.0))],
        PlaceKind::Local(id) => vec![Source::Object(Object::Private(f, id.0))],
        PlaceKind::Constant(id) => vec![Source::Object(Object::Constant(id.0))],
        PlaceKind::Global(id) => vec![Source::Object(Object::Global(id.0))],
        PlaceKind::Member(base, _) | PlaceKind::Index(base, _) | PlaceKind::Swizzle(base, _) => place_sources(types, f, base),
        PlaceKind::Deref(e) => sources(types, f, e),
    }
}
