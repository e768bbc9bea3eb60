//! 8/16-bit data in `__global`/`__constant` buffers. naga has no 8-bit types, so such
//! buffers are seen as u32 words: a load extracts the bits; a store of a whole number of words
//! writes them plainly, any smaller store clears and sets its bits with `atomicAnd`/`atomicOr`
//! on an atomic view, so neighbouring work-items writing the other bytes of a word stay exact.

use super::types::reg_scalar;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{AtomicFunction, BinaryOperator as B, Expression, Handle, MathFunction as M, ScalarKind, Statement, TypeInner};

impl Ctx<'_> {
    /// The word view (`atomic: false`) or atomic word view of buffer argument `arg`.
    fn word_view(&mut self, arg: usize, atomic: bool, loc: Loc) -> R<Handle<Expression>> {
        let inner = if atomic { TypeInner::Atomic(naga::Scalar::U32) } else { TypeInner::Scalar(naga::Scalar::U32) };
        let ty = super::builder::intern(&mut self.module, inner);
        let view = self
            .abi
            .buffer_view(&mut self.module, arg, ty, 4)
            .ok_or_else(|| LowerError::new(loc, "internal: not a buffer argument"))?;
        Ok(self.b.expr(Expression::GlobalVariable(view)))
    }

    /// Pointer to the word holding byte `byte`, and the bit shift of that byte in it.
    fn word_at(&mut self, arg: usize, byte: Handle<Expression>, atomic: bool, loc: Loc) -> R<(Handle<Expression>, Handle<Expression>)> {
        let view = self.word_view(arg, atomic, loc)?;
        let two = self.b.u32(2);
        let index = self.b.binary(B::ShiftRight, byte, two);
        let ptr = self.b.index(view, index);
        let three = self.b.u32(3);
        let in_word = self.b.binary(B::And, byte, three);
        let shift = self.b.binary(B::ShiftLeft, in_word, three);
        Ok((ptr, shift))
    }

    /// Loads a narrow scalar or vector at byte offset `byte` of buffer `arg`.
    pub(super) fn narrow_load(&mut self, arg: usize, byte: Handle<Expression>, elem: &T, loc: Loc) -> R<Handle<Expression>> {
        let s = elem.element().ok_or_else(|| LowerError::new(loc, "internal: narrow load of an aggregate"))?;
        let comps = (0..u32::from(elem.width().max(1)))
            .map(|k| {
                let off = self.b.u32(k * s.size());
                let b = self.b.binary(B::Add, byte, off);
                self.narrow_scalar_load(arg, b, s, loc)
            })
            .collect::<R<Vec<_>>>()?;
        self.from_components(comps, elem, loc)
    }

    fn narrow_scalar_load(&mut self, arg: usize, byte: Handle<Expression>, s: S, loc: Loc) -> R<Handle<Expression>> {
        let (ptr, shift) = self.word_at(arg, byte, false, loc)?;
        let word = self.b.load(ptr);
        let bits = self.b.binary(B::ShiftRight, word, shift);
        Ok(self.narrow_from_bits(bits, s))
    }

    /// The register value of narrow scalar `s` held in the low bits of u32 `bits`.
    pub(super) fn narrow_from_bits(&mut self, bits: Handle<Expression>, s: S) -> Handle<Expression> {
        let width = s.size() * 8;
        match s {
            S::Half => {
                let m = self.b.u32(0xffff);
                let h = self.b.binary(B::And, bits, m);
                let v = self.b.math(M::Unpack2x16float, &[h]);
                self.b.member(v, 0)
            }
            S::Bool => {
                let (m, zero) = (self.b.u32(0xff), self.b.u32(0));
                let b = self.b.binary(B::And, bits, m);
                self.b.binary(B::NotEqual, b, zero)
            }
            _ if s.is_signed() => {
                let k = self.b.u32(32 - width);
                let i = self.b.cast(bits, ScalarKind::Sint, None);
                let up = self.b.binary(B::ShiftLeft, i, k);
                self.b.binary(B::ShiftRight, up, k)
            }
            _ => {
                let m = self.b.u32((1 << width) - 1);
                self.b.binary(B::And, bits, m)
            }
        }
    }

    /// Decodes a narrow scalar/vector value argument from its words (`word(k)` gives word k).
    pub(super) fn narrow_from_words(&mut self, ty: &T, word: impl Fn(&mut Self, u32) -> Handle<Expression>, loc: Loc) -> R<Handle<Expression>> {
        let s = ty.element().ok_or_else(|| LowerError::new(loc, "internal: narrow value of an aggregate"))?;
        let comps = (0..u32::from(ty.width().max(1)))
            .map(|k| {
                let byte = k * s.size();
                let w = word(self, byte / 4);
                let sh = self.b.u32((byte % 4) * 8);
                let bits = self.b.binary(B::ShiftRight, w, sh);
                self.narrow_from_bits(bits, s)
            })
            .collect::<Vec<_>>();
        self.from_components(comps, ty, loc)
    }

    /// Stores `value` (a narrow scalar or vector in registers) at byte `byte` of buffer `arg`.
    pub(super) fn narrow_store(&mut self, arg: usize, byte: Handle<Expression>, elem: &T, value: Handle<Expression>, loc: Loc) -> R<()> {
        let s = elem.element().ok_or_else(|| LowerError::new(loc, "internal: narrow store of an aggregate"))?;
        let comps = self.components(value, elem);
        let size = self.program.types.size_of(elem) as u32;
        if size % 4 == 0 {
            // Whole words: pack the components and store each word plainly.
            let per_word = 4 / s.size();
            for w in 0..size / 4 {
                let mut word = self.b.u32(0);
                for j in 0..per_word {
                    let Some(&c) = comps.get((w * per_word + j) as usize) else { break };
                    let bits = self.scalar_bits(c, s);
                    let sh = self.b.u32(j * s.size() * 8);
                    let placed = self.b.binary(B::ShiftLeft, bits, sh);
                    word = self.b.binary(B::InclusiveOr, word, placed);
                }
                let off = self.b.u32(w * 4);
                let b = self.b.binary(B::Add, byte, off);
                let (ptr, _) = self.word_at(arg, b, false, loc)?;
                self.b.store(ptr, word);
            }
            return Ok(());
        }
        for (k, c) in (0u32..).zip(comps) {
            let off = self.b.u32(k * s.size());
            let b = self.b.binary(B::Add, byte, off);
            self.narrow_scalar_store(arg, b, s, c, loc)?;
        }
        Ok(())
    }

    /// The low `size` bytes of a narrow register value as u32 bits (rest zero).
    fn scalar_bits(&mut self, v: Handle<Expression>, s: S) -> Handle<Expression> {
        let bits = match s {
            S::Half => {
                let zero = self.b.lit(naga::Literal::F32(0.0));
                let ty = super::builder::intern(&mut self.module, TypeInner::Vector { size: naga::VectorSize::Bi, scalar: naga::Scalar::F32 });
                let pair = self.b.compose(ty, vec![v, zero]);
                self.b.math(M::Pack2x16float, &[pair])
            }
            S::Bool => {
                let (one, zero) = (self.b.u32(1), self.b.u32(0));
                self.b.select(v, one, zero)
            }
            _ if reg_scalar(s).kind == ScalarKind::Sint => self.b.cast(v, ScalarKind::Uint, None),
            _ => v,
        };
        let m = self.b.u32((1u32 << (s.size() * 8)) - 1);
        self.b.binary(B::And, bits, m)
    }

    fn narrow_scalar_store(&mut self, arg: usize, byte: Handle<Expression>, s: S, v: Handle<Expression>, loc: Loc) -> R<()> {
        let (ptr, shift) = self.word_at(arg, byte, true, loc)?;
        let bits = self.scalar_bits(v, s);
        let m = self.b.u32((1u32 << (s.size() * 8)) - 1);
        let mask = self.b.binary(B::ShiftLeft, m, shift);
        let keep = self.b.unary(naga::UnaryOperator::BitwiseNot, mask);
        let placed = self.b.binary(B::ShiftLeft, bits, shift);
        self.b.stmt(Statement::Atomic { pointer: ptr, fun: AtomicFunction::And, value: keep, result: None });
        self.b.stmt(Statement::Atomic { pointer: ptr, fun: AtomicFunction::InclusiveOr, value: placed, result: None });
        Ok(())
    }
}
