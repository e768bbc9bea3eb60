//! A thin layer over naga's function arenas: appends expressions and wraps them in `Emit`
//! statements when a statement needs them, keeps the stack of nested blocks being filled, and
//! interns types. It also keeps naga's constant evaluator away from operations (see
//! [`FnBuilder::expr`]).

use naga::{
    BinaryOperator, Block, Expression, Function, Handle, Literal, LocalVariable, Module, Scalar,
    ScalarKind, Span, Statement, Type, TypeInner, VectorSize,
};
use std::collections::HashMap;

/// Interns `inner` (anonymous) in the module's type arena.
pub fn intern(module: &mut Module, inner: TypeInner) -> Handle<Type> {
    module.types.insert(Type { name: None, inner }, Span::UNDEFINED)
}

/// `value` as a literal of numeric scalar `scalar`: integers wrap to its width (-1 is all
/// ones), floats take the nearest value.
pub fn literal(scalar: Scalar, value: i64) -> Literal {
    match (scalar.kind, scalar.width) {
        (naga::ScalarKind::Sint, 8) => Literal::I64(value),
        (naga::ScalarKind::Sint, _) => Literal::I32(value as i32),
        (naga::ScalarKind::Uint, 8) => Literal::U64(value as u64),
        (naga::ScalarKind::Float, 8) => Literal::F64(value as f64),
        (naga::ScalarKind::Float, _) => Literal::F32(value as f32),
        _ => Literal::U32(value as u32),
    }
}

pub fn scalar_ty(module: &mut Module, scalar: Scalar) -> Handle<Type> {
    intern(module, TypeInner::Scalar(scalar))
}

/// Expressions one narrowing may visit: enough for index arithmetic, bounded where a shared
/// subexpression makes a tree of a DAG.
const NARROWING_BUDGET: u32 = 64;

/// The function being built.
pub struct FnBuilder {
    pub func: Function,
    /// Blocks being filled, innermost last; the function body is the first.
    blocks: Vec<Block>,
    /// First expression not yet covered by an `Emit`.
    pending: Option<Handle<Expression>>,
    /// Per expression: a constant for naga (a literal, a zero value, an override, or a splat or
    /// composite of constants), which its constant evaluator will evaluate at specialisation.
    constant: Vec<bool>,
    /// 64-bit integers made by widening a 32-bit one: the 32-bit value and its kind (see
    /// [`Self::narrowed`]).
    widened: HashMap<Handle<Expression>, (Handle<Expression>, ScalarKind)>,
    /// `half` register values (f32) read from bits: the bits (a u32 below 2^16), so that
    /// storing such a value again writes them without a round trip (`Ctx::half_to_bits`).
    pub half_bits: HashMap<Handle<Expression>, Handle<Expression>>,
    /// 32-bit copies of 64-bit integer variables (see [`Self::shadow`]).
    shadows: HashMap<Handle<LocalVariable>, Handle<LocalVariable>>,
}

impl FnBuilder {
    pub fn new(name: &str) -> Self {
        FnBuilder {
            func: Function { name: Some(name.to_string()), ..Function::default() },
            blocks: vec![Block::new()],
            pending: None,
            constant: Vec::new(),
            widened: HashMap::new(),
            half_bits: HashMap::new(),
            shadows: HashMap::new(),
        }
    }

    /// Appends an expression, to be emitted before the next statement if it needs it.
    ///
    /// An operation whose operands are all constants is computed here, or else made a run-time
    /// operation by passing an operand through [`Self::opaque`]: naga's constant evaluator must
    /// never see one. `specialize` runs it (`process_overrides`) on every expression, and
    /// - it rejects what has no defined value (`1 / 0`, `INT_MIN / -1`, `1.0f / 0.0f`, `sqrt(-1)`,
    ///   an index out of bounds) and calls the wrapping of `1 << 31` an overflow, though such an
    ///   operation may lie in code that never runs;
    /// - it replaces an access into a constant vector by the component's expression, which
    ///   may be older than the access: `Emit` ranges are remapped through their first and last
    ///   expressions, so one ending with such an access collapsed and left the run-time
    ///   expressions in it unemitted (the spv writer panicked: "Expression [N] is not cached"),
    ///   and a component emitted already was emitted twice;
    /// - it cannot apply every function to every type (f64 among them).
    ///
    /// Splats and composites of constants stay: it evaluates them into new expressions. A
    /// constant integer divisor with a zero in it is made opaque too: naga's validator rejects
    /// it even when the dividend is not constant.
    pub fn expr(&mut self, e: Expression) -> Handle<Expression> {
        let e = if self.is_constant_operation(&e) {
            match self.fold(&e) {
                Some(folded) => return folded,
                None => self.with_opaque_operand(e),
            }
        } else {
            self.with_nonzero_divisor(e)
        };
        self.append(e)
    }

    fn append(&mut self, e: Expression) -> Handle<Expression> {
        let pre_emitted = e.needs_pre_emit() || is_statement_result(&e);
        if pre_emitted {
            self.flush();
        }
        let constant = match &e {
            Expression::Literal(_) | Expression::ZeroValue(_) | Expression::Constant(_) | Expression::Override(_) => true,
            Expression::Splat { value, .. } => self.is_constant(*value),
            Expression::Compose { components, .. } => components.iter().all(|c| self.is_constant(*c)),
            _ => false,
        };
        let h = self.func.expressions.append(e, Span::UNDEFINED);
        self.constant.push(constant);
        if !pre_emitted && self.pending.is_none() {
            self.pending = Some(h);
        }
        h
    }

    /// True for a constant in naga's sense (see `constant`).
    pub fn is_constant(&self, e: Handle<Expression>) -> bool {
        self.constant.get(e.index()).copied().unwrap_or(false)
    }

    /// True for an operation naga's constant evaluator would evaluate: all its operands are
    /// constants. (A bitcast never is: naga's evaluator leaves bitcasts to run time.)
    fn is_constant_operation(&self, e: &Expression) -> bool {
        let c = |h: &Handle<Expression>| self.is_constant(*h);
        match e {
            Expression::AccessIndex { base: h, .. }
            | Expression::Swizzle { vector: h, .. }
            | Expression::Unary { expr: h, .. }
            | Expression::As { expr: h, convert: Some(_), .. }
            | Expression::Relational { argument: h, .. } => c(h),
            Expression::Access { base, index } => c(base) && c(index),
            Expression::Binary { left, right, .. } => c(left) && c(right),
            Expression::Math { arg, arg1, arg2, arg3, .. } => c(arg) && [arg1, arg2, arg3].into_iter().flatten().all(c),
            Expression::Select { condition, accept, reject } => c(condition) && c(accept) && c(reject),
            _ => false,
        }
    }

    /// The value of operation `e` on constants, when it is defined and computed here.
    fn fold(&mut self, e: &Expression) -> Option<Handle<Expression>> {
        let literal = |b: &Self, h: Handle<Expression>| match b.func.expressions[h] {
            Expression::Literal(l) => Some(l),
            _ => None,
        };
        let splat = |b: &Self, h: Handle<Expression>| match b.func.expressions[h] {
            Expression::Splat { size, value } => Some((size, value)),
            _ => None,
        };
        match *e {
            Expression::Binary { op, left, right } => {
                if let (Some(a), Some(b)) = (literal(self, left), literal(self, right)) {
                    return Some(self.lit(super::fold::binary(op, a, b)?));
                }
                // Component-wise on splats (a scalar operand counts as a splat).
                let (size, a, b) = match (splat(self, left), splat(self, right)) {
                    (Some((n, a)), Some((m, b))) if n == m => (n, a, b),
                    (Some((n, a)), None) => (n, a, right),
                    (None, Some((n, b))) => (n, left, b),
                    _ => return None,
                };
                let (a, b) = (literal(self, a)?, literal(self, b)?);
                let v = self.lit(super::fold::binary(op, a, b)?);
                Some(self.splat(size, v))
            }
            Expression::Unary { op, expr } => self.fold_scalar(expr, |l| super::fold::unary(op, l)),
            Expression::As { expr, kind, convert } => self.fold_scalar(expr, |l| super::fold::cast(l, kind, convert)),
            Expression::Math { fun, arg, arg1: None, .. } => self.fold_scalar(arg, |l| super::fold::math(fun, l)),
            Expression::AccessIndex { base, index } => self.constant_component(base, index),
            Expression::Access { base, index } => match literal(self, index)? {
                Literal::U32(i) => self.constant_component(base, i),
                Literal::I32(i) => self.constant_component(base, u32::try_from(i).ok()?),
                _ => None,
            },
            Expression::Swizzle { size, vector, .. } => splat(self, vector).map(|(_, v)| self.splat(size, v)),
            Expression::Select { condition, accept, reject } => match literal(self, condition)? {
                Literal::Bool(c) => Some(if c { accept } else { reject }),
                _ => None,
            },
            _ => None,
        }
    }

    /// `f` applied to the literal `e`, or to every component of a splat of one.
    fn fold_scalar(&mut self, e: Handle<Expression>, f: impl Fn(Literal) -> Option<Literal>) -> Option<Handle<Expression>> {
        match self.func.expressions[e] {
            Expression::Literal(l) => Some(self.lit(f(l)?)),
            Expression::Splat { size, value } => match self.func.expressions[value] {
                Expression::Literal(l) => {
                    let v = self.lit(f(l)?);
                    Some(self.splat(size, v))
                }
                _ => None,
            },
            _ => None,
        }
    }

    /// Component `i` of the constant `base`: a splat, or a composite of literals (a vector or
    /// array of scalars).
    fn constant_component(&mut self, base: Handle<Expression>, i: u32) -> Option<Handle<Expression>> {
        match &self.func.expressions[base] {
            Expression::Splat { size, value } => Some(*value).filter(|_| i < *size as u32),
            Expression::Compose { components, .. } => {
                let all_literals = components.iter().all(|c| matches!(self.func.expressions[*c], Expression::Literal(_)));
                components.get(i as usize).copied().filter(|_| all_literals)
            }
            _ => None,
        }
    }

    /// Operation `e` (on constants only) with one operand made opaque.
    fn with_opaque_operand(&mut self, mut e: Expression) -> Expression {
        match &mut e {
            Expression::Binary { right: h, .. }
            | Expression::Access { index: h, .. }
            | Expression::AccessIndex { base: h, .. }
            | Expression::Swizzle { vector: h, .. }
            | Expression::Unary { expr: h, .. }
            | Expression::As { expr: h, .. }
            | Expression::Relational { argument: h, .. }
            | Expression::Math { arg: h, .. }
            | Expression::Select { condition: h, .. } => *h = self.opaque(*h),
            _ => {}
        }
        e
    }

    /// `e` with a constant integer divisor that has a zero in it made opaque.
    fn with_nonzero_divisor(&mut self, mut e: Expression) -> Expression {
        if let Expression::Binary { op: naga::BinaryOperator::Divide | naga::BinaryOperator::Modulo, right, .. } = &mut e {
            if self.has_integer_zero(*right) {
                *right = self.opaque(*right);
            }
        }
        e
    }

    /// True when the constant `e` is or contains an integer zero (or a zero value).
    fn has_integer_zero(&self, e: Handle<Expression>) -> bool {
        match &self.func.expressions[e] {
            Expression::Literal(l) => matches!(l, Literal::I32(0) | Literal::U32(0) | Literal::I64(0) | Literal::U64(0)),
            Expression::ZeroValue(_) => true,
            Expression::Splat { value, .. } => self.has_integer_zero(*value),
            Expression::Compose { components, .. } => components.iter().any(|c| self.has_integer_zero(*c)),
            _ => false,
        }
    }

    /// The constant `e` as a run-time value: naga neither evaluates nor checks what is built
    /// on it. A scalar passes through a bitcast to its own type (the spv writer writes
    /// nothing for it, so the SPIR-V still uses the constant); a composite or zero value, whose
    /// type may be any, through a private variable. The lowering's overrides are all `u32`.
    pub fn opaque(&mut self, e: Handle<Expression>) -> Handle<Expression> {
        let bitcast = |b: &mut Self, kind| b.append(Expression::As { expr: e, kind, convert: None });
        match self.func.expressions[e] {
            Expression::Literal(l) => bitcast(self, l.scalar().kind),
            Expression::Override(_) => bitcast(self, naga::ScalarKind::Uint),
            Expression::Splat { size, value } => {
                let v = self.opaque(value);
                self.splat(size, v)
            }
            Expression::Compose { ty, .. } | Expression::ZeroValue(ty) => {
                let var = self.local("constant", ty);
                let ptr = self.append(Expression::LocalVariable(var));
                self.store(ptr, e);
                self.load(ptr)
            }
            _ => e,
        }
    }

    fn flush(&mut self) {
        let Some(first) = self.pending.take() else { return };
        let range = self.func.expressions.range_from(first.index());
        self.current().push(Statement::Emit(range), Span::UNDEFINED);
    }

    fn current(&mut self) -> &mut Block {
        if self.blocks.is_empty() {
            self.blocks.push(Block::new());
        }
        let last = self.blocks.len() - 1;
        &mut self.blocks[last]
    }

    pub fn stmt(&mut self, s: Statement) {
        self.flush();
        self.current().push(s, Span::UNDEFINED);
    }

    /// Starts a nested block (an `if` arm, a loop body, a switch case).
    pub fn open(&mut self) {
        self.flush();
        self.blocks.push(Block::new());
    }

    /// Ends the innermost nested block and returns it.
    pub fn close(&mut self) -> Block {
        self.flush();
        if self.blocks.len() > 1 {
            self.blocks.pop().unwrap_or_default()
        } else {
            Block::new()
        }
    }

    /// True when the innermost block already ends in a jump (nothing after it may be added).
    pub fn terminated(&self) -> bool {
        self.blocks.last().and_then(|b| b.last()).is_some_and(|s| {
            matches!(
                s,
                Statement::Break | Statement::Continue | Statement::Return { .. } | Statement::Kill
            )
        })
    }

    pub fn local(&mut self, name: &str, ty: Handle<Type>) -> Handle<LocalVariable> {
        let var = LocalVariable { name: Some(name.to_string()), ty, init: None };
        self.func.local_variables.append(var, Span::UNDEFINED)
    }

    /// Finishes the function.
    pub fn finish(mut self) -> Function {
        self.flush();
        while self.blocks.len() > 1 {
            let inner = self.close();
            self.current().push(Statement::Block(inner), Span::UNDEFINED);
        }
        self.func.body = self.blocks.pop().unwrap_or_default();
        self.func
    }

    // Shorthands for the expressions the lowering builds most.

    pub fn lit(&mut self, l: Literal) -> Handle<Expression> {
        self.expr(Expression::Literal(l))
    }

    pub fn u32(&mut self, v: u32) -> Handle<Expression> {
        self.lit(Literal::U32(v))
    }

    pub fn i32(&mut self, v: i32) -> Handle<Expression> {
        self.lit(Literal::I32(v))
    }

    /// A float constant; naga rejects non-finite literals, so infinities and NaNs are made
    /// by reinterpreting their bits.
    pub fn float(&mut self, v: f64, double: bool) -> Handle<Expression> {
        // (A finite double may round to an infinite float.)
        let finite = if double { v.is_finite() } else { (v as f32).is_finite() };
        match (finite, double) {
            (true, true) => self.lit(Literal::F64(v)),
            (true, false) => self.lit(Literal::F32(v as f32)),
            (false, true) => {
                let bits = self.lit(Literal::U64(v.to_bits()));
                self.cast(bits, naga::ScalarKind::Float, None)
            }
            (false, false) => {
                let bits = self.u32((v as f32).to_bits());
                self.cast(bits, naga::ScalarKind::Float, None)
            }
        }
    }

    pub fn binary(
        &mut self,
        op: naga::BinaryOperator,
        left: Handle<Expression>,
        right: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(Expression::Binary { op, left, right })
    }

    pub fn unary(&mut self, op: naga::UnaryOperator, expr: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Unary { op, expr })
    }

    pub fn load(&mut self, pointer: Handle<Expression>) -> Handle<Expression> {
        let value = self.expr(Expression::Load { pointer });
        // A shadowed variable's copy is read at the same point, for narrowing the value.
        if let Some(shadow) = self.shadow_of(pointer) {
            let p = self.expr(Expression::LocalVariable(shadow));
            let low = self.expr(Expression::Load { pointer: p });
            self.widened.insert(value, (low, ScalarKind::Uint));
        }
        value
    }

    pub fn store(&mut self, pointer: Handle<Expression>, value: Handle<Expression>) {
        self.stmt(Statement::Store { pointer, value });
        if let Some(shadow) = self.shadow_of(pointer) {
            let low = self.cast(value, ScalarKind::Uint, Some(4));
            let p = self.expr(Expression::LocalVariable(shadow));
            self.stmt(Statement::Store { pointer: p, value: low });
        }
    }

    /// Gives `var`, a 64-bit integer scalar variable just initialised with `value`, a 32-bit copy of
    /// its low bits (of type `u32_ty`) where `value` narrows, kept by every later store to the
    /// variable; loads of it then narrow through the copy. So a `size_t` variable set from
    /// work-item ids and used as an index stays 32-bit arithmetic. Only at the declaration,
    /// whose store comes before every load in program order; an addressed variable lives in
    /// the private arena, whose stores do not come here, and is never given one.
    pub fn shadow(&mut self, var: Handle<LocalVariable>, value: Handle<Expression>, u32_ty: Handle<Type>) {
        if self.shadows.contains_key(&var) {
            return;
        }
        let Some(low) = self.narrowed(value, &mut { NARROWING_BUDGET }) else { return };
        let name = self.func.local_variables[var].name.clone().unwrap_or_default();
        let shadow = self.local(&format!("{name}_low"), u32_ty);
        let p = self.expr(Expression::LocalVariable(shadow));
        self.stmt(Statement::Store { pointer: p, value: low });
        self.shadows.insert(var, shadow);
    }

    fn shadow_of(&self, pointer: Handle<Expression>) -> Option<Handle<LocalVariable>> {
        match self.func.expressions[pointer] {
            Expression::LocalVariable(var) => self.shadows.get(&var).copied(),
            _ => None,
        }
    }

    pub fn index(&mut self, base: Handle<Expression>, index: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Access { base, index })
    }

    pub fn member(&mut self, base: Handle<Expression>, index: u32) -> Handle<Expression> {
        self.expr(Expression::AccessIndex { base, index })
    }

    /// The `n` components of `v` where it is a composition of exactly `n` values (so each is
    /// one component): taking them apart again then costs nothing.
    pub fn composed_of(&self, v: Handle<Expression>, n: usize) -> Option<Vec<Handle<Expression>>> {
        match &self.func.expressions[v] {
            Expression::Compose { components, .. } if components.len() == n => Some(components.clone()),
            _ => None,
        }
    }

    /// Numeric conversion (`convert: Some(width)`) or bit cast (`None`) to `kind`.
    pub fn cast(
        &mut self,
        expr: Handle<Expression>,
        kind: naga::ScalarKind,
        convert: Option<u8>,
    ) -> Handle<Expression> {
        // Folded here for bitcasts too, which `expr` leaves alone.
        if let Expression::Literal(l) = self.func.expressions[expr] {
            if let Some(folded) = super::fold::cast(l, kind, convert) {
                return self.lit(folded);
            }
        }
        if convert == Some(4) && matches!(kind, ScalarKind::Sint | ScalarKind::Uint) {
            // Computed unsigned: the low bits of a 64-bit sum may wrap as an `int`, which
            // signed arithmetic must not (see `spirv::decorate`).
            if let Some(narrow) = self.narrowed(expr, &mut { NARROWING_BUDGET }) {
                return if kind == ScalarKind::Uint { narrow } else { self.expr(Expression::As { expr: narrow, kind, convert: None }) };
            }
        }
        self.expr(Expression::As { expr, kind, convert })
    }

    /// The 32-bit integer `narrow` (of `from` kind) as a 64-bit one of `kind`, by sign- or
    /// zero-extension as `from` says; remembered so that narrowing it back is free.
    pub fn widen(&mut self, narrow: Handle<Expression>, from: ScalarKind, kind: ScalarKind) -> Handle<Expression> {
        let resized = self.cast(narrow, from, Some(8));
        let wide = if from == kind { resized } else { self.cast(resized, kind, None) };
        for h in [resized, wide] {
            if !self.is_constant(h) {
                self.widened.insert(h, (narrow, from));
            }
        }
        wide
    }

    /// The low 32 bits of the 64-bit integer `e` as a `u32`, computed in unsigned 32-bit
    /// arithmetic (whose wrapping is defined, see `spirv::decorate`), where `e` is
    /// built by wrapping operations (`+ - * & | ^`, whose low bits depend only on their
    /// operands' low bits) on at least one widened 32-bit integer or 64-bit literal. `size_t`
    /// arithmetic on work-item ids and `int` counters is such code; a loop counter widened,
    /// added and narrowed every iteration kept NVIDIA's compiler from unrolling the loop.
    /// None where `e` is not known to be such a 64-bit integer, or `budget` nodes are spent.
    fn narrowed(&mut self, e: Handle<Expression>, budget: &mut u32) -> Option<Handle<Expression>> {
        use BinaryOperator as B;
        let kind = ScalarKind::Uint;
        *budget = budget.checked_sub(1)?;
        if let Some(&(narrow, from)) = self.widened.get(&e) {
            return Some(if from == kind { narrow } else { self.expr(Expression::As { expr: narrow, kind, convert: None }) });
        }
        match self.func.expressions[e] {
            Expression::Literal(Literal::I64(v)) => Some(self.lit(literal(Scalar { kind, width: 4 }, v))),
            Expression::Literal(Literal::U64(v)) => Some(self.lit(literal(Scalar { kind, width: 4 }, v as i64))),
            Expression::Splat { size, value } => {
                let v = self.narrowed(value, budget)?;
                Some(self.splat(size, v))
            }
            Expression::As { expr, kind: ScalarKind::Sint | ScalarKind::Uint, convert: None } => self.narrowed(expr, budget),
            Expression::Binary { op: op @ (B::Add | B::Subtract | B::Multiply | B::And | B::InclusiveOr | B::ExclusiveOr), left, right } => {
                let (l, r) = (self.narrowed(left, budget), self.narrowed(right, budget));
                if l.is_none() && r.is_none() {
                    return None;
                }
                // The other operand has the same 64-bit integer type: truncated.
                let truncated = |b: &mut Self, n: Option<Handle<Expression>>, wide| n.unwrap_or_else(|| b.expr(Expression::As { expr: wide, kind, convert: Some(4) }));
                let (left, right) = (truncated(self, l, left), truncated(self, r, right));
                Some(self.expr(Expression::Binary { op, left, right }))
            }
            _ => None,
        }
    }

    pub fn math(
        &mut self,
        fun: naga::MathFunction,
        args: &[Handle<Expression>],
    ) -> Handle<Expression> {
        let mut it = args.iter().copied();
        let arg = it.next().unwrap_or_else(|| self.u32(0));
        self.expr(Expression::Math { fun, arg, arg1: it.next(), arg2: it.next(), arg3: it.next() })
    }

    pub fn select(
        &mut self,
        condition: Handle<Expression>,
        accept: Handle<Expression>,
        reject: Handle<Expression>,
    ) -> Handle<Expression> {
        self.expr(Expression::Select { condition, accept, reject })
    }

    pub fn splat(&mut self, size: VectorSize, value: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Splat { size, value })
    }

    pub fn compose(&mut self, ty: Handle<Type>, components: Vec<Handle<Expression>>) -> Handle<Expression> {
        self.expr(Expression::Compose { ty, components })
    }

    /// `if cond { accept } else { reject }` where both arms are built by the closures.
    pub fn if_else(
        &mut self,
        condition: Handle<Expression>,
        accept: impl FnOnce(&mut Self),
        reject: impl FnOnce(&mut Self),
    ) {
        self.open();
        accept(self);
        let accept = self.close();
        self.open();
        reject(self);
        let reject = self.close();
        self.stmt(Statement::If { condition, accept, reject });
    }
}

/// Expressions produced by a statement: never part of an `Emit` range.
fn is_statement_result(e: &Expression) -> bool {
    matches!(
        e,
        Expression::CallResult(_)
            | Expression::AtomicResult { .. }
            | Expression::WorkGroupUniformLoadResult { .. }
            | Expression::SubgroupBallotResult
            | Expression::SubgroupOperationResult { .. }
    )
}
