//! The C11 atomics of OpenCL C 2.0/3.0: the atomic types, `memory_order` and `memory_scope`
//! (declared before the program under `-cl-std=CL3.0`, as clang's headers declare them), and the atomic functions (`atomic_load`, `atomic_fetch_add_explicit`, ...,
//! `atomic_work_item_fence`).

use super::consteval::{eval, CValue, Num};
use super::model::{
    AtomicOp, Builtin, C11Op, Expr, ExprKind, FenceFlags, FenceKind, MemOrder, Quals, Scalar, Space, Type,
    CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE,
};
use super::scope::Symbol;
use super::Sema;
use crate::compiler::source::Loc;
use crate::compiler::Target;

/// `memory_order` values (clang's `__ATOMIC_*`); 1 would be C11's consume, which OpenCL C
/// does not have.
const ORDERS: [(&str, u64, MemOrder); 5] = [
    ("memory_order_relaxed", 0, MemOrder::Relaxed),
    ("memory_order_acquire", 2, MemOrder::Acquire),
    ("memory_order_release", 3, MemOrder::Release),
    ("memory_order_acq_rel", 4, MemOrder::AcqRel),
    ("memory_order_seq_cst", 5, MemOrder::SeqCst),
];

/// `memory_scope` values (clang's `__OPENCL_MEMORY_SCOPE_*`). `memory_scope_all_devices`
/// (and `_all_svm_devices`) belong to the optional feature
/// `__opencl_c_atomic_scope_all_devices`, which is not reported: there is no SVM, and naga
/// writes no scope wider than the device.
const WORK_ITEM: u64 = 0;
const SCOPES: [(&str, u64); 3] = [("memory_scope_work_item", WORK_ITEM), ("memory_scope_work_group", 1), ("memory_scope_device", 2)];

/// The atomic types the target has: 64-bit ones with 64-bit atomics (and `atomic_double`
/// with `double`), the pointer-sized ones where their width is available.
fn atomic_types(target: &Target) -> Vec<(&'static str, Scalar)> {
    use Scalar::*;
    let mut types = vec![("atomic_int", Int), ("atomic_uint", UInt), ("atomic_float", Float), ("atomic_flag", Int)];
    if target.int64_atomics {
        types.extend([("atomic_long", Long), ("atomic_ulong", ULong)]);
        if target.fp64 {
            types.push(("atomic_double", Double));
        }
    }
    let (size, diff) = if target.address_bits == 64 { (ULong, Long) } else { (UInt, Int) };
    if target.address_bits == 32 || target.int64_atomics {
        types.extend([("atomic_intptr_t", diff), ("atomic_uintptr_t", size), ("atomic_size_t", size), ("atomic_ptrdiff_t", diff)]);
    }
    types
}

/// The type names declared before the program (the parser must know them as types).
pub fn predeclared_types(cl_std: u32, target: &Target) -> Vec<&'static str> {
    if cl_std < 200 {
        return Vec::new();
    }
    let mut names: Vec<&str> = atomic_types(target).into_iter().map(|(n, _)| n).collect();
    names.extend(["memory_order", "memory_scope"]);
    names
}

/// How many arguments an atomic function takes before its orders and scope, and how many
/// orders its `_explicit` form takes.
fn c11_function(name: &str) -> Option<(C11Op, usize, usize)> {
    use AtomicOp::*;
    Some(match name {
        "atomic_store" => (C11Op::Store, 2, 1),
        "atomic_load" => (C11Op::Load, 1, 1),
        "atomic_exchange" => (C11Op::Rmw(Xchg), 2, 1),
        "atomic_compare_exchange_strong" | "atomic_compare_exchange_weak" => (C11Op::CompareExchange, 3, 2),
        "atomic_fetch_add" => (C11Op::Rmw(Add), 2, 1),
        "atomic_fetch_sub" => (C11Op::Rmw(Sub), 2, 1),
        "atomic_fetch_or" => (C11Op::Rmw(Or), 2, 1),
        "atomic_fetch_xor" => (C11Op::Rmw(Xor), 2, 1),
        "atomic_fetch_and" => (C11Op::Rmw(And), 2, 1),
        "atomic_fetch_min" => (C11Op::Rmw(Min), 2, 1),
        "atomic_fetch_max" => (C11Op::Rmw(Max), 2, 1),
        "atomic_flag_test_and_set" => (C11Op::TestAndSet, 1, 1),
        "atomic_flag_clear" => (C11Op::Clear, 1, 1),
        _ => return None,
    })
}

/// The memory a fence or an atomic on a pointer into `space` orders.
fn space_flags(space: Space) -> FenceFlags {
    match space {
        Space::Global => FenceFlags { local: false, global: true },
        Space::Local => FenceFlags { local: true, global: false },
        _ => FenceFlags { local: true, global: true },
    }
}

/// The order of a compare-exchange that succeeds with `success` and fails with `failure`:
/// one set of fences serves both outcomes.
fn combined(success: MemOrder, failure: MemOrder) -> MemOrder {
    match (success.max(failure), success.releases(), success.acquires() || failure.acquires()) {
        (MemOrder::SeqCst, ..) => MemOrder::SeqCst,
        (_, true, true) => MemOrder::AcqRel,
        (_, true, false) => MemOrder::Release,
        (_, false, true) => MemOrder::Acquire,
        _ => MemOrder::Relaxed,
    }
}

impl Sema<'_> {
    /// Declares the atomic types, `memory_order`, `memory_scope` and their enumerators at file
    /// scope (OpenCL C 2.0 and 3.0).
    pub(super) fn declare_atomics(&mut self) {
        if !self.is_cl2() {
            return;
        }
        for (name, s) in atomic_types(self.target) {
            self.scopes.declare(name, Symbol::Typedef(Type::Atomic(s), 0));
        }
        for name in ["memory_order", "memory_scope"] {
            self.scopes.declare(name, Symbol::Typedef(Type::Scalar(Scalar::Int), 0));
        }
        let enumerators = ORDERS.iter().map(|&(n, v, _)| (n, v)).chain(SCOPES);
        for (name, value) in enumerators {
            self.scopes.declare(name, Symbol::EnumConst(value, Scalar::Int));
        }
    }

    /// Whether `name` is a C11 atomic function of this language version.
    pub(super) fn is_c11_atomic(&self, name: &str) -> bool {
        let base = name.strip_suffix("_explicit").unwrap_or(name);
        self.is_cl2() && (matches!(name, "atomic_work_item_fence" | "atomic_init") || c11_function(base).is_some())
    }

    /// A call of C11 atomic function `name` (see [`Self::is_c11_atomic`]).
    pub(super) fn c11_atomic_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        match name {
            "atomic_work_item_fence" => return self.work_item_fence(name, args, loc),
            "atomic_init" => return self.atomic_init(name, args, loc),
            _ => {}
        }
        let (base, explicit) = match name.strip_suffix("_explicit") {
            Some(base) => (base, true),
            None => (name, false),
        };
        let (op, n, orders) = c11_function(base)?;
        self.c11_call(op, name, n, explicit.then_some(orders), args, loc)
    }

    /// `op` with its `n` operands, then `orders` memory orders and an optional scope (for an
    /// `_explicit` form; otherwise seq_cst, device scope).
    fn c11_call(&mut self, op: C11Op, name: &str, n: usize, orders: Option<usize>, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let allowed = match orders {
            Some(k) => n + k..=n + k + 1,
            None => n..=n,
        };
        if !allowed.contains(&args.len()) {
            let counts = if allowed.start() == allowed.end() { format!("{n}") } else { format!("{} or {}", allowed.start(), allowed.end()) };
            return self.err(loc, format!("'{name}' takes {counts} arguments, but {} were given", args.len()));
        }
        let mut extra = args.split_off(n);
        // Orders and scopes that are not constants are still evaluated (first).
        let mut effects = Vec::new();
        if extra.len() > orders.unwrap_or(0) {
            let scope = extra.pop()?;
            self.scope_arg(scope, name, &mut effects)?;
        }
        let mut order = MemOrder::SeqCst;
        let mut given = extra.into_iter();
        if let Some(first) = given.next() {
            order = self.order_arg(first, name, &mut effects)?;
        }
        if let Some(failure) = given.next() {
            let failure = self.order_arg(failure, name, &mut effects)?;
            order = combined(order, failure);
        }
        let mut operands = args.into_iter();
        let object = operands.next()?;
        let (s, flags) = self.atomic_object(name, &object, loc)?;
        let value = Type::Scalar(s);
        let mut converted = vec![object];
        let ty = match op {
            C11Op::Load => value.clone(),
            C11Op::Init | C11Op::Store => Type::Void,
            C11Op::Rmw(AtomicOp::Xchg) => value.clone(),
            // cl_ext_float_atomics: add, sub, min and max of floats and doubles.
            C11Op::Rmw(AtomicOp::Add | AtomicOp::Sub | AtomicOp::Min | AtomicOp::Max) if matches!(s, Scalar::Float | Scalar::Double) => value.clone(),
            C11Op::Rmw(_) if !s.is_integer() => {
                return self.err(loc, format!("'{name}' takes an integer atomic type, not '{}'", self.type_str(&Type::Atomic(s))));
            }
            C11Op::Rmw(_) => value.clone(),
            C11Op::CompareExchange => {
                let expected = operands.next()?;
                let to = Type::Pointer { pointee: Box::new(value.clone()), space: Space::Generic, quals: Quals::default() };
                converted.push(self.assign_convert(expected, &to, &format!("argument 2 of '{name}'"))?);
                Type::Scalar(Scalar::Bool)
            }
            C11Op::TestAndSet | C11Op::Clear if s != Scalar::Int => {
                return self.err(loc, format!("'{name}' needs a pointer to atomic_flag, not to '{}'", self.type_str(&Type::Atomic(s))));
            }
            C11Op::TestAndSet => Type::Scalar(Scalar::Bool),
            C11Op::Clear => Type::Void,
        };
        for a in operands {
            let position = converted.len() + 1;
            converted.push(self.assign_convert(a, &value, &format!("argument {position} of '{name}'"))?);
        }
        let call = Expr { kind: ExprKind::Builtin(Builtin::C11Atomic(op, order, flags), converted), ty, loc };
        Some(with_effects(effects, call))
    }

    /// `atomic_init(obj, value)`: a plain store of the initial value.
    fn atomic_init(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 2, loc)?;
        let mut args = args.into_iter();
        let (object, value) = (args.next()?, args.next()?);
        let (s, _) = self.atomic_object(name, &object, loc)?;
        let value = self.assign_convert(value, &Type::Scalar(s), &format!("argument 2 of '{name}'"))?;
        let b = Builtin::C11Atomic(C11Op::Init, MemOrder::Relaxed, FenceFlags::default());
        Some(Expr { kind: ExprKind::Builtin(b, vec![object, value]), ty: Type::Void, loc })
    }

    /// `atomic_work_item_fence(flags, order, scope)`: a memory fence on the memory `flags`
    /// names, nothing for a relaxed order or the work-item scope (a work-item's own accesses
    /// to global and local memory are in program order already).
    fn work_item_fence(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 3, loc)?;
        let mut args = args.into_iter();
        let (flags, order, scope) = (args.next()?, args.next()?, args.next()?);
        let bits = match eval(&flags) {
            Ok(CValue::Num(Num::I(v))) => v,
            _ => return self.err(flags.loc, format!("the flags of '{name}' must be a constant (CLK_LOCAL_MEM_FENCE, CLK_GLOBAL_MEM_FENCE, CLK_IMAGE_MEM_FENCE)")),
        };
        let mut effects = Vec::new();
        let order = self.order_arg(order, name, &mut effects)?;
        let scope = self.scope_arg(scope, name, &mut effects)?;
        let fence = order != MemOrder::Relaxed && scope != Some(WORK_ITEM);
        let flags = FenceFlags {
            local: fence && bits & i128::from(CLK_LOCAL_MEM_FENCE as u8) != 0,
            global: fence && bits & i128::from(CLK_GLOBAL_MEM_FENCE as u8) != 0,
        };
        let call = Expr { kind: ExprKind::Builtin(Builtin::Fence(FenceKind::Full, flags), vec![]), ty: Type::Void, loc };
        Some(with_effects(effects, call))
    }

    /// The value type of the atomic object `p` points to, and the memory its orders apply to.
    fn atomic_object(&mut self, name: &str, p: &Expr, loc: Loc) -> Option<(Scalar, FenceFlags)> {
        let Type::Pointer { pointee, space, quals } = &p.ty else {
            return self.err(loc, format!("the first argument of '{name}' must be a pointer to an atomic type, not '{}'", self.type_str(&p.ty)));
        };
        let Type::Atomic(s) = **pointee else {
            return self.err(
                loc,
                format!("the first argument of '{name}' must point to an atomic type (atomic_int, atomic_uint, ...), not '{}'", self.type_str(&p.ty)),
            );
        };
        if *space == Space::Constant || quals.is_const {
            return self.err(loc, format!("'{name}' cannot modify or read atomically through '{}'", self.type_str(&p.ty)));
        }
        Some((s, space_flags(*space)))
    }

    /// A `memory_order` argument: its order if it is a constant, else seq_cst (the argument
    /// then goes to `effects`).
    fn order_arg(&mut self, e: Expr, name: &str, effects: &mut Vec<Expr>) -> Option<MemOrder> {
        match self.enum_arg(e, name, "memory order", effects)? {
            None => Some(MemOrder::SeqCst),
            Some((v, loc)) => match ORDERS.iter().find(|o| o.1 == v) {
                Some(&(_, _, order)) => Some(order),
                None => self.err(loc, format!("{v} is not a memory_order of OpenCL C (memory_order_relaxed, _acquire, _release, _acq_rel, _seq_cst)")),
            },
        }
    }

    /// A `memory_scope` argument: its value if it is a constant.
    fn scope_arg(&mut self, e: Expr, name: &str, effects: &mut Vec<Expr>) -> Option<Option<u64>> {
        match self.enum_arg(e, name, "memory scope", effects)? {
            None => Some(None),
            Some((v, _)) if SCOPES.iter().any(|s| s.1 == v) => Some(Some(v)),
            Some((v, loc)) => self.err(loc, format!("{v} is not a memory_scope this device supports (memory_scope_work_item, _work_group, _device)")),
        }
    }

    /// An integer argument's constant value, or `None` after putting it in `effects`.
    fn enum_arg(&mut self, e: Expr, name: &str, what: &str, effects: &mut Vec<Expr>) -> Option<Option<(u64, Loc)>> {
        if !e.ty.scalar().is_some_and(Scalar::is_integer) {
            return self.err(e.loc, format!("the {what} of '{name}' must be an integer, not '{}'", self.type_str(&e.ty)));
        }
        match eval(&e) {
            Ok(CValue::Num(Num::I(v))) => Some(Some((u64::try_from(v).unwrap_or(u64::MAX), e.loc))),
            _ => {
                effects.push(e);
                Some(None)
            }
        }
    }
}

/// `(effects..., call)`.
fn with_effects(effects: Vec<Expr>, call: Expr) -> Expr {
    effects.into_iter().rev().fold(call, |acc, e| {
        let (ty, loc) = (acc.ty.clone(), acc.loc);
        Expr { kind: ExprKind::Comma(Box::new(e), Box::new(acc)), ty, loc }
    })
}
