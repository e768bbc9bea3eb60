//! Built-in functions: work-item queries, barriers and fences, math, integer functions,
//! `select`, vector loads/stores and atomics.

use super::expr::Val;
use super::types::reg_scalar;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Builtin, Expr, FenceFlags, IntFn, MathFn, Precision, Rounding, Scalar as S, Stmt, Type as T, WorkItemFn};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, Statement};

impl Ctx<'_> {
    pub(super) fn builtin(&mut self, bi: Builtin, args: &[Expr], ty: &T, loc: Loc) -> R<Val> {
        match bi {
            Builtin::WorkItem(f) => self.work_item(f, args, ty, loc).map(Val::V),
            Builtin::Barrier(flags) => {
                self.b.stmt(Statement::ControlBarrier(barrier_flags(flags)));
                Ok(Val::Void)
            }
            // A fence on no memory (`mem_fence(0)`, a relaxed or work-item-scope
            // `atomic_work_item_fence`) orders nothing.
            Builtin::Fence(_, flags) if !flags.local && !flags.global => Ok(Val::Void),
            Builtin::Fence(_, flags) => {
                // A fence on global memory orders it for other work-groups too, whose plain
                // accesses must then bypass non-coherent caches (CTS c11_atomics atomic_flag).
                self.orders_global |= flags.global;
                if self.target.ordering_by_rmw {
                    self.rmw_fence();
                } else {
                    self.b.stmt(Statement::MemoryBarrier(barrier_flags(flags)));
                }
                Ok(Val::Void)
            }
            Builtin::SubGroupBarrier(flags) => {
                self.b.stmt(Statement::ControlBarrier(barrier_flags(flags) | naga::Barrier::SUB_GROUP));
                Ok(Val::Void)
            }
            Builtin::Collective(group, c) => self.collective(group, c, args, ty, loc),
            Builtin::Atomic(op) => self.atomic(op, args, ty, loc).map(Val::V),
            Builtin::C11Atomic(op, order, flags) => self.c11_atomic(op, order, flags, args, loc),
            Builtin::GetFence => self.get_fence(args, loc).map(Val::V),
            Builtin::Loop => match args {
                [cond, body] => self.lower_loop(None, Some(cond), None, &Stmt::Expr(body.clone()), false).map(|_| Val::Void),
                _ => Err(LowerError::new(loc, "internal: a built-in loop needs a condition and a body")),
            },
            Builtin::Prefetch => Ok(Val::Void),
            Builtin::ReadImage { .. } | Builtin::WriteImage(_) | Builtin::ImageQuery(_) => self.image_builtin(bi, args, ty, loc),
            Builtin::Printf(id) => self.printf(id, args, loc).map(Val::V),
            Builtin::Any | Builtin::All => self.any_all(bi == Builtin::All, args, ty, loc).map(Val::V),
            Builtin::Vload(n) | Builtin::VloadHalf(n) => self.vload(n, args, ty, loc).map(Val::V),
            Builtin::Vstore(n) => self.vstore(n, args, Rounding::Default, loc).map(|_| Val::Void),
            Builtin::VstoreHalf(n, rounding) => self.vstore(n, args, rounding, loc).map(|_| Val::Void),
            _ => {
                if args.len() < arity(bi) {
                    return Err(LowerError::new(loc, "internal: too few arguments to a built-in function"));
                }
                let typed = args.iter().map(|a| Ok((self.eval_value(a)?, a.ty.clone()))).collect::<R<Vec<_>>>()?;
                // Component-wise: vectors of 8/16 are done 4 components at a time.
                let v = self.per_part(&typed, ty, loc, |cx, v, t, r| {
                    let arg_ty = t.first().cloned().unwrap_or(T::Void);
                    match bi {
                        Builtin::Math(f, precision) => cx.math_fn(f, precision, v, &arg_ty, r, loc),
                        Builtin::Int(f) => cx.int_fn(f, v, &arg_ty, r, loc),
                        Builtin::Select => cx.select_fn(v, t.get(2).unwrap_or(&T::Void), loc),
                        Builtin::Bitselect => cx.bitselect_fn(v, r, loc),
                        _ => Err(LowerError::new(loc, "this built-in function is not supported yet")),
                    }
                })?;
                Ok(Val::V(v))
            }
        }
    }

    /// Whether `f` on `arg_ty` is our software version: always for double, for float unless
    /// the native/half form was asked for.
    fn soft(&self, f: MathFn, precision: Precision, arg_ty: &T) -> bool {
        match arg_ty.element() {
            Some(S::Double) => true,
            // Relaxed exp and exp2 must stay within 3 + ⌊2|x|⌋ ulp, which lavapipe's
            // native ones miss (3.03 ulp): they stay in software.
            Some(S::Float) => precision == Precision::Full && (!self.options.fast_math || matches!(f, MathFn::Exp | MathFn::Exp2)),
            _ => false,
        }
    }

    /// A half of `sincos`: in software, its cosine computes the sine too (one reduction, one
    /// pair of polynomials: the FFT's twiddles) and its sine takes it; otherwise cos and sin.
    fn sincos_half(&mut self, f: MathFn, precision: Precision, v: &[Handle<Expression>], arg_ty: &T, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let alone = if f == MathFn::SincosCos { MathFn::Cos } else { MathFn::Sin };
        if !self.soft(alone, precision, arg_ty) {
            return self.math_fn(alone, precision, v, arg_ty, ty, loc);
        }
        if f == MathFn::SincosSin {
            return self.sincos_sines.pop_front().ok_or_else(|| LowerError::new(loc, "internal: a sincos without its cosine"));
        }
        let x = *v.first().ok_or_else(|| LowerError::new(loc, "internal: missing argument"))?;
        let (sin, cos) = self.sin_cos64(x, arg_ty, loc)?;
        self.sincos_sines.push_back(sin);
        Ok(cos)
    }

    fn work_item(&mut self, f: WorkItemFn, args: &[Expr], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        if f.is_sub_group() {
            return Ok(self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, f));
        }
        let dim = match args.first() {
            Some(a) => {
                let v = self.eval_value(a)?;
                self.index_u32(v, &a.ty)
            }
            None => self.b.u32(0),
        };
        let v = self.workitem.call(&self.abi, &mut self.b, f, dim);
        self.convert(v, &T::Scalar(S::UInt), ty, false, loc)
    }

    pub(super) fn math_fn(&mut self, f: MathFn, precision: Precision, v: &[Handle<Expression>], arg_ty: &T, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        if arg_ty.element() == Some(S::Half) || ty.element() == Some(S::Half) {
            return self.half_math(f, precision, v, arg_ty, ty, loc);
        }
        if matches!(f, MathFn::SincosCos | MathFn::SincosSin) {
            return self.sincos_half(f, precision, v, arg_ty, ty, loc);
        }
        // The device's multiply-add: for mad, which may round the product or not (OpenCL C
        // 6.15.2; float operations are otherwise NoContraction), and for float fma where the
        // device rounds it once (the exact software fma below is two hundred times slower:
        // NVIDIA, a loop of float fma).
        let device_fma = f == MathFn::Mad || (f == MathFn::Fma && self.target.fused_fma && arg_ty.element() == Some(S::Float));
        if let (true, [a, b, c]) = (device_fma, v) {
            return Ok(self.b.math(M::Fma, &[*a, *b, *c]));
        }
        if matches!(f, MathFn::Length | MathFn::Distance | MathFn::Normalize) || (f == MathFn::Dot && matches!(arg_ty, T::Scalar(_))) {
            return self.geometric(f, v, arg_ty, loc);
        }
        let direct = |m: M| Some(m);
        let simple = match f {
            MathFn::Sqrt => direct(M::Sqrt),
            MathFn::Rsqrt => direct(M::InverseSqrt),
            MathFn::Fabs => direct(M::Abs),
            MathFn::Floor => direct(M::Floor),
            MathFn::Ceil => direct(M::Ceil),
            MathFn::Trunc if arg_ty.element() == Some(S::Double) => None,
            MathFn::Trunc => direct(M::Trunc),
            MathFn::Rint if arg_ty.element() == Some(S::Double) => None,
            MathFn::Rint => direct(M::Round),
            MathFn::Fma | MathFn::Mad => direct(M::Fma),
            MathFn::Exp => direct(M::Exp),
            MathFn::Exp2 => direct(M::Exp2),
            MathFn::Log => direct(M::Log),
            MathFn::Log2 => direct(M::Log2),
            MathFn::Pow | MathFn::Powr => direct(M::Pow),
            MathFn::Sin => direct(M::Sin),
            MathFn::Cos => direct(M::Cos),
            MathFn::Tan => direct(M::Tan),
            MathFn::Asin => direct(M::Asin),
            MathFn::Acos => direct(M::Acos),
            MathFn::Atan => direct(M::Atan),
            MathFn::Atan2 => direct(M::Atan2),
            MathFn::Sinh => direct(M::Sinh),
            MathFn::Cosh => direct(M::Cosh),
            MathFn::Tanh => direct(M::Tanh),
            MathFn::Step => direct(M::Step),
            MathFn::Smoothstep => direct(M::SmoothStep),
            MathFn::Sign => direct(M::Sign),
            MathFn::Radians => direct(M::Radians),
            MathFn::Degrees => direct(M::Degrees),
            MathFn::Min => direct(M::Min),
            MathFn::Max => direct(M::Max),
            MathFn::Clamp => direct(M::Clamp),
            MathFn::Mix => direct(M::Mix),
            MathFn::Dot => direct(M::Dot),
            MathFn::Cross => direct(M::Cross),
            _ => None,
        };
        let soft = self.soft(f, precision, arg_ty);
        // Exact on the representation (exact.rs): double fma, fmod and remainder, and float
        // fmod and remainder through double (their results are floats).
        let double = arg_ty.element() == Some(S::Double);
        if double || (arg_ty.element() == Some(S::Float) && self.target.fp64) {
            match (f, v) {
                (MathFn::Fma, [a, b, c]) if double => return self.exact_fma(*a, *b, *c, arg_ty, false, loc),
                // Float: x y + z rounded to odd in double, then once to float.
                (MathFn::Fma, [a, b, c]) => return self.in_double(&[*a, *b, *c], arg_ty, |cx, a, t| cx.exact_fma(a[0], a[1], a[2], t, true, loc)),
                (MathFn::Fmod, [a, b]) => return self.in_double(&[*a, *b], arg_ty, |cx, a, t| cx.exact_fmod(a[0], a[1], t, loc)),
                (MathFn::Remainder, [a, b]) => return self.in_double(&[*a, *b], arg_ty, |cx, a, t| cx.exact_remainder(a[0], a[1], t, loc)),
                (MathFn::RemquoQuotient, [a, b]) => {
                    let (a, b) = if double { (*a, *b) } else { (self.b.cast(*a, naga::ScalarKind::Float, Some(8)), self.b.cast(*b, naga::ScalarKind::Float, Some(8))) };
                    let wide = match arg_ty {
                        T::Vector(_, n) => T::Vector(S::Double, *n),
                        _ => T::Scalar(S::Double),
                    };
                    return self.exact_remquo_quotient(a, b, &wide, loc);
                }
                _ => {}
            }
        }
        if super::floatbits::handles(f) {
            return self.float_bits_fn(f, v, arg_ty, ty, loc);
        }
        if (soft || super::fmath::needs_software(f)) && super::fmath::handles(f) {
            return self.soft_math(f, v, arg_ty, loc);
        }
        let v = &self.flush_log_argument(f, v, arg_ty, loc)?;
        if precision == Precision::Half && arg_ty.element() == Some(S::Float) {
            match f {
                MathFn::Log | MathFn::Log2 | MathFn::Log10 => return self.half_log(f, v[0], arg_ty, loc),
                MathFn::Sin | MathFn::Cos | MathFn::Tan => return self.half_trig(f, v[0], arg_ty, loc),
                MathFn::Powr => {
                    // A subnormal base flushed, as for the logarithms (lavapipe's pow of one
                    // was far off).
                    let x = self.flush_log_argument(MathFn::Log, &v[..1], arg_ty, loc)?[0];
                    // 2^(y log2 x) with half_log2's series near 1: the hardware's pow there
                    // was 36000 ulp off for y = 50375.
                    let l = self.half_log(MathFn::Log2, x, arg_ty, loc)?;
                    let t = self.b.binary(B::Multiply, v[1], l);
                    let r = self.b.math(M::Exp2, &[t]);
                    return self.powr_domain(r, x, v[1], arg_ty, loc);
                }
                _ => {}
            }
        }
        if f == MathFn::Rsqrt && precision == Precision::Full {
            return self.rsqrt(v[0], arg_ty, loc);
        }
        if let Some(m) = simple {
            if m == M::Cross && arg_ty.width() == 4 {
                return self.cross4(v, arg_ty, loc);
            }
            return Ok(self.b.math(m, v));
        }
        Ok(match f {
            MathFn::Rint => self.round_half_even(v[0], arg_ty, loc)?,
            MathFn::Trunc => {
                let a = self.b.math(M::Abs, &[v[0]]);
                let t = self.b.math(M::Floor, &[a]);
                self.copysign(t, v[0], arg_ty)
            }
            MathFn::Round => {
                // Half away from zero: t = floor(|x|) plus one when the (exact) fraction
                // |x| - t reaches one half, with the sign put back (naga's round is to even).
                let a = self.b.math(M::Abs, &[v[0]]);
                let t = self.b.math(M::Floor, &[a]);
                let frac = self.b.binary(B::Subtract, a, t);
                let (half, one, zero) = (self.float_like(0.5, arg_ty, loc)?, self.float_like(1.0, arg_ty, loc)?, self.float_like(0.0, arg_ty, loc)?);
                let up = self.b.binary(B::GreaterEqual, frac, half);
                let step = self.b.select(up, one, zero);
                let r = self.b.binary(B::Add, t, step);
                self.copysign(r, v[0], arg_ty)
            }
            MathFn::Fmin | MathFn::Fmax => {
                // NaN-correct: if one operand is NaN, the result is the other.
                let m = self.b.math(if f == MathFn::Fmin { M::Min } else { M::Max }, &[v[0], v[1]]);
                let nan_a = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v[0] });
                let nan_b = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v[1] });
                let r = self.b.select(nan_a, v[1], m);
                self.b.select(nan_b, v[0], r)
            }
            MathFn::Exp10 => {
                let k = self.float_like(std::f64::consts::LOG2_10, arg_ty, loc)?;
                let x = self.b.binary(B::Multiply, v[0], k);
                self.b.math(M::Exp2, &[x])
            }
            MathFn::Log10 => {
                let k = self.float_like(std::f64::consts::LOG10_2, arg_ty, loc)?;
                let l = self.b.math(M::Log2, &[v[0]]);
                self.b.binary(B::Multiply, l, k)
            }
            MathFn::Fmod => {
                // x - y * trunc(x / y)
                let q = self.b.binary(B::Divide, v[0], v[1]);
                let t = self.b.math(M::Trunc, &[q]);
                let p = self.b.binary(B::Multiply, v[1], t);
                self.b.binary(B::Subtract, v[0], p)
            }
            MathFn::Hypot => self.hypot(v[0], v[1], arg_ty, loc)?,
            MathFn::Copysign => self.copysign(v[0], v[1], arg_ty),
            MathFn::Divide if arg_ty.element() == Some(S::Float) => self.float_divide(v[0], v[1], arg_ty, loc)?,
            MathFn::Divide => self.b.binary(B::Divide, v[0], v[1]),
            MathFn::Recip => {
                let one = self.float_like(1.0, arg_ty, loc)?;
                self.b.binary(B::Divide, one, v[0])
            }
            MathFn::Fract => {
                // fract(x) = min(x - floor(x), 0x1.fffffep-1); +0 for ±∞, NaN kept.
                let fl = self.b.math(M::Floor, &[v[0]]);
                let d = self.b.binary(B::Subtract, v[0], fl);
                let below_one = if arg_ty.element() == Some(S::Double) { 1.0 - f64::EPSILON / 2.0 } else { f64::from(f32::from_bits(0x3f7f_ffff)) };
                let cap = self.float_like(below_one, arg_ty, loc)?;
                let r = self.b.math(M::Min, &[d, cap]);
                let inf = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsInf, argument: v[0] });
                let zero = self.float_like(0.0, arg_ty, loc)?;
                let r = self.b.select(inf, zero, r);
                let nan = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v[0] });
                self.b.select(nan, v[0], r)
            }
            MathFn::Cbrt => {
                let a = self.b.math(M::Abs, &[v[0]]);
                let third = self.float_like(1.0 / 3.0, arg_ty, loc)?;
                let r = self.b.math(M::Pow, &[a, third]);
                self.copysign(r, v[0], arg_ty)
            }
            MathFn::IsNan | MathFn::IsInf | MathFn::IsFinite => {
                let c = match f {
                    MathFn::IsNan => self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsNan, argument: v[0] }),
                    MathFn::IsInf => self.b.expr(Expression::Relational { fun: naga::RelationalFunction::IsInf, argument: v[0] }),
                    _ => {
                        // |x| < inf is false for infinities and NaN.
                        let a = self.b.math(M::Abs, &[v[0]]);
                        let inf = self.float_like(f64::INFINITY, arg_ty, loc)?;
                        self.b.binary(B::Less, a, inf)
                    }
                };
                self.bool_to_int(c, ty, loc)?
            }
            MathFn::Signbit => {
                let c = self.sign_bit_set(v[0], arg_ty);
                self.bool_to_int(c, ty, loc)?
            }
            _ => return Err(LowerError::new(loc, "this math function is not supported yet")),
        })
    }

    /// Full-precision `rsqrt`: the hardware's inverse square root (NVIDIA's is an
    /// approximation beyond the 2 ulp OpenCL allows) with one Newton step y + y e / 2 on the
    /// residual e = 1 - x y². e is formed as 1 - g y - h y from g = x y and its rounding error
    /// h, each through `Fma`: exact where it is fused, and within 2^-23 of e where it rounds
    /// twice (lavapipe). A host simulation over every binade, with estimates up to 3 ulp off:
    /// 0.5 ulp fused, 1.3 unfused; the limit is 2. Zeros (flushed
    /// subnormals compare equal to 0) and infinities keep the hardware's ±inf / 0; NaN stays
    /// NaN.
    fn rsqrt(&mut self, x: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let y = self.b.math(M::InverseSqrt, &[x]);
        let g = self.b.binary(B::Multiply, x, y);
        let neg_g = self.b.unary(naga::UnaryOperator::Negate, g);
        let h = self.b.math(M::Fma, &[x, y, neg_g]);
        let one = self.float_like(1.0, ty, loc)?;
        let e = self.b.math(M::Fma, &[neg_g, y, one]);
        let neg_h = self.b.unary(naga::UnaryOperator::Negate, h);
        let e = self.b.math(M::Fma, &[neg_h, y, e]);
        let half = self.float_like(0.5, ty, loc)?;
        let half_y = self.b.binary(B::Multiply, y, half);
        let r = self.b.math(M::Fma, &[half_y, e, y]);
        let zero = self.float_like(0.0, ty, loc)?;
        let x_zero = self.b.binary(B::Equal, x, zero);
        let x_inf = self.is_inf(x);
        let keep = self.b.select(x_zero, x_zero, x_inf);
        Ok(self.b.select(keep, y, r))
    }

    /// The argument of a hardware float logarithm (`f` a logarithm) with subnormals flushed
    /// to zero of their sign (lavapipe's gave log(2^-127) for 2^-141; the device reports no float denormals,
    /// so a flushed input is a result the spec allows). Other functions' arguments as given.
    fn flush_log_argument(&mut self, f: MathFn, v: &[Handle<Expression>], ty: &T, loc: Loc) -> R<Vec<Handle<Expression>>> {
        let hardware_log = matches!(f, MathFn::Log | MathFn::Log2 | MathFn::Log10) && ty.element() == Some(S::Float);
        let Some(&x) = v.first().filter(|_| hardware_log) else { return Ok(v.to_vec()) };
        let a = self.b.math(M::Abs, &[x]);
        let min = self.float_like(f64::from(f32::MIN_POSITIVE), ty, loc)?;
        let tiny = self.b.binary(B::Less, a, min);
        let zero = self.float_like(0.0, ty, loc)?;
        let signed_zero = self.copysign(zero, x, ty);
        Ok(vec![self.b.select(tiny, signed_zero, x)])
    }

    /// half_log, half_log2, half_log10: the hardware's logarithm, which loses its relative
    /// precision near 1 (lavapipe's was 15000 ulp off at 1 - 2^-14), except there: for
    /// |x - 1| < 1/16 the series f - f²/2 + ... - f⁸/8 of f = x - 1 (exact), within 2^-28
    /// (half_powr multiplies its error by y log2 x, up to 128).
    fn half_log(&mut self, f: MathFn, x: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let (native, scale) = match f {
            MathFn::Log => (self.b.math(M::Log, &[x]), 1.0),
            MathFn::Log2 => (self.b.math(M::Log2, &[x]), std::f64::consts::LOG2_E),
            _ => {
                let l = self.b.math(M::Log2, &[x]);
                let k = self.float_like(std::f64::consts::LOG10_2, ty, loc)?;
                (self.b.binary(B::Multiply, l, k), std::f64::consts::LOG10_E)
            }
        };
        let one = self.float_like(1.0, ty, loc)?;
        let t = self.b.binary(B::Subtract, x, one);
        let mut acc = self.float_like(-1.0 / 8.0, ty, loc)?;
        for c in [1.0 / 7.0, -1.0 / 6.0, 1.0 / 5.0, -0.25, 1.0 / 3.0, -0.5, 1.0] {
            let m = self.b.binary(B::Multiply, acc, t);
            let c = self.float_like(c, ty, loc)?;
            acc = self.b.binary(B::Add, m, c);
        }
        let series = self.b.binary(B::Multiply, acc, t);
        let k = self.float_like(scale, ty, loc)?;
        let series = self.b.binary(B::Multiply, series, k);
        let at = self.b.math(M::Abs, &[t]);
        let near = self.float_like(1.0 / 16.0, ty, loc)?;
        let close = self.b.binary(B::Less, at, near);
        Ok(self.b.select(close, series, native))
    }

    /// √(x² + y²) without overflow or underflow in the squares: both scaled by the power of
    /// two that brings the larger to [2, 4), the root scaled back; +∞ where either is
    /// infinite (even with a NaN), NaN where either is NaN otherwise.
    fn hypot(&mut self, x: Handle<Expression>, y: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let double = ty.element() == Some(S::Double);
        let (mantissa, bias) = if double { (52, 1023) } else { (23, 127) };
        let (ax, ay) = (self.b.math(M::Abs, &[x]), self.b.math(M::Abs, &[y]));
        let m = self.b.math(M::Max, &[ax, ay]);
        let bits = self.b.cast(m, naga::ScalarKind::Uint, None);
        let k = self.b.u32(mantissa);
        let k = self.match_width(k, ty);
        let field = self.b.binary(B::ShiftRight, bits, k);
        let field = self.b.cast(field, naga::ScalarKind::Sint, Some(4));
        let ity = match ty {
            T::Vector(_, n) => T::Vector(S::Int, *n),
            _ => T::Scalar(S::Int),
        };
        let one = self.int_like(1, &ity, loc)?;
        let field = self.b.math(M::Max, &[field, one]);
        // m = 2^e f, f in [1, 2) (subnormals: e of the least normal): scale by 2^(1 - e).
        let k1 = self.int_like(bias + 1, &ity, loc)?;
        let down = self.b.binary(B::Subtract, k1, field);
        let (sx, sy) = (self.b.math(M::Ldexp, &[ax, down]), self.b.math(M::Ldexp, &[ay, down]));
        let (xx, yy) = (self.b.binary(B::Multiply, sx, sx), self.b.binary(B::Multiply, sy, sy));
        let s = self.b.binary(B::Add, xx, yy);
        let r = self.b.math(M::Sqrt, &[s]);
        let up = self.b.unary(naga::UnaryOperator::Negate, down);
        let r = self.b.math(M::Ldexp, &[r, up]);
        let (xn, yn) = (self.is_nan(x), self.is_nan(y));
        let nan = self.b.select(xn, xn, yn);
        let sum = self.b.binary(B::Add, x, y);
        let r = self.b.select(nan, sum, r);
        let (xi, yi) = (self.is_inf(x), self.is_inf(y));
        let inf_in = self.b.select(xi, xi, yi);
        let inf = self.float_like(f64::INFINITY, ty, loc)?;
        Ok(self.b.select(inf_in, inf, r))
    }

    /// Whether the sign bit of float (vector) `x` of type `ty` is set (-0.0 and NaNs included).
    pub(super) fn sign_bit_set(&mut self, x: Handle<Expression>, ty: &T) -> Handle<Expression> {
        let bits = self.b.cast(x, naga::ScalarKind::Sint, None);
        let zero = if ty.element() == Some(S::Double) { self.b.lit(naga::Literal::I64(0)) } else { self.b.i32(0) };
        let zero = self.match_width(zero, ty);
        self.b.binary(B::Less, bits, zero)
    }

    pub(super) fn match_width(&mut self, scalar: Handle<Expression>, like: &T) -> Handle<Expression> {
        self.splat_to(scalar, like, Loc::default()).unwrap_or(scalar)
    }

    /// |mag| with the sign of `sign`.
    /// Round to nearest, ties to even, computed exactly from the fraction `|x| - floor(|x|)`.
    /// For double: lavapipe (Mesa 22.3, on AMD EPYC) rounds ties of f64 `RoundEven` toward zero
    /// and rounds f64 `Trunc` to nearest; `Floor` is right everywhere.
    pub(super) fn round_half_even(&mut self, x: Handle<Expression>, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let a = self.b.math(M::Abs, &[x]);
        let t = self.b.math(M::Floor, &[a]);
        let frac = self.b.binary(B::Subtract, a, t);
        let (half, one, zero) = (self.float_like(0.5, ty, loc)?, self.float_like(1.0, ty, loc)?, self.float_like(0.0, ty, loc)?);
        // t is odd when t / 2 (exact) has a fraction.
        let t_half = self.b.binary(B::Multiply, t, half);
        let t_half_int = self.b.math(M::Floor, &[t_half]);
        let odd = self.b.binary(B::NotEqual, t_half_int, t_half);
        let above = self.b.binary(B::Greater, frac, half);
        let tie = self.b.binary(B::Equal, frac, half);
        // Component-wise and/or by select: naga's logical operators take scalars only.
        let tie_odd = self.b.select(tie, odd, tie);
        let up = self.b.select(above, above, tie_odd);
        let step = self.b.select(up, one, zero);
        let r = self.b.binary(B::Add, t, step);
        Ok(self.copysign(r, x, ty))
    }

    pub(super) fn copysign(&mut self, mag: Handle<Expression>, sign: Handle<Expression>, ty: &T) -> Handle<Expression> {
        let a = self.b.math(M::Abs, &[mag]);
        let n = self.b.unary(naga::UnaryOperator::Negate, a);
        let neg = self.sign_bit_set(sign, ty);
        self.b.select(neg, n, a)
    }

    /// `cross` of 4-vectors: the cross product of the xyz parts, w = 0.
    fn cross4(&mut self, v: &[Handle<Expression>], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let (a, b) = (self.swizzle(v[0], ty, &[0, 1, 2], loc)?, self.swizzle(v[1], ty, &[0, 1, 2], loc)?);
        let c = self.b.math(M::Cross, &[a, b]);
        let zero = self.float_like(0.0, &T::Scalar(ty.element().unwrap_or(S::Float)), loc)?;
        let parts = vec![self.b.member(c, 0), self.b.member(c, 1), self.b.member(c, 2), zero];
        let nty = self.naga_ty(ty, loc)?;
        Ok(self.b.compose(nty, parts))
    }

    pub(super) fn int_like(&mut self, v: i64, ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let lit = match reg_scalar(ty.element().unwrap_or(S::Int)) {
            s if s == naga::Scalar::I32 => naga::Literal::I32(v as i32),
            s if s == naga::Scalar::U32 => naga::Literal::U32(v as u32),
            s if s == naga::Scalar::I64 => naga::Literal::I64(v),
            s if s == naga::Scalar::U64 => naga::Literal::U64(v as u64),
            _ => return Err(LowerError::new(loc, "internal: integer constant of a float type")),
        };
        let l = self.b.lit(lit);
        Ok(self.match_width(l, ty))
    }

    /// `select(a, b, c)`: per component of a vector, the most significant bit of `c` decides
    /// (tested in the register, where 8/16-bit unsigned masks are zero-extended); for a
    /// scalar, whether `c` is nonzero.
    fn select_fn(&mut self, v: &[Handle<Expression>], cty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [a, b, c] = three(v, loc)?;
        let zero = self.zero_of(cty, loc)?;
        let cond = match cty {
            T::Vector(s, _) => {
                let msb = self.int_like(1i64 << (8 * s.size() - 1), cty, loc)?;
                let bit = self.b.binary(B::And, c, msb);
                self.b.binary(B::NotEqual, bit, zero)
            }
            _ => self.b.binary(B::NotEqual, c, zero),
        };
        Ok(self.b.select(cond, b, a))
    }

    /// `bitselect(a, b, c)`: each bit from `b` where `c`'s is set, else from `a`; floats
    /// select on their bit patterns.
    fn bitselect_fn(&mut self, v: &[Handle<Expression>], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [a, b, c] = three(v, loc)?;
        match ty.element() {
            // A half lives in an f32 register: select on its 16 bits, component by component.
            Some(S::Half) => {
                let [a, b, c] = [a, b, c].map(|x| self.components(x, ty));
                let comps = (a.into_iter().zip(b).zip(c))
                    .map(|((a, b), c)| {
                        let [a, b, c] = [a, b, c].map(|x| self.bits_of(x, S::Half));
                        let r = self.bit_blend(a, b, c);
                        self.value_of_bits(r, S::Half)
                    })
                    .collect();
                self.compose_components(comps, ty, loc)
            }
            Some(s) if s.is_float() => {
                let [a, b, c] = [a, b, c].map(|x| self.b.cast(x, naga::ScalarKind::Uint, None));
                let r = self.bit_blend(a, b, c);
                Ok(self.b.cast(r, naga::ScalarKind::Float, None))
            }
            _ => Ok(self.bit_blend(a, b, c)),
        }
    }

    /// `(a & ~c) | (b & c)` on integer registers.
    fn bit_blend(&mut self, a: Handle<Expression>, b: Handle<Expression>, c: Handle<Expression>) -> Handle<Expression> {
        let nc = self.b.unary(naga::UnaryOperator::BitwiseNot, c);
        let (l, r) = (self.b.binary(B::And, a, nc), self.b.binary(B::And, b, c));
        self.b.binary(B::InclusiveOr, l, r)
    }

    /// `any(x)` / `all(x)`: whether the sign bit of any / every component is set, as int 0/1.
    fn any_all(&mut self, all: bool, args: &[Expr], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [x] = args else { return Err(LowerError::new(loc, "internal: any/all arguments")) };
        let v = self.eval_value(x)?;
        let width = x.ty.width();
        let (parts, part_ty) = if width > 4 {
            let s = x.ty.element().unwrap_or(S::Int);
            ((0..u32::from(width / 4)).map(|k| self.b.member(v, k)).collect(), T::Vector(s, 4))
        } else {
            (vec![v], x.ty.clone())
        };
        let mut acc = None;
        for part in parts {
            let zero = self.zero_of(&part_ty, loc)?;
            let neg = self.b.binary(B::Less, part, zero);
            let fun = if all { naga::RelationalFunction::All } else { naga::RelationalFunction::Any };
            let b = if part_ty.width() > 1 { self.b.expr(Expression::Relational { fun, argument: neg }) } else { neg };
            acc = Some(match acc {
                Some(a) => self.b.binary(if all { B::LogicalAnd } else { B::LogicalOr }, a, b),
                None => b,
            });
        }
        let acc = acc.ok_or_else(|| LowerError::new(loc, "internal: any/all of nothing"))?;
        self.bool_to_int(acc, ty, loc)
    }

    /// `vloadn(offset, p)`.
    fn vload(&mut self, n: u8, args: &[Expr], ty: &T, loc: Loc) -> R<Handle<Expression>> {
        let [off, p] = args else { return Err(LowerError::new(loc, "internal: vload arguments")) };
        let base = self.vector_base(n, off, p, loc)?;
        let mut comps = Vec::new();
        for k in 0..u32::from(n) {
            let kk = self.b.u32(k);
            let ptr = self.ptr_add(base.clone(), kk, loc)?;
            let access = self.ptr_access(&ptr, loc)?;
            comps.push(self.load_access(&access, loc)?);
        }
        self.compose_components(comps, ty, loc)
    }

    /// `vstoren(data, offset, p)` (also `vstore_halfn[_rounding]`, which converts on the way).
    fn vstore(&mut self, n: u8, args: &[Expr], rounding: Rounding, loc: Loc) -> R<()> {
        let [data, off, p] = args else { return Err(LowerError::new(loc, "internal: vstore arguments")) };
        let v = self.eval_value(data)?;
        let base = self.vector_base(n, off, p, loc)?;
        let comps = self.components(v, &data.ty);
        let elem = data.ty.element().map_or(T::Void, T::Scalar);
        let to_half = matches!(&p.ty, T::Pointer { pointee, .. } if **pointee == T::Scalar(S::Half));
        // vstore_half of double: through float rounded to odd, so that the rounding to half
        // afterwards is the one correct rounding. A directed mode rounds to a value the
        // store's conversion to half keeps.
        let directed = to_half && matches!(rounding, Rounding::Rtz | Rounding::Rtp | Rounding::Rtn);
        let via_float = to_half && elem == T::Scalar(S::Double);
        let stored = if via_float { T::Scalar(S::Float) } else { elem.clone() };
        for (k, c) in (0..u32::from(n)).zip(comps) {
            let c = match (directed, via_float) {
                (true, _) => self.half_directed(c, &elem, rounding, loc)?,
                (false, true) => self.double_to_float_odd(c),
                (false, false) => c,
            };
            let kk = self.b.u32(k);
            let ptr = self.ptr_add(base.clone(), kk, loc)?;
            let access = self.ptr_access(&ptr, loc)?;
            self.store_access(&access, c, &stored, loc)?;
        }
        Ok(())
    }

    /// A double scalar as the float next to it with an odd last bit when the conversion is
    /// inexact (round to odd): a later rounding to a narrower format cannot round twice.
    pub(super) fn double_to_float_odd(&mut self, d: Handle<Expression>) -> Handle<Expression> {
        let f = self.b.cast(d, naga::ScalarKind::Float, Some(4));
        let back = self.b.cast(f, naga::ScalarKind::Float, Some(8));
        let inexact = self.b.binary(B::NotEqual, back, d);
        let bits = self.b.cast(f, naga::ScalarKind::Uint, None);
        let (one, zero) = (self.b.u32(1), self.b.u32(0));
        let odd = self.b.binary(B::And, bits, one);
        let even = self.b.binary(B::Equal, odd, zero);
        // The odd neighbour lies toward d: one up in magnitude when |d| > |f|, else one down.
        let (ad, af) = (self.b.math(M::Abs, &[d]), self.b.math(M::Abs, &[back]));
        let away = self.b.binary(B::Greater, ad, af);
        let up = self.b.binary(B::Add, bits, one);
        let down = self.b.binary(B::Subtract, bits, one);
        let step = self.b.select(away, up, down);
        let fix = self.b.select(inexact, even, inexact);
        let bits = self.b.select(fix, step, bits);
        self.b.cast(bits, naga::ScalarKind::Float, None)
    }

    /// `p + offset * n`.
    fn vector_base(&mut self, n: u8, off: &Expr, p: &Expr, loc: Loc) -> R<super::place::Ptr> {
        let o = self.eval_value(off)?;
        let o = self.index_u32(o, &off.ty);
        let nn = self.b.u32(u32::from(n));
        let o = self.b.binary(B::Multiply, o, nn);
        let ptr = self.eval_ptr(p)?;
        self.ptr_add(ptr, o, loc)
    }
}

fn barrier_flags(f: FenceFlags) -> naga::Barrier {
    let mut b = naga::Barrier::empty();
    if f.local {
        b |= naga::Barrier::WORK_GROUP;
    }
    if f.global {
        b |= naga::Barrier::STORAGE;
    }
    if b.is_empty() {
        b = naga::Barrier::WORK_GROUP;
    }
    b
}

/// How many arguments the element-wise built-in `bi` reads.
fn arity(bi: Builtin) -> usize {
    use MathFn::*;
    match bi {
        Builtin::Math(Fma | Mad | Clamp | Mix | Smoothstep, _) => 3,
        Builtin::Math(
            Fmin | Fmax | Fmod | Hypot | Copysign | Min | Max | Step | Pow | Powr | Atan2 | Divide | Dot | Distance | Cross | Atan2pi | Ldexp | Pown | Rootn
            | Fdim | Maxmag | Minmag | Nextafter | Remainder | RemquoQuotient,
            _,
        ) => 2,
        Builtin::Math(..) => 1,
        Builtin::Int(IntFn::Clamp | IntFn::Mad24 | IntFn::MadHi | IntFn::MadSat) => 3,
        Builtin::Int(IntFn::Abs | IntFn::Clz | IntFn::Ctz | IntFn::Popcount) => 1,
        Builtin::Int(_) => 2,
        Builtin::Select | Builtin::Bitselect => 3,
        _ => 0,
    }
}


fn three(v: &[Handle<Expression>], loc: Loc) -> R<[Handle<Expression>; 3]> {
    match v {
        [a, b, c] => Ok([*a, *b, *c]),
        _ => Err(LowerError::new(loc, "internal: three arguments expected")),
    }
}
