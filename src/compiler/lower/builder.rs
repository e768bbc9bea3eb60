//! A thin layer over naga's function arenas: appends expressions and wraps them in `Emit`
//! statements when a statement needs them, keeps the stack of nested blocks being filled, and
//! interns types.

use naga::{
    Block, Expression, Function, Handle, Literal, LocalVariable, Module, Scalar, Span, Statement,
    Type, TypeInner, VectorSize,
};

/// Interns `inner` (anonymous) in the module's type arena.
pub fn intern(module: &mut Module, inner: TypeInner) -> Handle<Type> {
    module.types.insert(Type { name: None, inner }, Span::UNDEFINED)
}

pub fn scalar_ty(module: &mut Module, scalar: Scalar) -> Handle<Type> {
    intern(module, TypeInner::Scalar(scalar))
}

/// The function being built.
pub struct FnBuilder {
    pub func: Function,
    /// Blocks being filled, innermost last; the function body is the first.
    blocks: Vec<Block>,
    /// First expression not yet covered by an `Emit`.
    pending: Option<Handle<Expression>>,
}

impl FnBuilder {
    pub fn new(name: &str) -> Self {
        FnBuilder {
            func: Function { name: Some(name.to_string()), ..Function::default() },
            blocks: vec![Block::new()],
            pending: None,
        }
    }

    /// Appends an expression, to be emitted before the next statement if it needs it.
    pub fn expr(&mut self, e: Expression) -> Handle<Expression> {
        let pre_emitted = e.needs_pre_emit() || is_statement_result(&e);
        if pre_emitted {
            self.flush();
        }
        let h = self.func.expressions.append(e, Span::UNDEFINED);
        if !pre_emitted && self.pending.is_none() {
            self.pending = Some(h);
        }
        h
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
        match (v.is_finite(), double) {
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
        // Float arithmetic of literals is folded here so that functions applied to the result
        // fold too (naga's evaluator cannot apply every function to f64 constants).
        if let (Expression::Literal(a), Expression::Literal(b)) = (&self.func.expressions[left], &self.func.expressions[right]) {
            if let Some(l) = fold_float_binary(op, *a, *b) {
                return self.lit(l);
            }
        }
        self.expr(Expression::Binary { op, left, right })
    }

    pub fn unary(&mut self, op: naga::UnaryOperator, expr: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Unary { op, expr })
    }

    pub fn load(&mut self, pointer: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Load { pointer })
    }

    pub fn store(&mut self, pointer: Handle<Expression>, value: Handle<Expression>) {
        self.stmt(Statement::Store { pointer, value });
    }

    pub fn index(&mut self, base: Handle<Expression>, index: Handle<Expression>) -> Handle<Expression> {
        self.expr(Expression::Access { base, index })
    }

    pub fn member(&mut self, base: Handle<Expression>, index: u32) -> Handle<Expression> {
        self.expr(Expression::AccessIndex { base, index })
    }

    /// Numeric conversion (`convert: Some(width)`) or bit cast (`None`) to `kind`.
    pub fn cast(
        &mut self,
        expr: Handle<Expression>,
        kind: naga::ScalarKind,
        convert: Option<u8>,
    ) -> Handle<Expression> {
        // Fold literals: naga's constant evaluator (re-run at specialisation) cannot convert
        // every literal, e.g. u64 → u32.
        if let Expression::Literal(l) = self.func.expressions[expr] {
            if let Some(folded) = fold_cast(l, kind, convert) {
                return self.lit(folded);
            }
        }
        self.expr(Expression::As { expr, kind, convert })
    }

    pub fn math(
        &mut self,
        fun: naga::MathFunction,
        args: &[Handle<Expression>],
    ) -> Handle<Expression> {
        let mut it = args.iter().copied();
        let arg = it.next().unwrap_or_else(|| self.u32(0));
        // Fold one-argument functions of constants here: naga's constant evaluator, re-run at
        // specialisation, cannot apply every function to every type (f64 among them).
        if args.len() == 1 {
            if let Some(folded) = self.fold_math(fun, arg) {
                return folded;
            }
        }
        self.expr(Expression::Math { fun, arg, arg1: it.next(), arg2: it.next(), arg3: it.next() })
    }

    /// `fun(e)` computed here when `e` is a float constant (or a splat of one).
    fn fold_math(&mut self, fun: naga::MathFunction, e: Handle<Expression>) -> Option<Handle<Expression>> {
        use naga::MathFunction as M;
        let f: fn(f64) -> f64 = match fun {
            M::Abs => f64::abs,
            M::Trunc => f64::trunc,
            M::Floor => f64::floor,
            M::Ceil => f64::ceil,
            M::Round => f64::round_ties_even,
            _ => return None,
        };
        match self.func.expressions[e] {
            // These functions are exact in either width.
            Expression::Literal(Literal::F32(v)) => Some(self.lit(Literal::F32(f(f64::from(v)) as f32))),
            Expression::Literal(Literal::F64(v)) => Some(self.lit(Literal::F64(f(v)))),
            Expression::Splat { size, value } => {
                let folded = self.fold_math(fun, value)?;
                Some(self.splat(size, folded))
            }
            _ => None,
        }
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

/// A literal converted (`convert: Some(width)`) or reinterpreted (`None`) as `kind`; `None`
/// when not foldable here (bool, or a non-finite result naga cannot hold).
fn fold_cast(l: Literal, kind: naga::ScalarKind, convert: Option<u8>) -> Option<Literal> {
    use naga::ScalarKind as K;
    enum V {
        I(i128),
        F(f64),
    }
    let (value, bits, width) = match l {
        Literal::I16(v) => (V::I(v.into()), u64::from(v as u16), 2),
        Literal::U16(v) => (V::I(v.into()), u64::from(v), 2),
        Literal::I32(v) => (V::I(v.into()), u64::from(v as u32), 4),
        Literal::U32(v) => (V::I(v.into()), u64::from(v), 4),
        Literal::I64(v) => (V::I(v.into()), v as u64, 8),
        Literal::U64(v) => (V::I(v.into()), v, 8),
        Literal::F32(v) => (V::F(v.into()), u64::from(v.to_bits()), 4),
        Literal::F64(v) => (V::F(v), v.to_bits(), 8),
        _ => return None,
    };
    let out = match (kind, convert.unwrap_or(width)) {
        (K::Sint | K::Uint, w) => {
            let n: i128 = match (convert, value) {
                (None, _) => bits.into(),
                (Some(_), V::I(i)) => i,
                (Some(_), V::F(f)) => f as i128,
            };
            match (kind, w) {
                (K::Sint, 2) => Literal::I16(n as i16),
                (K::Uint, 2) => Literal::U16(n as u16),
                (K::Sint, 4) => Literal::I32(n as i32),
                (K::Uint, 4) => Literal::U32(n as u32),
                (K::Sint, 8) => Literal::I64(n as i64),
                (K::Uint, 8) => Literal::U64(n as u64),
                _ => return None,
            }
        }
        (K::Float, w) => {
            let f = match (convert, value) {
                (None, _) if w == 4 => f64::from(f32::from_bits(bits as u32)),
                (None, _) => f64::from_bits(bits),
                (Some(_), V::I(i)) => i as f64,
                (Some(_), V::F(f)) => f,
            };
            match w {
                _ if !f.is_finite() => return None,
                4 => Literal::F32(f as f32),
                8 => Literal::F64(f),
                // f16 literals need the `half` crate: leave those to naga.
                _ => return None,
            }
        }
        _ => return None,
    };
    Some(out)
}

/// `a op b` for two float literals of one width, when the result is finite. (For f32 the
/// f64 result rounded to f32 is the correctly rounded one: f64 has over twice the bits.)
fn fold_float_binary(op: naga::BinaryOperator, a: Literal, b: Literal) -> Option<Literal> {
    use naga::BinaryOperator as B;
    let (x, y, single) = match (a, b) {
        (Literal::F32(x), Literal::F32(y)) => (f64::from(x), f64::from(y), true),
        (Literal::F64(x), Literal::F64(y)) => (x, y, false),
        _ => return None,
    };
    let r = match op {
        B::Add => x + y,
        B::Subtract => x - y,
        B::Multiply => x * y,
        B::Divide => x / y,
        _ => return None,
    };
    match single {
        true => Some(Literal::F32(r as f32)).filter(|_| (r as f32).is_finite()),
        false => Some(Literal::F64(r)).filter(|_| r.is_finite()),
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
