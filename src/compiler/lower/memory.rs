//! Buffers holding 8/16-bit data. naga has no 8-bit types, so such a buffer (and any struct
//! with 8/16-bit members in it) is seen as u32 words and every access is decomposed down to
//! scalars at byte offsets: a load extracts bits; a store of whole words writes them plainly,
//! a smaller store clears and sets its bits with `atomicAnd`/`atomicOr` on an atomic view, so
//! neighbouring work-items writing the other bytes of a word stay exact. Packed records go
//! through words too; where a program has one, a value may start at any byte, and whole-word
//! and 16-bit accesses are funnelled from (or merged into) the two words they may straddle.

use super::types::reg_scalar;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{AtomicFunction, BinaryOperator as B, Expression, Handle, ScalarKind, Statement, TypeInner};

type H = Handle<Expression>;

/// Largest aggregate copied part by part through words.
const MAX_BYTEWISE_COPY: u64 = 64 * 1024;

/// Where words live: a word-viewed buffer argument, or a variable that is an array of u32
/// words (a union in private or, atomic, in workgroup memory).
#[derive(Clone, Copy, Debug)]
pub enum Words {
    Buffer(usize),
    Var { ptr: H, shared: bool },
}

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

    /// Pointer to the word holding byte `byte`, and the bit shift of that byte in it. For a
    /// buffer, `atomic` chooses the atomic view.
    fn word_at(&mut self, base: Words, byte: H, atomic: bool, loc: Loc) -> R<(H, H)> {
        let (view, byte) = match base {
            Words::Buffer(arg) => {
                let view = self.word_view(arg, atomic, loc)?;
                // Byte 0 of a shifted argument lies past its binding's start.
                match self.shift_of(arg) {
                    0 => (view, byte),
                    shift => {
                        let shift = self.b.u32(shift);
                        (view, self.b.binary(B::Add, byte, shift))
                    }
                }
            }
            Words::Var { ptr, .. } => (ptr, byte),
        };
        let two = self.b.u32(2);
        let index = self.b.binary(B::ShiftRight, byte, two);
        let ptr = self.element(view, index);
        let three = self.b.u32(3);
        let in_word = self.b.binary(B::And, byte, three);
        let shift = self.b.binary(B::ShiftLeft, in_word, three);
        Ok((ptr, shift))
    }

    /// Loads a value of type `ty` at byte offset `byte` of word-viewed buffer `arg`.
    pub(super) fn load_bytes(&mut self, arg: Words, byte: H, ty: &T, loc: Loc) -> R<H> {
        match ty {
            // A pointer held in memory is its integer (`region.rs`).
            T::Pointer { .. } => self.load_bytes(arg, byte, &self.held_ty(), loc),
            T::Scalar(s) if s.size() < 4 || *s == S::Bool => {
                let bits = self.load_bits(arg, byte, s.size(), loc)?;
                Ok(self.narrow_from_bits(bits, *s))
            }
            T::Scalar(s) => {
                let kind = reg_scalar(*s).kind;
                let lo = self.load_bits(arg, byte, 4, loc)?;
                if s.size() == 4 {
                    return Ok(self.b.cast(lo, kind, None));
                }
                let four = self.b.u32(4);
                let next = self.b.binary(B::Add, byte, four);
                let hi = self.load_bits(arg, next, 4, loc)?;
                let (lo, hi) = (self.b.cast(lo, ScalarKind::Uint, Some(8)), self.b.cast(hi, ScalarKind::Uint, Some(8)));
                let k32 = self.b.u32(32);
                let up = self.b.binary(B::ShiftLeft, hi, k32);
                let both = self.b.binary(B::InclusiveOr, up, lo);
                Ok(self.b.cast(both, kind, None))
            }
            T::Record(id) if self.is_union(*id) => {
                // A union is its words.
                let n = self.program.types.size_of(ty).div_ceil(4) as u32;
                let words = (0..n)
                    .map(|k| {
                        let o = self.b.u32(4 * k);
                        let b = self.b.binary(B::Add, byte, o);
                        self.load_bits(arg, b, 4, loc)
                    })
                    .collect::<R<Vec<_>>>()?;
                let nty = self.naga_ty(ty, loc)?;
                Ok(self.b.compose(nty, words))
            }
            _ => {
                let parts = self.byte_parts(ty, loc)?;
                let values = parts
                    .iter()
                    .map(|(off, pty)| {
                        let o = self.b.u32(*off);
                        let b = self.b.binary(B::Add, byte, o);
                        self.load_bytes(arg, b, pty, loc)
                    })
                    .collect::<R<Vec<_>>>()?;
                match ty {
                    T::Vector(..) => self.compose_components(values, ty, loc),
                    _ => {
                        let nty = self.naga_ty(ty, loc)?;
                        Ok(self.b.compose(nty, values))
                    }
                }
            }
        }
    }

    fn is_union(&self, id: crate::compiler::sema::model::RecordId) -> bool {
        self.program.types.record(id).is_some_and(|r| r.is_union)
    }

    /// The parts of a vector, array or record: (byte offset, type) of each component, element
    /// or member. Such values are copied part by part, so their size is capped.
    fn byte_parts(&self, ty: &T, loc: Loc) -> R<Vec<(u32, T)>> {
        if self.program.types.size_of(ty) > MAX_BYTEWISE_COPY {
            return Err(LowerError::new(loc, "copying a value of more than 64 KiB with 8/16-bit parts (or through words) is not supported"));
        }
        Ok(match ty {
            T::Vector(s, n) => (0..u32::from(*n)).map(|k| (k * s.size(), T::Scalar(*s))).collect(),
            T::Array { elem, len } => {
                let size = self.program.types.size_of(elem) as u32;
                (0..*len).map(|k| (k * size, (**elem).clone())).collect()
            }
            T::Record(id) => {
                let rec = self.program.types.record(*id).ok_or_else(|| LowerError::new(loc, "internal: unknown record"))?;
                if rec.is_union {
                    return Err(LowerError::new(loc, "unions are not supported yet"));
                }
                rec.members.iter().map(|m| (m.offset, m.ty.clone())).collect()
            }
            _ => return Err(LowerError::new(loc, "pointers stored in buffers are not supported")),
        })
    }

    /// `value` of type `from` reread as type `to` (same size) through private words.
    pub(super) fn reinterpret(&mut self, value: H, from: &T, to: &T, loc: Loc) -> R<H> {
        let bytes = self.program.types.size_of(to).max(self.program.types.size_of(from)) as u32;
        let (ptr, start) = self.word_scratch(bytes, loc)?;
        self.store_bytes(Words::Var { ptr, shared: false }, start, from, value, loc)?;
        self.load_bytes(Words::Var { ptr, shared: false }, start, to, loc)
    }

    /// Words (u32 values, in order) reread as a value of type `ty`.
    pub(super) fn reinterpret_words(&mut self, words: Vec<H>, ty: &T, loc: Loc) -> R<H> {
        let (ptr, start) = self.word_scratch(4 * words.len() as u32, loc)?;
        for (k, w) in (0u32..).zip(words) {
            let i = self.b.u32(k);
            let p = self.b.index(ptr, i);
            self.b.store(p, w);
        }
        self.load_bytes(Words::Var { ptr, shared: false }, start, ty, loc)
    }

    /// A fresh zeroed private array of at least `bytes` bytes of words, and byte offset 0.
    fn word_scratch(&mut self, bytes: u32, loc: Loc) -> R<(H, H)> {
        let n = std::num::NonZeroU32::new(bytes.div_ceil(4)).ok_or_else(|| LowerError::new(loc, "internal: empty value"))?;
        let word = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let ty = super::builder::intern(&mut self.module, TypeInner::Array { base: word, size: naga::ArraySize::Constant(n), stride: 4 });
        let var = self.b.local("words", ty);
        let ptr = self.b.expr(Expression::LocalVariable(var));
        let zero = self.b.expr(Expression::ZeroValue(ty));
        self.b.store(ptr, zero);
        Ok((ptr, self.b.u32(0)))
    }

    /// The bits of a register value of scalar `s` (at most 32 bits wide) as u32.
    pub(super) fn bits_of(&mut self, v: Handle<Expression>, s: S) -> Handle<Expression> {
        if super::types::is_narrow(s) { self.scalar_bits(v, s) } else { self.b.cast(v, ScalarKind::Uint, None) }
    }

    /// The register value of scalar `s` (at most 32 bits wide) whose bits are u32 `bits`.
    pub(super) fn value_of_bits(&mut self, bits: Handle<Expression>, s: S) -> Handle<Expression> {
        if super::types::is_narrow(s) { self.narrow_from_bits(bits, s) } else { self.b.cast(bits, reg_scalar(s).kind, None) }
    }

    /// The register value of narrow scalar `s` held in the low bits of u32 `bits`.
    pub(super) fn narrow_from_bits(&mut self, bits: Handle<Expression>, s: S) -> Handle<Expression> {
        let width = s.size() * 8;
        match s {
            S::Half => self.half_from_bits(bits),
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


    /// Stores `value` (of type `ty`, in registers) at byte `byte` of word-viewed buffer `arg`.
    pub(super) fn store_bytes(&mut self, arg: Words, byte: H, ty: &T, value: H, loc: Loc) -> R<()> {
        match ty {
            T::Pointer { .. } => self.store_bytes(arg, byte, &self.held_ty(), value, loc),
            T::Scalar(s) if s.size() < 4 || *s == S::Bool => self.narrow_scalar_store(arg, byte, *s, value, loc),
            T::Scalar(s) => {
                let bits = self.b.cast(value, ScalarKind::Uint, None);
                let words = if s.size() == 4 {
                    vec![bits]
                } else {
                    let k32 = self.b.u32(32);
                    let hi = self.b.binary(B::ShiftRight, bits, k32);
                    vec![self.b.cast(bits, ScalarKind::Uint, Some(4)), self.b.cast(hi, ScalarKind::Uint, Some(4))]
                };
                for (k, w) in (0u32..).zip(words) {
                    let off = self.b.u32(4 * k);
                    let b = self.b.binary(B::Add, byte, off);
                    self.store_bits(arg, b, w, 4, loc)?;
                }
                Ok(())
            }
            T::Vector(s, _) if s.size() < 4 && self.program.types.size_of(ty).is_multiple_of(4) => self.store_packed(arg, byte, *s, ty, value, loc),
            T::Record(id) if self.is_union(*id) => {
                // Whole words plainly, a partial last word byte by byte.
                let size = self.program.types.size_of(ty) as u32;
                for k in 0..size.div_ceil(4) {
                    let word = self.b.member(value, k);
                    let o = self.b.u32(4 * k);
                    let b = self.b.binary(B::Add, byte, o);
                    if 4 * k + 4 <= size {
                        self.store_bits(arg, b, word, 4, loc)?;
                        continue;
                    }
                    for j in 0..size - 4 * k {
                        let sh = self.b.u32(8 * j);
                        let v = self.b.binary(B::ShiftRight, word, sh);
                        let o = self.b.u32(j);
                        let bj = self.b.binary(B::Add, b, o);
                        self.narrow_scalar_store(arg, bj, S::UChar, v, loc)?;
                    }
                }
                Ok(())
            }
            _ => {
                let parts = self.byte_parts(ty, loc)?;
                let values = match ty {
                    T::Vector(..) => self.components(value, ty),
                    _ => (0..parts.len() as u32).map(|k| self.b.member(value, k)).collect(),
                };
                for ((off, pty), v) in parts.iter().zip(values) {
                    let o = self.b.u32(*off);
                    let b = self.b.binary(B::Add, byte, o);
                    self.store_bytes(arg, b, pty, v, loc)?;
                }
                Ok(())
            }
        }
    }

    /// A vector of 8/16-bit elements filling whole words: packed and stored plainly.
    fn store_packed(&mut self, arg: Words, byte: H, s: S, ty: &T, value: H, loc: Loc) -> R<()> {
        let comps = self.components(value, ty);
        let per_word = 4 / s.size();
        for (w, chunk) in (0u32..).zip(comps.chunks(per_word as usize)) {
            let mut word = self.b.u32(0);
            for (j, &c) in (0u32..).zip(chunk) {
                let bits = self.scalar_bits(c, s);
                let sh = self.b.u32(j * s.size() * 8);
                let placed = self.b.binary(B::ShiftLeft, bits, sh);
                word = self.b.binary(B::InclusiveOr, word, placed);
            }
            let off = self.b.u32(w * 4);
            let b = self.b.binary(B::Add, byte, off);
            self.store_bits(arg, b, word, 4, loc)?;
        }
        Ok(())
    }

    /// The low `size` bytes of a narrow register value as u32 bits (rest zero).
    fn scalar_bits(&mut self, v: Handle<Expression>, s: S) -> Handle<Expression> {
        let bits = match s {
            S::Half => self.half_to_bits(v),
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

    fn narrow_scalar_store(&mut self, arg: Words, byte: H, s: S, v: H, loc: Loc) -> R<()> {
        let bits = self.scalar_bits(v, s);
        self.store_bits(arg, byte, bits, s.size(), loc)
    }

    /// Whether the program has a packed record: then a value in words may start at any byte.
    fn unaligned_words(&self) -> bool {
        self.program.types.records.iter().any(|r| r.packed)
    }

    /// Whether `size` bytes starting at bit `shift` of a word run into the next word.
    fn straddles(&mut self, shift: H, size: u32) -> H {
        let last = self.b.u32(32 - 8 * size);
        self.b.binary(B::Greater, shift, last)
    }

    /// `32 - shift` for the part of a straddling value in the next word, taken mod 32: where
    /// nothing straddles (the result is then discarded) `shift` may be a constant 0, and naga
    /// rejects a constant shift by 32 even in a discarded value.
    fn complement_shift(&mut self, shift: H) -> H {
        let (k32, k31) = (self.b.u32(32), self.b.u32(31));
        let up = self.b.binary(B::Subtract, k32, shift);
        self.b.binary(B::And, up, k31)
    }

    /// The word after the one holding `byte` where `straddles`, else that word itself (so an
    /// access that fits one word never reads past it, at the end of a buffer).
    fn spill_word(&mut self, arg: Words, byte: H, straddles: H, atomic: bool, loc: Loc) -> R<H> {
        let (four, zero) = (self.b.u32(4), self.b.u32(0));
        let step = self.b.select(straddles, four, zero);
        let b = self.b.binary(B::Add, byte, step);
        Ok(self.word_at(arg, b, atomic, loc)?.0)
    }

    /// The bits of the `size` bytes (1, 2 or 4) starting at byte `byte`, in the low bits.
    fn load_bits(&mut self, arg: Words, byte: H, size: u32, loc: Loc) -> R<H> {
        let (ptr, shift) = self.word_at(arg, byte, false, loc)?;
        let word = self.b.load(ptr);
        let unaligned = self.unaligned_words();
        if size == 4 && !unaligned {
            return Ok(word);
        }
        let low = self.b.binary(B::ShiftRight, word, shift);
        if size == 1 || !unaligned {
            return Ok(low);
        }
        let straddles = self.straddles(shift, size);
        let next = self.spill_word(arg, byte, straddles, false, loc)?;
        let next = self.b.load(next);
        let up = self.complement_shift(shift);
        let high = self.b.binary(B::ShiftLeft, next, up);
        let both = self.b.binary(B::InclusiveOr, low, high);
        Ok(self.b.select(straddles, both, low))
    }

    /// Stores the low `size` bytes (1, 2 or 4) of `bits` (nothing above them set) at byte
    /// `byte`: a whole aligned word plainly, anything smaller merged into its word (and, with
    /// packed records, the part that runs into the next word merged into that one).
    fn store_bits(&mut self, arg: Words, byte: H, bits: H, size: u32, loc: Loc) -> R<()> {
        let unaligned = self.unaligned_words();
        if size == 4 && !unaligned {
            let (ptr, _) = self.word_at(arg, byte, false, loc)?;
            self.b.store(ptr, bits);
            return Ok(());
        }
        if size < 4 || !unaligned {
            return self.merge_into_words(arg, byte, bits, size, loc);
        }
        // A word where a value may start at any byte: stored plainly where it is aligned after
        // all (most are), merged into the two words it straddles otherwise.
        let (plain, _) = self.word_at(arg, byte, false, loc)?;
        let three = self.b.u32(3);
        let (in_word, zero) = (self.b.binary(B::And, byte, three), self.b.u32(0));
        let aligned = self.b.binary(B::Equal, in_word, zero);
        self.if_stmt(
            aligned,
            |cx| {
                cx.b.store(plain, bits);
                Ok(())
            },
            |cx| cx.merge_into_words(arg, byte, bits, size, loc),
        )
    }

    /// Merges the low `size` bytes of `bits` into the word holding byte `byte` (and, with
    /// packed records, what runs into the next word into that one).
    fn merge_into_words(&mut self, arg: Words, byte: H, bits: H, size: u32, loc: Loc) -> R<()> {
        let unaligned = self.unaligned_words();
        let (ptr, shift) = self.word_at(arg, byte, true, loc)?;
        let m = self.b.u32(u32::MAX >> (32 - 8 * size));
        let mask = self.b.binary(B::ShiftLeft, m, shift);
        let placed = self.b.binary(B::ShiftLeft, bits, shift);
        self.merge_bits(arg, ptr, mask, placed);
        if size == 1 || !unaligned {
            return Ok(());
        }
        let straddles = self.straddles(shift, size);
        let next = self.spill_word(arg, byte, straddles, true, loc)?;
        let down = self.complement_shift(shift);
        let (spill_mask, spill_bits) = (self.b.binary(B::ShiftRight, m, down), self.b.binary(B::ShiftRight, bits, down));
        let zero = self.b.u32(0);
        let (mask, placed) = (self.b.select(straddles, spill_mask, zero), self.b.select(straddles, spill_bits, zero));
        self.merge_bits(arg, next, mask, placed);
        Ok(())
    }

    /// Replaces the bits of `mask` in the word at `ptr` by `placed`: atomically where other
    /// work-items may write the word's other bytes, plainly in private words.
    fn merge_bits(&mut self, arg: Words, ptr: H, mask: H, placed: H) {
        let keep = self.b.unary(naga::UnaryOperator::BitwiseNot, mask);
        if let Words::Var { shared: false, .. } = arg {
            // Private words: nobody else writes them.
            let word = self.b.load(ptr);
            let kept = self.b.binary(B::And, word, keep);
            let new = self.b.binary(B::InclusiveOr, kept, placed);
            self.b.store(ptr, new);
            return;
        }
        self.replace_bits(ptr, keep, placed);
    }

    /// Sets the bits of the atomic word `ptr` outside `keep` to `placed`, in one atomic step
    /// (a compare-exchange loop): work-items storing the other bytes of the word keep theirs,
    /// and no one ever sees the byte cleared, as an `atomicAnd` then `atomicOr` would show.
    fn replace_bits(&mut self, ptr: H, keep: H, placed: H) {
        let scalar = naga::Scalar::U32;
        let result_ty = self.module.generate_predeclared_type(naga::PredeclaredType::AtomicCompareExchangeWeakResult(scalar));
        self.b.open();
        let old = self.b.load(ptr);
        let kept = self.b.binary(B::And, old, keep);
        let new = self.b.binary(B::InclusiveOr, kept, placed);
        let result = self.b.expr(Expression::AtomicResult { ty: result_ty, comparison: true });
        self.b.stmt(Statement::Atomic { pointer: ptr, fun: AtomicFunction::Exchange { compare: Some(old) }, value: new, result: Some(result) });
        let exchanged = self.b.member(result, 1);
        // Left by the loop's test, as `c11.rs`'s loops are (lavapipe mishandles a
        // compare-exchange loop left by a `break` in its body).
        let body = self.b.close();
        self.b.stmt(Statement::Loop { body, continuing: naga::Block::new(), break_if: Some(exchanged) });
    }
}
