//! Unrolling of `for` loops. Without a hint, counted loops with a small constant trip count
//! (`for (int i = 0; i < 4; i++)`) are unrolled fully: naga cannot mark a loop for unrolling,
//! and a driver that scalarises private arrays before it unrolls keeps `acc[i][j]` in memory;
//! unrolled here, every index into such an array is a constant after the driver's
//! store-to-load forwarding. `opencl_unroll_hint` (and `#pragma unroll`) asks for more: a full
//! unroll of longer counted loops, or N copies of the body per iteration of any loop.

use crate::compiler::source::Loc;
use crate::compiler::sema::model::{BinaryOp, CmpOp, Expr, ExprKind, LocalId, Place, PlaceKind, Scalar, Stmt, Type, Unroll};
use std::collections::HashSet;

/// Most iterations unrolled, and most statement and expression nodes of the unrolled result
/// (nested unrolled loops counted with their copies), without a hint. The node budget fits
/// the inner product of a tiled SGEMM (16 steps of a 4 × 4 block: 8.4 K nodes), which
/// NVIDIA's OpenCL unrolls too; unrolled, it ran 10 % faster on an H100.
const MAX_TRIPS: usize = 16;
const MAX_NODES: usize = 16384;

/// The same limits where the program asks for unrolling: larger, but a hint on a loop of a
/// million iterations must not make a module of a million copies.
const MAX_HINTED_TRIPS: usize = 1024;
const MAX_HINTED_NODES: usize = 65536;

/// How a `for` loop is lowered.
pub(super) enum Plan {
    /// As a loop.
    Keep,
    /// One copy of the body per iteration, the counter a constant in each.
    Full(Counted),
    /// A loop whose body is N copies of the original body, each but the last followed by the
    /// step and the condition (see [`repeated`]).
    Partial(u32),
}

/// A loop to unroll: its counter and the counter's value in each iteration.
pub(super) struct Counted {
    pub local: LocalId,
    pub ty: Type,
    pub values: Vec<i64>,
    /// The counter's initialiser.
    pub loc: Loc,
    /// The rest of a step that also does other work (`f++, i += stride`), run after each
    /// copy of the body; it neither reads nor writes the counter.
    pub also: Option<Expr>,
    /// Its statement and expression nodes.
    also_nodes: usize,
}

/// How to lower `for (init; cond; step) body` with the program's hint.
pub(super) fn plan(hint: Unroll, init: &[Stmt], cond: Option<&Expr>, step: Option<&Expr>, body: &Stmt) -> Plan {
    plan_scanned(hint, init, cond, step, &Scan::body(body))
}

fn plan_scanned(hint: Unroll, init: &[Stmt], cond: Option<&Expr>, step: Option<&Expr>, body: &Scan) -> Plan {
    let full = |max_trips, max_nodes| {
        trips(init, cond, step, max_trips).filter(|t| unrolls(t, body, max_nodes)).map(Plan::Full)
    };
    match hint {
        // Unrolled, a body that reads vectors of 32 bytes or more from memory (`float8`,
        // `float16`) ran at a quarter of the speed on the H200: NVIDIA's compiler then splits
        // the loads. As a loop it reads at full speed.
        Unroll::Auto if body.wide_loads => None,
        Unroll::Auto => full(MAX_TRIPS, MAX_NODES),
        Unroll::Count(1) => None,
        Unroll::Full => full(MAX_HINTED_TRIPS, MAX_HINTED_NODES),
        Unroll::Count(n) => full((n as usize).min(MAX_HINTED_TRIPS), MAX_HINTED_NODES).or_else(|| {
            // A `continue` would skip the copies after it.
            let fits = (n as usize).checked_mul(body.nodes).is_some_and(|size| size <= MAX_HINTED_NODES);
            (!body.continues && fits).then_some(Plan::Partial(n))
        }),
    }
    .unwrap_or(Plan::Keep)
}

/// The body of a loop unrolled by `n`: `body; step; if (!cond) break; body; ...; body` (the
/// loop's own step and test still run after the last copy).
pub(super) fn repeated(body: &Stmt, cond: Option<&Expr>, step: Option<&Expr>, n: u32) -> Stmt {
    let mut copies = Vec::new();
    for i in 0..n {
        if i > 0 {
            copies.extend(step.map(|s| Stmt::Expr(s.clone())));
            copies.extend(cond.map(|c| Stmt::If { cond: c.clone(), then: Box::new(Stmt::Block(vec![])), otherwise: Some(Box::new(Stmt::Break)) }));
        }
        copies.push(body.clone());
    }
    Stmt::Block(copies)
}

/// Whether a loop with these iterations and this body is unrolled fully.
fn unrolls(trips: &Counted, body: &Scan, max_nodes: usize) -> bool {
    !body.leaves && !body.returns && !body.written.contains(&trips.local) && trips.values.len() * (body.nodes + trips.also_nodes) <= max_nodes
}

/// The counter and its values, for a loop of the counted shape (the body not looked at) of at
/// most `max_trips` iterations.
fn trips(init: &[Stmt], cond: Option<&Expr>, step: Option<&Expr>, max_trips: usize) -> Option<Counted> {
    let [Stmt::Decl { local, init: Some(start) }] = init else { return None };
    let ty = start.ty.clone();
    let range = match ty {
        Type::Scalar(Scalar::Int) => i64::from(i32::MIN)..=i64::from(i32::MAX),
        Type::Scalar(Scalar::UInt) => 0..=i64::from(u32::MAX),
        Type::Scalar(Scalar::Long) => i64::MIN..=i64::MAX,
        Type::Scalar(Scalar::ULong) => 0..=i64::MAX,
        _ => return None,
    };
    let (op, bound) = match &as_condition(cond?).kind {
        ExprKind::Compare(op, l, r) if is_counter(l, *local) => (*op, constant(r)?),
        _ => return None,
    };
    let (step, also) = counter_step(step?, *local)?;
    let mut values = Vec::new();
    let mut v = constant(start)?;
    while compare(op, v, bound)? {
        if values.len() == max_trips || !range.contains(&v) {
            return None;
        }
        values.push(v);
        v = step.next(v)?;
    }
    let (also, also_nodes) = also.map_or((None, 0), |(e, nodes)| (Some(e.clone()), nodes));
    Some(Counted { local: *local, ty, values, loc: start.loc, also, also_nodes })
}

/// A condition without its conversion to `bool`.
fn as_condition(e: &Expr) -> &Expr {
    match &e.kind {
        ExprKind::Convert { value, .. } if e.ty == Type::Scalar(Scalar::Bool) => value,
        _ => e,
    }
}

fn compare(op: CmpOp, a: i64, b: i64) -> Option<bool> {
    Some(match op {
        CmpOp::Lt => a < b,
        CmpOp::Le => a <= b,
        CmpOp::Gt => a > b,
        CmpOp::Ge => a >= b,
        CmpOp::Ne => a != b,
        CmpOp::Eq => return None,
    })
}

/// An integer literal's value (through conversions between integer types of small values).
fn constant(e: &Expr) -> Option<i64> {
    match &e.kind {
        ExprKind::Int(bits) => {
            let v = if e.ty.element().is_some_and(|s| s.is_signed()) { *bits as i64 } else { i64::try_from(*bits).ok()? };
            (i64::from(i32::MIN)..=i64::from(i32::MAX)).contains(&v).then_some(v)
        }
        ExprKind::Convert { value, sat: false, .. } if value.ty.element().is_some_and(|s| s.is_integer()) => constant(value).filter(|v| *v >= 0),
        _ => None,
    }
}

fn is_counter(e: &Expr, local: LocalId) -> bool {
    matches!(&e.kind, ExprKind::Load(p) if p.kind == PlaceKind::Local(local))
}

/// How a counted loop's step changes its counter: by a positive constant `c` in
/// `i += c` / `i++` / `i -= c` / `i--`, `p *= c`, `p <<= c`, `s /= c` or `s >>= c`.
#[derive(Clone, Copy)]
enum Step {
    Add(i64),
    Mul(i64),
    Shl(i64),
    Div(i64),
    Shr(i64),
}

impl Step {
    /// The counter after the step, as C computes it on a 64-bit value (the caller checks the
    /// counter's own range); `None` past 64 bits.
    fn next(self, v: i64) -> Option<i64> {
        match self {
            Step::Add(c) => v.checked_add(c),
            Step::Mul(c) => v.checked_mul(c),
            Step::Shl(c) => v.checked_mul(1i64.checked_shl(u32::try_from(c).ok()?).filter(|m| *m > 0)?),
            Step::Div(c) => Some(v / c),
            Step::Shr(c) => Some(v >> c.min(63)),
        }
    }
}

/// The counter's step, and the rest of the step with its node count where it is `i++, other`
/// or `other, i++` and `other` does not touch the counter.
fn counter_step(step: &Expr, local: LocalId) -> Option<(Step, Option<(&Expr, usize)>)> {
    if let Some(s) = step_of(step, local) {
        return Some((s, None));
    }
    let ExprKind::Comma(a, b) = &step.kind else { return None };
    let (s, other) = match (step_of(a, local), step_of(b, local)) {
        (Some(s), None) => (s, b),
        (None, Some(s)) => (s, a),
        _ => return None,
    };
    let scan = Scan::body(&Stmt::Expr(other.as_ref().clone()));
    (!scan.mentioned.contains(&local)).then_some((s, Some((other.as_ref(), scan.nodes))))
}

/// The step `i op= c` (or `i++`, `i--`) of the counter `local` by a positive constant.
fn step_of(step: &Expr, local: LocalId) -> Option<Step> {
    let ExprKind::Assign { place, value, .. } = &step.kind else { return None };
    if place.kind != PlaceKind::Local(local) {
        return None;
    }
    let ExprKind::Binary(op, l, r) = &value.kind else { return None };
    if !matches!(l.kind, ExprKind::Current) && !is_counter(l, local) {
        return None;
    }
    let c = constant(r).filter(|c| *c > 0)?;
    match op {
        BinaryOp::Add => Some(Step::Add(c)),
        BinaryOp::Sub => Some(Step::Add(-c)),
        BinaryOp::Mul if c > 1 => Some(Step::Mul(c)),
        BinaryOp::Shl => Some(Step::Shl(c)),
        BinaryOp::Div if c > 1 => Some(Step::Div(c)),
        BinaryOp::Shr => Some(Step::Shr(c)),
        _ => None,
    }
}

/// Nodes an expression of type `ty` counts for. A `half` value is computed in float and rounded
/// to half in software (`half.rs`), about 16 instructions per component: counted as one node, the
/// `half8` and `half16` loops of clpeak's half-precision test unrolled into 900 KB of SPIR-V:
/// 4 s of NVIDIA's compiler, and 13–16 % slower than as loops (H200, 2026-11-27).
fn weight(ty: &Type) -> usize {
    const HALF_COMPONENT: usize = 16;
    match ty {
        Type::Scalar(Scalar::Half) => HALF_COMPONENT,
        Type::Vector(Scalar::Half, n) => HALF_COMPONENT * usize::from(*n),
        _ => 1,
    }
}

/// What unrolling needs to know of a loop body, found in one pass over it (nested counted loops
/// are judged from their own pass, so deep nests cost linear time, not exponential).
#[derive(Default)]
struct Scan {
    /// Statement and expression nodes, nested unrolled loops counted with all their copies.
    nodes: usize,
    /// Locals assigned or whose address is taken.
    written: HashSet<LocalId>,
    /// A `break` or `continue` of the scanned loop itself.
    leaves: bool,
    /// A `continue` of the scanned loop itself.
    continues: bool,
    returns: bool,
    /// Locals read or written.
    mentioned: HashSet<LocalId>,
    /// A load of a vector of 32 bytes or more from memory (not from a local).
    wide_loads: bool,
}

impl Scan {
    fn body(body: &Stmt) -> Scan {
        let mut scan = Scan::default();
        scan.stmt(body, 0, 0);
        scan
    }

    /// `loops`/`switches`: how deep `s` is in loops and switches inside the body.
    fn stmt(&mut self, s: &Stmt, loops: u32, switches: u32) {
        self.nodes += 1;
        match s {
            Stmt::Block(b) => b.iter().for_each(|s| self.stmt(s, loops, switches)),
            Stmt::Decl { init, .. } => init.iter().for_each(|e| self.expr(e)),
            Stmt::Expr(e) => self.expr(e),
            Stmt::If { cond, then, otherwise } => {
                self.expr(cond);
                self.stmt(then, loops, switches);
                otherwise.iter().for_each(|o| self.stmt(o, loops, switches));
            }
            Stmt::While { cond, body } | Stmt::DoWhile { body, cond } => {
                self.expr(cond);
                self.stmt(body, loops + 1, switches);
            }
            Stmt::For { init, cond, step, body, unroll } => {
                let before = self.nodes;
                init.iter().for_each(|s| self.stmt(s, loops + 1, switches));
                cond.iter().chain(step).for_each(|e| self.expr(e));
                let inner = Scan::body(body);
                // A nested loop that will be unrolled counts with all its copies.
                let copies = match plan_scanned(*unroll, init, cond.as_ref(), step.as_ref(), &inner) {
                    Plan::Keep => 1,
                    Plan::Full(t) => t.values.len(),
                    Plan::Partial(n) => n as usize,
                };
                self.nodes += inner.nodes;
                self.nodes = before + (self.nodes - before) * copies;
                self.returns |= inner.returns;
                self.wide_loads |= inner.wide_loads;
                self.written.extend(inner.written);
                self.mentioned.extend(inner.mentioned);
            }
            Stmt::Switch { selector, cases } => {
                self.expr(selector);
                cases.iter().flat_map(|c| &c.body).for_each(|s| self.stmt(s, loops, switches + 1));
            }
            Stmt::Break => self.leaves |= loops == 0 && switches == 0,
            Stmt::Continue => {
                self.leaves |= loops == 0;
                self.continues |= loops == 0;
            }
            Stmt::Return(_) => self.returns = true,
            Stmt::Label(_) | Stmt::Goto(..) => self.leaves = true,
        }
    }

    fn expr(&mut self, e: &Expr) {
        self.nodes += weight(&e.ty);
        match &e.kind {
            ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Zero | ExprKind::Current => {}
            ExprKind::Load(p) => {
                self.wide_loads |= root(p).is_none() && matches!(e.ty, Type::Vector(s, n) if s.size() * u32::from(n) >= 32);
                self.place(p);
            }
            ExprKind::AddrOf(p) | ExprKind::Decay(p) => {
                self.written.extend(root(p));
                self.place(p);
            }
            ExprKind::Assign { place, value, .. } => {
                self.written.extend(root(place));
                self.place(place);
                self.expr(value);
            }
            ExprKind::Vector(v) | ExprKind::Aggregate(v) | ExprKind::Call(_, v) | ExprKind::Builtin(_, v) => v.iter().for_each(|e| self.expr(e)),
            ExprKind::Convert { value: a, .. }
            | ExprKind::Splat(a)
            | ExprKind::Bitcast(a)
            | ExprKind::PtrCast(a)
            | ExprKind::PtrToInt(a)
            | ExprKind::IntToPtr(a)
            | ExprKind::Unary(_, a)
            | ExprKind::Swizzle(a, _)
            | ExprKind::Member(a, _) => self.expr(a),
            ExprKind::Binary(_, a, b)
            | ExprKind::Compare(_, a, b)
            | ExprKind::Logic(_, a, b)
            | ExprKind::PtrAdd(a, b)
            | ExprKind::PtrDiff(a, b)
            | ExprKind::Comma(a, b)
            | ExprKind::Extract(a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Cond(c, a, b) => {
                self.expr(c);
                self.expr(a);
                self.expr(b);
            }
        }
    }

    fn place(&mut self, p: &Place) {
        match &p.kind {
            PlaceKind::Local(id) => _ = self.mentioned.insert(*id),
            PlaceKind::Constant(_) | PlaceKind::Workgroup(_) | PlaceKind::Global(_) => {}
            PlaceKind::Deref(e) => self.expr(e),
            PlaceKind::Member(p, _) | PlaceKind::Swizzle(p, _) => self.place(p),
            PlaceKind::Index(p, i) => {
                self.place(p);
                self.expr(i);
            }
        }
    }
}

/// The local a place lies in, if any.
fn root(p: &Place) -> Option<LocalId> {
    match &p.kind {
        PlaceKind::Local(id) => Some(*id),
        PlaceKind::Member(p, _) | PlaceKind::Swizzle(p, _) | PlaceKind::Index(p, _) => root(p),
        _ => None,
    }
}
