//! `printf`: a call appends one record to the printf buffer (`compiler/printf.rs`). Its values
//! are evaluated first; then the counter in word 0 is advanced atomically by the record's
//! length and the record written at the words it reserved. A record that does not fit is
//! dropped (the call returns -1): records are reserved in order, so the written ones are a
//! prefix of the buffer, and the first one that fails marks its start with `END_MARK` when
//! that word is inside the buffer. Once the buffer is full no call advances the counter any
//! more, so it cannot wrap around.

use super::{Ctx, LowerError, R};
use crate::compiler::printf::{element_words, CAPACITY_WORDS, END_MARK};
use crate::compiler::sema::model::{Expr, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, ScalarKind, Statement};

type H = Handle<Expression>;

impl Ctx<'_> {
    /// Printf call number `id` storing `args`; its `int` result.
    pub(super) fn printf(&mut self, id: u32, args: &[Expr], loc: Loc) -> R<H> {
        let mut words = vec![self.b.u32(id)];
        for a in args {
            let v = self.eval_value(a)?;
            words.extend(self.record_words(v, &a.ty, loc)?);
        }
        let n = u32::try_from(words.len()).ok().filter(|&n| n <= CAPACITY_WORDS);
        let n = n.ok_or_else(|| LowerError::new(loc, "the arguments of this printf call do not fit in the printf buffer"))?;
        let (buffer, _) = match self.printf_buffer {
            Some(b) => b,
            None => *self.printf_buffer.insert(self.abi.add_printf_buffer(&mut self.module)),
        };
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let i32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::I32);
        let ret = self.b.local("printf_result", i32_ty);
        let ret = self.b.expr(Expression::LocalVariable(ret));
        let failed = self.b.i32(-1);
        self.b.store(ret, failed);

        let base = self.b.expr(Expression::GlobalVariable(buffer));
        let counter = self.b.member(base, 0);
        let used = self.b.load(counter);
        let capacity = self.b.u32(CAPACITY_WORDS);
        let room = self.b.binary(B::Less, used, capacity);
        self.b.open();
        let count = self.b.u32(n);
        let start = self.b.expr(Expression::AtomicResult { ty: u32_ty, comparison: false });
        self.b.stmt(Statement::Atomic { pointer: counter, fun: naga::AtomicFunction::Add, value: count, result: Some(start) });
        let last_start = self.b.u32(CAPACITY_WORDS - n);
        let fits = self.b.binary(B::LessEqual, start, last_start);
        let one = self.b.u32(1);
        let first = self.b.binary(B::Add, start, one);
        self.b.if_else(
            fits,
            |b| {
                for (k, w) in (0u32..).zip(&words) {
                    let k = b.u32(k);
                    let at = b.binary(B::Add, first, k);
                    let p = b.index(base, at);
                    b.store(p, *w);
                }
                let ok = b.i32(0);
                b.store(ret, ok);
            },
            |b| {
                // The first record that failed and began inside the buffer ends the output.
                let inside = b.binary(B::Less, start, capacity);
                b.if_else(
                    inside,
                    |b| {
                        let p = b.index(base, first);
                        let mark = b.u32(END_MARK);
                        b.store(p, mark);
                    },
                    |_| {},
                );
            },
        );
        let reserve = self.b.close();
        self.b.stmt(Statement::If { condition: room, accept: reserve, reject: naga::Block::new() });
        Ok(self.b.load(ret))
    }

    /// The words a value of `ty` (a scalar or vector, as sema prepared it) takes in a record:
    /// each element's bits, 64-bit ones as two words, low first.
    fn record_words(&mut self, v: H, ty: &T, loc: Loc) -> R<Vec<H>> {
        let elem = ty.element().ok_or_else(|| LowerError::new(loc, "internal: a printf argument that is not a scalar or vector"))?;
        let mut out = Vec::new();
        for c in self.components(v, ty) {
            if element_words(elem.size()) == 1 {
                out.push(self.bits_of(c, elem));
                continue;
            }
            let bits = self.b.cast(c, ScalarKind::Uint, None);
            let k32 = self.b.u32(32);
            let hi = self.b.binary(B::ShiftRight, bits, k32);
            out.push(self.b.cast(bits, ScalarKind::Uint, Some(4)));
            out.push(self.b.cast(hi, ScalarKind::Uint, Some(4)));
        }
        Ok(out)
    }
}
