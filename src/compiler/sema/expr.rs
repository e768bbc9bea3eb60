//! Expressions: names, literals, operators, member access and swizzles, casts, vector and
//! compound literals, `sizeof`/`vec_step`/`__alignof`, calls.

use super::consteval::{eval, num_kind, round_float, CValue};
use super::model::{
    BinaryOp, CmpOp, ConstId, ConstantVar, Expr, ExprKind, LogicOp, Place, PlaceKind, Quals, Scalar, Space,
    Type, UnaryOp,
};
use super::scope::{Symbol, VarRef};
use super::Sema;
use crate::compiler::parse::ast;
use crate::compiler::source::Loc;
use crate::compiler::token::FloatSuffix;

/// The name of the `__constant` array holding a string literal.
pub(super) const STRING_LITERAL: &str = "<string literal>";

/// An analysed expression before lvalue conversion.
pub enum Val {
    Place(Place),
    Value(Expr),
}

fn int(value: u64, s: Scalar, loc: Loc) -> Expr {
    Expr { kind: ExprKind::Int(value), ty: Type::Scalar(s), loc }
}

fn node(kind: ExprKind, ty: Type, loc: Loc) -> Expr {
    Expr { kind, ty, loc }
}

/// A scalar operation on constants becomes a constant (vectors and anything that cannot be
/// evaluated, such as a division by zero, stay as they are).
fn fold(e: Expr) -> Expr {
    let Some(s) = e.ty.scalar().filter(|_| operands_folded(&e)) else { return e };
    match eval(&e) {
        Ok(CValue::Num(n)) => Expr { kind: num_kind(n, s), ..e },
        _ => e,
    }
}

/// Whether the operands `fold` needs are literals. Operations are folded as they are built,
/// so an operand that is not a literal is not constant: looking no deeper keeps a chain of
/// thousands of operators linear.
fn operands_folded(e: &Expr) -> bool {
    let literal = |e: &Expr| matches!(e.kind, ExprKind::Int(_) | ExprKind::Float(_) | ExprKind::Zero);
    match &e.kind {
        ExprKind::Unary(_, v) => literal(v),
        ExprKind::Binary(_, l, r) | ExprKind::Compare(_, l, r) => literal(l) && literal(r),
        // `0 && x` is constant whatever `x` is.
        ExprKind::Logic(_, l, _) => literal(l),
        _ => false,
    }
}

/// The result type of a comparison of operands of type `operand`.
fn compare_result(operand: &Type) -> Type {
    match operand {
        Type::Vector(s, n) => Type::Vector(s.signed_int_of_width(), *n),
        _ => Type::Scalar(Scalar::Int),
    }
}

/// Component indices of a swizzle (`xyzw`, `rgba`, `s0..sF`, `lo`/`hi`/`even`/`odd`) on an
/// `n`-vector, or why it is invalid. `lo`/`hi`/`even`/`odd` of a 3-vector act on it as on a
/// 4-vector whose fourth component is undefined: index 3 names that slot (reading it gives any
/// value, writing it writes nothing).
pub fn swizzle_indices(name: &str, n: u8) -> Result<Vec<u8>, String> {
    let slots = if n == 3 { 4 } else { n };
    let half = slots / 2;
    Ok(match name {
        "lo" => (0..half).collect(),
        "hi" => (half..slots).collect(),
        "even" => (0..slots).step_by(2).collect(),
        "odd" => (1..slots).step_by(2).collect(),
        _ => named_components(name, n)?,
    })
}

/// `.s` or `.S` and hex digits, or letters of one of `xyzw` and `rgba` (OpenCL C 3.0 §6.3.7:
/// the two sets cannot be mixed).
fn named_components(name: &str, n: u8) -> Result<Vec<u8>, String> {
    let invalid = |c: char| format!("invalid vector component '{c}' in '.{name}'");
    let indices: Vec<u8> = match name.strip_prefix(['s', 'S']) {
        Some(digits) => digits.chars().map(|c| c.to_digit(16).map(|d| d as u8).ok_or_else(|| invalid(c))).collect::<Result<_, _>>()?,
        None => {
            let (set, other) = if name.starts_with(['r', 'g', 'b', 'a']) { ("rgba", "xyzw") } else { ("xyzw", "rgba") };
            name.chars()
                .map(|c| match set.find(c) {
                    Some(i) => Ok(i as u8),
                    None if other.contains(c) => Err(format!("'.{name}' mixes the '.xyzw' and '.rgba' component names")),
                    None => Err(invalid(c)),
                })
                .collect::<Result<_, _>>()?
        }
    };
    if !matches!(indices.len(), 1 | 2 | 3 | 4 | 8 | 16) {
        return Err(format!("'.{name}' selects {} components, which is not a vector size", indices.len()));
    }
    if let Some(bad) = indices.iter().find(|&&i| i >= n) {
        return Err(format!("vector component {bad} is out of range for a {n}-component vector"));
    }
    Ok(indices)
}

impl Sema<'_> {
    /// An rvalue: places are loaded, arrays decay to pointers.
    pub(super) fn expr(&mut self, e: &ast::Expr) -> Option<Expr> {
        let v = self.val(e)?;
        self.rvalue(v)
    }

    /// Loads a place (arrays decay). Without cl_khr_fp16, `half` data is reached only through
    /// `vload_half`/`vstore_half`.
    pub(super) fn rvalue(&mut self, v: Val) -> Option<Expr> {
        Some(match v {
            Val::Value(e) => e,
            Val::Place(p) => {
                let loc = p.loc;
                if let Type::Array { elem, .. } = &p.ty {
                    let quals = Quals { is_const: p.is_const, is_volatile: false };
                    let ty = Type::Pointer { pointee: elem.clone(), space: p.space, quals };
                    return Some(node(ExprKind::Decay(Box::new(p)), ty, loc));
                }
                self.check_half_value(&p.ty, loc)?;
                self.check_not_atomic(&p.ty, loc)?;
                self.check_not_image(&p.ty, loc)?;
                let ty = p.ty.clone();
                node(ExprKind::Load(Box::new(p)), ty, loc)
            }
        })
    }

    /// Atomic objects are reached only by the atomic functions (OpenCL C 3.0 §6.15.12.6).
    fn check_not_atomic(&mut self, ty: &Type, loc: Loc) -> Option<()> {
        if let Type::Atomic(_) = ty {
            return self.err(loc, format!("'{}' objects are read and written only by the atomic functions (atomic_load, atomic_store, ...)", self.type_str(ty)));
        }
        Some(())
    }

    /// An lvalue (a location that can be assigned or have its address taken).
    pub(super) fn place(&mut self, e: &ast::Expr) -> Option<Place> {
        match self.val(e)? {
            Val::Place(p) => Some(p),
            Val::Value(v) if matches!(e.kind, ast::ExprKind::CompoundLit(..)) => self.compound_literal_place(v),
            Val::Value(_) => self.err(e.loc, "expression is not assignable (not an lvalue)"),
        }
    }

    /// Checks a place may be written (A9: never `__constant`; not `const`; not an array; a
    /// swizzle without repeated components).
    pub(super) fn check_writable(&mut self, p: &Place, loc: Loc) -> Option<()> {
        if p.space == Space::Constant {
            return self.err(loc, "cannot write to __constant memory: __constant variables and data are read-only");
        }
        if p.is_const {
            return self.err(loc, "cannot assign to a const-qualified location");
        }
        if matches!(p.ty, Type::Array { .. }) {
            return self.err(loc, "arrays cannot be assigned");
        }
        if matches!(p.ty, Type::Image(..) | Type::Sampler) {
            return self.err(loc, format!("'{}' cannot be assigned or modified", self.type_str(&p.ty)));
        }
        self.check_half_value(&p.ty, loc)?;
        self.check_not_atomic(&p.ty, loc)?;
        if let PlaceKind::Swizzle(_, idx) = &p.kind {
            if idx.iter().enumerate().any(|(i, c)| idx[..i].contains(c)) {
                return self.err(loc, "cannot assign to a swizzle that repeats a component");
            }
        }
        Some(())
    }

    /// A compound literal as an lvalue (C99: an unnamed object of the enclosing block): a
    /// private temporary, initialized where the literal is evaluated, reached through its
    /// address (`*(tmp = value, &tmp)`).
    fn compound_literal_place(&mut self, value: Expr) -> Option<Place> {
        let (ty, loc) = (value.ty.clone(), value.loc);
        let (init, tmp) = self.spill(value, "compound literal")?;
        let ptr_ty = Type::Pointer { pointee: Box::new(ty.clone()), space: Space::Private, quals: Default::default() };
        let addr = node(ExprKind::AddrOf(Box::new(tmp)), ptr_ty.clone(), loc);
        let ptr = node(ExprKind::Comma(Box::new(init), Box::new(addr)), ptr_ty, loc);
        Some(Place { kind: PlaceKind::Deref(Box::new(ptr)), ty, space: Space::Private, is_const: false, loc })
    }

    pub(super) fn val(&mut self, e: &ast::Expr) -> Option<Val> {
        use ast::ExprKind as K;
        let loc = e.loc;
        let value = match &e.kind {
            K::Ident(name) => return self.ident(name, loc),
            K::Int { value, unsigned, long, decimal } => self.int_literal(*value, *unsigned, *long, *decimal, loc)?,
            K::Float { value, suffix } => self.float_literal(*value, *suffix, loc),
            K::Char(c) => int(u64::from(*c), Scalar::Int, loc),
            K::Str(text) => return self.string_literal(text, loc),
            K::Unary(op, operand) => return self.unary(*op, operand, loc),
            K::Binary(op, l, r) => {
                let l = self.expr(l)?;
                let r = self.expr(r)?;
                self.binary(*op, l, r, loc)?
            }
            K::Assign(op, l, r) => self.assign(*op, l, r, loc)?,
            K::Cond(c, a, b) => self.conditional(c, a, b, loc)?,
            K::Comma(a, b) => {
                let a = self.expr(a)?;
                let b = self.expr(b)?;
                let ty = b.ty.clone();
                node(ExprKind::Comma(Box::new(a), Box::new(b)), ty, loc)
            }
            K::Cast(ty, operand) => {
                let ty = self.type_name(ty)?;
                let operand = self.expr(operand)?;
                self.cast(operand, &ty, loc)?
            }
            K::VectorLit(ty, parts) => self.vector_literal(ty, parts, loc)?,
            K::CompoundLit(t, init) => {
                // `(int[]){1, 2, 3}` takes its length from the initializer.
                let base = self.spec_type(&t.spec)?;
                let d = self.declared(&t.spec, base, &t.declarator, false)?;
                let ty = if d.unsized_array { self.sized_by_initializer(&d.ty, init)? } else { d.ty };
                let value = self.initializer_value(init, &ty)?;
                // An array literal is used as an object (indexed, or decayed to a pointer).
                if matches!(ty, Type::Array { .. }) && self.cur.is_some() {
                    return self.compound_literal_place(value).map(Val::Place);
                }
                value
            }
            K::Call(callee, args) => self.call(callee, args, loc)?,
            K::Index(base, index) => return self.index(base, index, loc),
            K::Member(base, name, at) => {
                // A member of a compound literal is a member of its object (`(S){...}.a = x`).
                let base = match base.kind {
                    K::CompoundLit(..) if self.cur.is_some() => Val::Place(self.place(base)?),
                    _ => self.val(base)?,
                };
                return self.member(base, name, *at);
            }
            K::Arrow(base, name, at) => {
                let ptr = self.expr(base)?;
                let place = self.deref(ptr, loc)?;
                return self.member(Val::Place(place), name, *at);
            }
            K::SizeofType(ty) => {
                let ty = self.type_name(ty)?;
                self.size_constant(&ty, loc)?
            }
            K::SizeofExpr(operand) => {
                let ty = self.type_of_unevaluated(operand)?;
                self.size_constant(&ty, loc)?
            }
            K::AlignofType(ty) => {
                let declared = self.declared_align(&ty.spec, &ty.declarator.attrs);
                let ty = self.type_name(ty)?;
                int(u64::from(self.types.align_of(&ty).max(declared?)), self.size_scalar(), loc)
            }
            K::AlignofExpr(operand) => {
                let ty = self.type_of_unevaluated(operand)?;
                int(u64::from(self.types.align_of(&ty)), self.size_scalar(), loc)
            }
            K::VecStepType(ty) => {
                let ty = self.type_name(ty)?;
                self.vec_step(&ty, loc)?
            }
            K::VecStepExpr(operand) => {
                let ty = self.type_of_unevaluated(operand)?;
                self.vec_step(&ty, loc)?
            }
        };
        Some(Val::Value(value))
    }

    fn size_scalar(&self) -> Scalar {
        self.size_type().scalar().unwrap_or(Scalar::UInt)
    }

    /// The type of an operand of `sizeof` (arrays do not decay).
    fn type_of_unevaluated(&mut self, e: &ast::Expr) -> Option<Type> {
        Some(match self.val(e)? {
            Val::Place(p) => p.ty,
            Val::Value(v) => v.ty,
        })
    }

    /// `sizeof`: folded, pointers are `address_bits / 8` bytes (A16). Images are handles of
    /// a pointer's size and samplers one 32-bit word, as they are passed (the CTS asks only
    /// that these sizes be powers of two, clang gives pointer sizes).
    fn size_constant(&mut self, ty: &Type, loc: Loc) -> Option<Expr> {
        let size = match ty {
            Type::Image(..) => u64::from(self.target.address_bits / 8),
            Type::Sampler => 4,
            _ => self.size_of(ty),
        };
        if size == 0 {
            return self.err(loc, format!("sizeof applied to an incomplete type '{}'", self.type_str(ty)));
        }
        Some(int(size, self.size_scalar(), loc))
    }

    /// `vec_step`: 1 for scalars, the width for vectors (4 for 3-vectors).
    fn vec_step(&mut self, ty: &Type, loc: Loc) -> Option<Expr> {
        let n = match ty {
            Type::Scalar(_) => 1,
            Type::Vector(_, n) => super::model::vector_slots(*n),
            t => return self.err(loc, format!("vec_step needs a scalar or vector type, not '{}'", self.type_str(t))),
        };
        Some(int(u64::from(n), Scalar::Int, loc))
    }

    pub(super) fn type_name(&mut self, t: &ast::TypeName) -> Option<Type> {
        let base = self.spec_type(&t.spec)?;
        let d = self.declared(&t.spec, base, &t.declarator, false)?;
        Some(d.ty)
    }

    fn ident(&mut self, name: &str, loc: Loc) -> Option<Val> {
        match self.scopes.lookup(name).cloned() {
            Some(Symbol::Var(v)) => {
                let kind = match v.var {
                    VarRef::Local(id) => PlaceKind::Local(id),
                    VarRef::Constant(id) => PlaceKind::Constant(id),
                    VarRef::Workgroup(id) => PlaceKind::Workgroup(id),
                    VarRef::Global(id) => PlaceKind::Global(id),
                };
                Some(Val::Place(Place { kind, ty: v.ty, space: v.space, is_const: v.is_const, loc }))
            }
            Some(Symbol::EnumConst(bits, ty)) => Some(Val::Value(int(bits, ty, loc))),
            Some(Symbol::Sampler(bits)) => Some(Val::Value(node(ExprKind::Int(u64::from(bits)), Type::Sampler, loc))),
            Some(Symbol::Function(_)) => {
                self.err(loc, format!("function '{name}' used as a value (function pointers are not supported)"))
            }
            Some(Symbol::Typedef(..)) => self.err(loc, format!("unexpected type name '{name}'")),
            None => self.err(loc, format!("use of undeclared identifier '{name}'")),
        }
    }

    /// A11: a string literal is a `__constant char[n + 1]` array of its bytes and a NUL (one
    /// constant per distinct text).
    fn string_literal(&mut self, text: &str, loc: Loc) -> Option<Val> {
        let bytes: Vec<u8> = text.bytes().chain([0]).collect();
        let Ok(len) = u32::try_from(bytes.len()) else {
            return self.err(loc, "string literal is too long");
        };
        let ty = Type::Array { elem: Box::new(Type::Scalar(Scalar::Char)), len };
        let existing = self.constants.iter().position(|c| c.name == STRING_LITERAL && c.bytes == bytes);
        let id = match existing {
            Some(i) => ConstId(i as u32),
            None => {
                self.constants.push(ConstantVar { name: STRING_LITERAL.to_string(), ty: ty.clone(), bytes, loc });
                ConstId(self.constants.len() as u32 - 1)
            }
        };
        // Its type is `char[n]` (not const, as in C); the space alone makes it read-only.
        Some(Val::Place(Place { kind: PlaceKind::Constant(id), ty, space: Space::Constant, is_const: false, loc }))
    }

    /// The type of an integer literal: the first of its candidate types that holds the value
    /// (C99 §6.4.4.1; an unsuffixed or `l` decimal literal is never unsigned, except one too
    /// large for `long`, which is `ulong` as in clang).
    fn int_literal(&mut self, value: u64, unsigned: bool, long: bool, decimal: bool, loc: Loc) -> Option<Expr> {
        use Scalar::*;
        let candidates: &[Scalar] = match (unsigned, long, decimal) {
            (false, false, true) => &[Int, Long, ULong],
            (false, false, false) => &[Int, UInt, Long, ULong],
            (true, false, _) => &[UInt, ULong],
            (false, true, _) => &[Long, ULong],
            (true, true, _) => &[ULong],
        };
        let fits = |s: &&Scalar| match s {
            Int => value <= i32::MAX as u64,
            UInt => value <= u64::from(u32::MAX),
            Long => value <= i64::MAX as u64,
            _ => true,
        };
        let s = *candidates.iter().find(fits)?;
        if matches!(s, Long | ULong) && !self.target.int64 {
            return self.err(loc, "integer literal needs 64 bits, which this device does not support");
        }
        Some(int(value, s, loc))
    }

    /// Unsuffixed literals are `double` only when the device has fp64 (else `float`, as with
    /// `-cl-single-precision-constant`).
    fn float_literal(&mut self, value: f64, suffix: FloatSuffix, loc: Loc) -> Expr {
        let s = match suffix {
            FloatSuffix::F => Scalar::Float,
            FloatSuffix::H => Scalar::Half,
            FloatSuffix::None if self.target.fp64 && !self.opts.single_precision_constant => Scalar::Double,
            FloatSuffix::None => Scalar::Float,
        };
        node(ExprKind::Float(round_float(value, s)), Type::Scalar(s), loc)
    }

    fn unary(&mut self, op: ast::UnaryOp, operand: &ast::Expr, loc: Loc) -> Option<Val> {
        use ast::UnaryOp as U;
        let value = match op {
            U::Deref => {
                let ptr = self.expr(operand)?;
                return self.deref(ptr, loc).map(Val::Place);
            }
            U::AddrOf => {
                let place = self.place(operand)?;
                if matches!(place.kind, PlaceKind::Swizzle(..)) || matches!(&place.kind, PlaceKind::Index(b, _) if matches!(b.ty, Type::Vector(..))) {
                    return self.err(loc, "cannot take the address of a vector component");
                }
                self.check_not_opaque(&place.ty, "the address of", loc)?;
                let quals = Quals { is_const: place.is_const, is_volatile: false };
                let ty = Type::Pointer { pointee: Box::new(place.ty.clone()), space: place.space, quals };
                node(ExprKind::AddrOf(Box::new(place)), ty, loc)
            }
            U::PreInc | U::PreDec | U::PostInc | U::PostDec => self.inc_dec(op, operand, loc)?,
            U::Plus | U::Neg | U::BitNot | U::Not => {
                let v = self.expr(operand)?;
                fold(self.arith_unary(op, v, loc)?)
            }
        };
        Some(Val::Value(value))
    }

    fn arith_unary(&mut self, op: ast::UnaryOp, v: Expr, loc: Loc) -> Option<Expr> {
        if op == ast::UnaryOp::Not {
            if v.ty.width() > 1 {
                let ty = compare_result(&v.ty);
                return Some(node(ExprKind::Unary(UnaryOp::Not, Box::new(v)), ty, loc));
            }
            let b = self.truth_value(v)?;
            return Some(node(ExprKind::Unary(UnaryOp::Not, Box::new(b)), Type::Scalar(Scalar::Int), loc));
        }
        let Some(elem) = v.ty.element() else {
            return self.err(loc, format!("invalid operand of type '{}'", self.type_str(&v.ty)));
        };
        if op == ast::UnaryOp::BitNot && elem.is_float() {
            return self.err(loc, "'~' needs an integer operand");
        }
        let v = self.promote(v);
        let ty = v.ty.clone();
        Some(match op {
            ast::UnaryOp::Neg => node(ExprKind::Unary(UnaryOp::Neg, Box::new(v)), ty, loc),
            ast::UnaryOp::BitNot => node(ExprKind::Unary(UnaryOp::BitNot, Box::new(v)), ty, loc),
            _ => v,
        })
    }

    /// `*p`: the pointee, in the pointer's address space.
    pub(super) fn deref(&mut self, ptr: Expr, loc: Loc) -> Option<Place> {
        let Type::Pointer { pointee, space, quals } = ptr.ty.clone() else {
            return self.err(loc, format!("cannot dereference a value of type '{}'", self.type_str(&ptr.ty)));
        };
        if matches!(*pointee, Type::Void) {
            return self.err(loc, "cannot dereference a 'void*' pointer");
        }
        Some(Place { kind: PlaceKind::Deref(Box::new(ptr)), ty: *pointee, space, is_const: quals.is_const, loc })
    }

    /// `++`/`--`: an assignment whose new value is computed from [`ExprKind::Current`].
    fn inc_dec(&mut self, op: ast::UnaryOp, operand: &ast::Expr, loc: Loc) -> Option<Expr> {
        let place = self.place(operand)?;
        self.check_writable(&place, loc)?;
        let current = node(ExprKind::Current, place.ty.clone(), loc);
        let bin = if matches!(op, ast::UnaryOp::PreInc | ast::UnaryOp::PostInc) {
            ast::BinaryOp::Add
        } else {
            ast::BinaryOp::Sub
        };
        let one = int(1, Scalar::Int, loc);
        let value = self.binary(bin, current, one, loc)?;
        let value = self.convert_back(value, &place.ty, loc)?;
        let yields_old = matches!(op, ast::UnaryOp::PostInc | ast::UnaryOp::PostDec);
        let ty = place.ty.clone();
        Some(node(ExprKind::Assign { place: Box::new(place), value: Box::new(value), yields_old }, ty, loc))
    }

    /// The result of `a op= b` converted back to `a`'s type (explicitly allowed for numbers).
    fn convert_back(&mut self, value: Expr, ty: &Type, loc: Loc) -> Option<Expr> {
        if value.ty == *ty {
            return Some(value);
        }
        if value.ty.width() == ty.width() && value.ty.is_arithmetic() && ty.is_arithmetic() {
            return Some(self.convert(value, ty));
        }
        self.err(loc, format!("cannot store '{}' in '{}'", self.type_str(&value.ty), self.type_str(ty)))
    }

    fn assign(&mut self, op: Option<ast::BinaryOp>, l: &ast::Expr, r: &ast::Expr, loc: Loc) -> Option<Expr> {
        let place = self.place(l)?;
        self.check_writable(&place, loc)?;
        let rhs = self.expr(r)?;
        let value = match op {
            None => self.assign_convert(rhs, &place.ty, "assignment")?,
            Some(op) => {
                let current = node(ExprKind::Current, place.ty.clone(), loc);
                let v = self.binary(op, current, rhs, loc)?;
                self.convert_back(v, &place.ty, loc)?
            }
        };
        let ty = place.ty.clone();
        Some(node(ExprKind::Assign { place: Box::new(place), value: Box::new(value), yields_old: false }, ty, loc))
    }

    /// A binary operator on analysed operands; constant operands are folded.
    pub(super) fn binary(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        self.binary_node(op, l, r, loc).map(fold)
    }

    fn binary_node(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        use ast::BinaryOp as B;
        match op {
            B::Add | B::Sub if l.ty.is_pointer() || r.ty.is_pointer() => self.pointer_arith(op, l, r, loc),
            B::Lt | B::Gt | B::Le | B::Ge | B::Eq | B::Ne => self.compare(op, l, r, loc),
            B::LogAnd | B::LogOr => self.logic(op, l, r, loc),
            B::Shl | B::Shr => self.shift(op, l, r, loc),
            _ => {
                let (l, r, ty) = self.arith_operands(l, r, loc)?;
                let int_only = matches!(op, B::Rem | B::BitAnd | B::BitOr | B::BitXor);
                if int_only && ty.element().is_some_and(Scalar::is_float) {
                    return self.err(loc, "this operator needs integer operands");
                }
                let op = match op {
                    B::Add => BinaryOp::Add,
                    B::Sub => BinaryOp::Sub,
                    B::Mul => BinaryOp::Mul,
                    B::Div => BinaryOp::Div,
                    B::Rem => BinaryOp::Rem,
                    B::BitAnd => BinaryOp::BitAnd,
                    B::BitOr => BinaryOp::BitOr,
                    _ => BinaryOp::BitXor,
                };
                Some(node(ExprKind::Binary(op, Box::new(l), Box::new(r)), ty, loc))
            }
        }
    }

    /// Both operands converted to their common arithmetic type.
    fn arith_operands(&mut self, l: Expr, r: Expr, loc: Loc) -> Option<(Expr, Expr, Type)> {
        if !l.ty.is_arithmetic() || !r.ty.is_arithmetic() {
            return self.err(
                loc,
                format!("invalid operands: '{}' and '{}'", self.type_str(&l.ty), self.type_str(&r.ty)),
            );
        }
        let ty = self.common_type(&l.ty, &r.ty, loc)?;
        Some((self.convert(l, &ty), self.convert(r, &ty), ty))
    }

    fn pointer_arith(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        let is_int = |e: &Expr| e.ty.scalar().is_some_and(Scalar::is_integer);
        let elem_size = |ty: &Type, s: &Self| match ty {
            Type::Pointer { pointee, .. } => s.size_of(pointee),
            _ => 0,
        };
        match (l.ty.is_pointer(), r.ty.is_pointer()) {
            (true, true) if op == ast::BinaryOp::Sub => {
                if l.ty != r.ty {
                    return self.err(loc, format!("cannot subtract '{}' and '{}'", self.type_str(&l.ty), self.type_str(&r.ty)));
                }
                let ty = self.ptrdiff_type();
                Some(node(ExprKind::PtrDiff(Box::new(l), Box::new(r)), ty, loc))
            }
            (false, true) if op == ast::BinaryOp::Sub => {
                self.err(loc, "cannot subtract a pointer from an integer")
            }
            (true, false) | (false, true) => {
                let (ptr, count) = if l.ty.is_pointer() { (l, r) } else { (r, l) };
                if !is_int(&count) {
                    return self.err(loc, "a pointer can only be offset by an integer");
                }
                if elem_size(&ptr.ty, self) == 0 {
                    return self.err(loc, format!("arithmetic on a pointer to an incomplete type '{}'", self.type_str(&ptr.ty)));
                }
                let count = if op == ast::BinaryOp::Sub {
                    let c = self.promote(count);
                    let ty = c.ty.clone();
                    node(ExprKind::Unary(UnaryOp::Neg, Box::new(c)), ty, loc)
                } else {
                    count
                };
                let ty = ptr.ty.clone();
                Some(node(ExprKind::PtrAdd(Box::new(ptr), Box::new(count)), ty, loc))
            }
            _ => self.err(loc, "invalid operands to pointer arithmetic"),
        }
    }

    fn compare(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        use ast::BinaryOp as B;
        let cmp = match op {
            B::Lt => CmpOp::Lt,
            B::Gt => CmpOp::Gt,
            B::Le => CmpOp::Le,
            B::Ge => CmpOp::Ge,
            B::Eq => CmpOp::Eq,
            _ => CmpOp::Ne,
        };
        let (l, r) = if l.ty.is_pointer() || r.ty.is_pointer() {
            let target = self.common_pointer(&l.ty, &r.ty);
            let l = self.assign_convert(l, &target, "a comparison")?;
            let r = self.assign_convert(r, &target, "a comparison")?;
            (l, r)
        } else {
            let (l, r, _) = self.arith_operands(l, r, loc)?;
            (l, r)
        };
        let ty = compare_result(&l.ty);
        Some(node(ExprKind::Compare(cmp, Box::new(l), Box::new(r)), ty, loc))
    }

    /// The pointer type two pointer operands (or a pointer and NULL) meet in: the first's,
    /// or a generic pointer when they point into different spaces that convert to it.
    fn common_pointer(&self, a: &Type, b: &Type) -> Type {
        let named = |s: Space| matches!(s, Space::Global | Space::Local | Space::Private | Space::Generic);
        match (a, b) {
            (Type::Pointer { pointee, space: sa, quals }, Type::Pointer { space: sb, .. }) if sa != sb && named(*sa) && named(*sb) && self.is_cl2() => {
                Type::Pointer { pointee: pointee.clone(), space: Space::Generic, quals: *quals }
            }
            (Type::Pointer { .. }, _) => a.clone(),
            _ => b.clone(),
        }
    }

    fn logic(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        let lop = if op == ast::BinaryOp::LogAnd { LogicOp::And } else { LogicOp::Or };
        if l.ty.width() > 1 || r.ty.width() > 1 {
            let (l, r, ty) = self.arith_operands(l, r, loc)?;
            if ty.element().is_some_and(Scalar::is_float) {
                return self.err(loc, "'&&' and '||' on vectors need integer vectors");
            }
            let result = compare_result(&ty);
            return Some(node(ExprKind::Logic(lop, Box::new(l), Box::new(r)), result, loc));
        }
        let l = self.truth_value(l)?;
        let r = self.truth_value(r)?;
        Some(node(ExprKind::Logic(lop, Box::new(l), Box::new(r)), Type::Scalar(Scalar::Int), loc))
    }

    /// Shifts: the result has the (promoted) left operand's type; the count is converted to
    /// it and masked to `bits - 1`, as OpenCL C defines out-of-range shifts.
    fn shift(&mut self, op: ast::BinaryOp, l: Expr, r: Expr, loc: Loc) -> Option<Expr> {
        let is_int = |t: &Type| t.element().is_some_and(Scalar::is_integer) || t.element() == Some(Scalar::Bool);
        if !is_int(&l.ty) || !is_int(&r.ty) {
            return self.err(loc, "shift operands must be integers");
        }
        if l.ty.width() == 1 && r.ty.width() > 1 {
            return self.err(loc, "a scalar cannot be shifted by a vector");
        }
        let l = self.promote(l);
        let ty = l.ty.clone();
        if r.ty.width() > 1 && r.ty.width() != ty.width() {
            return self.err(loc, "shift operands have different vector sizes");
        }
        let r = match (&r.ty, &ty) {
            (Type::Vector(..), Type::Vector(s, _)) => self.convert(r, &Type::Vector(*s, ty.width())),
            _ => self.convert(r, &ty),
        };
        // Scalars are promoted by now; vector elements are not: a char4 count is masked to 7.
        let elem = ty.element().unwrap_or(Scalar::Int);
        let mask = self.convert(int(u64::from(elem.size() * 8 - 1), elem, loc), &ty);
        let masked = fold(node(ExprKind::Binary(BinaryOp::BitAnd, Box::new(r), Box::new(mask)), ty.clone(), loc));
        let op = if op == ast::BinaryOp::Shl { BinaryOp::Shl } else { BinaryOp::Shr };
        Some(node(ExprKind::Binary(op, Box::new(l), Box::new(masked)), ty, loc))
    }

    fn conditional(&mut self, c: &ast::Expr, a: &ast::Expr, b: &ast::Expr, loc: Loc) -> Option<Expr> {
        let c = self.expr(c)?;
        let a = self.expr(a)?;
        let b = self.expr(b)?;
        if c.ty.width() > 1 {
            // A vector condition selects per component: `select(b, a, c)`; two scalar operands
            // are widened to the condition's width. Operands of one type keep it, unpromoted
            // (as clang's usual arithmetic conversions do): `char2 ? char : char` is a char2.
            let (mut a, mut b, mut ty) = if a.ty == b.ty && a.ty.is_arithmetic() {
                let ty = a.ty.clone();
                (a, b, ty)
            } else {
                self.arith_operands(a, b, loc)?
            };
            if let (Type::Scalar(s), Type::Vector(_, n)) = (&ty, &c.ty) {
                ty = Type::Vector(*s, *n);
                (a, b) = (self.convert(a, &ty), self.convert(b, &ty));
            }
            if ty.width() != c.ty.width() || c.ty.element().is_some_and(Scalar::is_float) {
                return self.err(loc, "a vector condition needs an integer vector of the operands' size");
            }
            return Some(node(ExprKind::Builtin(super::model::Builtin::Select, vec![b, a, c]), ty, loc));
        }
        let c = self.truth_value(c)?;
        let (a, b) = if a.ty.is_arithmetic() && b.ty.is_arithmetic() {
            let (a, b, _) = self.arith_operands(a, b, loc)?;
            (a, b)
        } else if a.ty.is_pointer() {
            let t = self.common_pointer(&a.ty, &b.ty);
            (self.assign_convert(a, &t, "a conditional expression")?, self.assign_convert(b, &t, "a conditional expression")?)
        } else if b.ty.is_pointer() {
            let t = b.ty.clone();
            (self.assign_convert(a, &t, "a conditional expression")?, b)
        } else if a.ty == b.ty {
            (a, b)
        } else {
            return self.err(loc, format!("incompatible operand types '{}' and '{}'", self.type_str(&a.ty), self.type_str(&b.ty)));
        };
        let ty = a.ty.clone();
        Some(node(ExprKind::Cond(Box::new(c), Box::new(a), Box::new(b)), ty, loc))
    }

    /// `(float4)(a, b.xy, c)`: parts are scalars (converted to the element type) or vectors of
    /// the element type whose widths add up to the vector's.
    fn vector_literal(&mut self, t: &ast::TypeName, parts: &[ast::Expr], loc: Loc) -> Option<Expr> {
        let ty = self.type_name(t)?;
        let Type::Vector(elem, n) = ty else {
            // `(int)(a, b)` is a cast of a comma expression.
            let mut last = None;
            for p in parts {
                let v = self.expr(p)?;
                last = Some(match last {
                    None => v,
                    Some(prev) => {
                        let t = v.ty.clone();
                        node(ExprKind::Comma(Box::new(prev), Box::new(v)), t, loc)
                    }
                });
            }
            return self.cast(last?, &ty, loc);
        };
        let mut values = Vec::new();
        let mut count = 0u32;
        for p in parts {
            let v = self.expr(p)?;
            match &v.ty {
                Type::Scalar(_) => values.push(self.convert(v, &Type::Scalar(elem))),
                Type::Vector(s, m) if *s == elem => {
                    count += u32::from(*m) - 1;
                    values.push(v);
                }
                other => {
                    return self.err(
                        p.loc,
                        format!("a {} literal cannot contain a '{}'", self.type_str(&ty), self.type_str(other)),
                    )
                }
            }
            count += 1;
        }
        if count != u32::from(n) {
            return self.err(loc, format!("vector literal has {count} components, but '{}' needs {n}", self.type_str(&ty)));
        }
        Some(node(ExprKind::Vector(values), ty, loc))
    }

    fn index(&mut self, base: &ast::Expr, index: &ast::Expr, loc: Loc) -> Option<Val> {
        let base = self.val(base)?;
        let idx = self.expr(index)?;
        if !idx.ty.scalar().is_some_and(|s| s.is_integer() || s == Scalar::Bool) {
            return self.err(index.loc, "an index must be an integer");
        }
        match base {
            Val::Place(p) if matches!(p.ty, Type::Array { .. } | Type::Vector(..)) => {
                let ty = match &p.ty {
                    Type::Array { elem, .. } => (**elem).clone(),
                    t => Type::Scalar(t.element()?),
                };
                let (space, is_const) = (p.space, p.is_const);
                Some(Val::Place(Place { kind: PlaceKind::Index(Box::new(p), Box::new(idx)), ty, space, is_const, loc }))
            }
            Val::Value(v) if matches!(v.ty, Type::Vector(..)) => {
                let ty = Type::Scalar(v.ty.element()?);
                Some(Val::Value(node(ExprKind::Extract(Box::new(v), Box::new(idx)), ty, loc)))
            }
            other => {
                let ptr = self.rvalue(other)?;
                if !ptr.ty.is_pointer() {
                    return self.err(loc, format!("cannot index a value of type '{}'", self.type_str(&ptr.ty)));
                }
                let ty = ptr.ty.clone();
                let sum = node(ExprKind::PtrAdd(Box::new(ptr), Box::new(idx)), ty, loc);
                self.deref(sum, loc).map(Val::Place)
            }
        }
    }

    fn member(&mut self, base: Val, name: &str, loc: Loc) -> Option<Val> {
        let ty = match &base {
            Val::Place(p) => p.ty.clone(),
            Val::Value(v) => v.ty.clone(),
        };
        match ty {
            Type::Vector(elem, n) => {
                let idx = match swizzle_indices(name, n) {
                    Ok(i) => i,
                    Err(message) => return self.err(loc, message),
                };
                let result = if idx.len() == 1 { Type::Scalar(elem) } else { Type::Vector(elem, idx.len() as u8) };
                Some(match base {
                    Val::Place(p) => {
                        let (space, is_const) = (p.space, p.is_const);
                        Val::Place(Place { kind: PlaceKind::Swizzle(Box::new(p), idx), ty: result, space, is_const, loc })
                    }
                    Val::Value(v) => Val::Value(node(ExprKind::Swizzle(Box::new(v), idx), result, loc)),
                })
            }
            Type::Record(id) => {
                let Some(path) = self.types.member_path(id, name) else {
                    return self.err(loc, format!("no member named '{name}' in '{}'", self.type_str(&ty)));
                };
                let mut val = base;
                let mut record = id;
                for i in path {
                    let mty = self.types.record(record)?.members.get(i as usize)?.ty.clone();
                    val = match val {
                        Val::Place(p) => {
                            let (space, is_const) = (p.space, p.is_const);
                            Val::Place(Place { kind: PlaceKind::Member(Box::new(p), i), ty: mty.clone(), space, is_const, loc })
                        }
                        Val::Value(v) => Val::Value(node(ExprKind::Member(Box::new(v), i), mty.clone(), loc)),
                    };
                    if let Type::Record(inner) = mty {
                        record = inner;
                    }
                }
                Some(val)
            }
            t => self.err(loc, format!("member access '.{name}' on a value of type '{}'", self.type_str(&t))),
        }
    }

    fn call(&mut self, callee: &ast::Expr, args: &[ast::Expr], loc: Loc) -> Option<Expr> {
        let ast::ExprKind::Ident(name) = &callee.kind else {
            return self.err(loc, "only named functions can be called (function pointers are not supported)");
        };
        let values = args.iter().map(|a| self.call_arg(a)).collect::<Option<Vec<_>>>()?;
        match self.scopes.lookup(name) {
            Some(Symbol::Function(index)) => {
                let index = *index;
                self.user_call(index, values, loc)
            }
            Some(_) => self.err(loc, format!("'{name}' is not a function")),
            None => self.builtin_call(name, values, loc),
        }
    }

    fn user_call(&mut self, index: usize, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let entry = self.funcs.get(index)?;
        let (name, params, ret) = (entry.name.clone(), entry.params.clone(), entry.ret.clone());
        if args.len() != params.len() {
            return self.err(
                loc,
                format!("function '{name}' takes {} argument(s), but {} were given", params.len(), args.len()),
            );
        }
        let mut converted = Vec::new();
        for (i, (a, p)) in args.into_iter().zip(&params).enumerate() {
            converted.push(self.assign_convert(a, p, &format!("argument {} of '{name}'", i + 1))?);
        }
        Some(node(ExprKind::Call(super::model::FuncId(index as u32), converted), ret, loc))
    }
}
