//! The generic address space. A generic pointer is lowered as the pointer it was made from:
//! its object, or the region of a byte pointer, tells the space it points into, so a
//! `__local` pointer passed to a helper's generic parameter stays a `__local` pointer in that
//! copy of the helper, and `to_local`/`get_fence` are known at compile time.

use super::place::{Ptr, Root};
use super::region::{Region, GLOBALS_SLOT, LOCAL_SLOT, NULL_SLOT, PRIVATE_SLOT};
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Expr, Space, CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE};
use crate::compiler::source::Loc;
use naga::{BinaryOperator, Expression, Handle};

impl Ctx<'_> {
    /// `to_global`/`to_local`/`to_private(p)`: `p`, or NULL where it points elsewhere. A
    /// pointer whose region is chosen at run time keeps its slot where it is in `space`, else
    /// gets the null slot.
    pub(super) fn to_space(&mut self, space: Space, args: &[Expr], loc: Loc) -> R<Ptr> {
        let ptr = self.generic_operand(args, loc)?;
        let null = Ptr { root: Root::Null, view: None, steps: Vec::new(), space, seen_as: None };
        let Root::Bytes(Region::Chosen { slot, among }) = ptr.root else {
            return Ok(if ptr.space == space { ptr } else { null });
        };
        let among = among.within(space);
        if among.count() == 0 {
            return Ok(null);
        }
        let inside = self.slot_in(slot, space);
        let none = self.b.u32(NULL_SLOT);
        let slot = self.b.select(inside, slot, none);
        Ok(Ptr { root: Root::Bytes(Region::Chosen { slot, among }), space, ..ptr })
    }

    /// `get_fence(p)`: the fence flags of the memory `p` points into.
    pub(super) fn get_fence(&mut self, args: &[Expr], loc: Loc) -> R<Handle<Expression>> {
        let ptr = self.generic_operand(args, loc)?;
        let flags = |space: Space| match space {
            Space::Global | Space::Constant => CLK_GLOBAL_MEM_FENCE as u32,
            Space::Local => CLK_LOCAL_MEM_FENCE as u32,
            Space::Private | Space::Generic => 0,
        };
        let Root::Bytes(Region::Chosen { slot, .. }) = ptr.root else {
            return Ok(self.b.u32(flags(ptr.space)));
        };
        let mut fence = self.b.u32(0);
        for space in [Space::Global, Space::Local] {
            let inside = self.slot_in(slot, space);
            let f = self.b.u32(flags(space));
            fence = self.b.select(inside, f, fence);
        }
        Ok(fence)
    }

    /// Whether the region numbered `slot` is in `space` (bool).
    fn slot_in(&mut self, slot: Handle<Expression>, space: Space) -> Handle<Expression> {
        let is = |cx: &mut Self, op, k| {
            let k = cx.b.u32(k);
            cx.b.binary(op, slot, k)
        };
        match space {
            Space::Local => is(self, BinaryOperator::Equal, LOCAL_SLOT),
            Space::Private => is(self, BinaryOperator::Equal, PRIVATE_SLOT),
            _ => {
                let argument = is(self, BinaryOperator::Less, LOCAL_SLOT);
                let variables = is(self, BinaryOperator::Equal, GLOBALS_SLOT);
                self.b.binary(BinaryOperator::LogicalOr, argument, variables)
            }
        }
    }

    fn generic_operand(&mut self, args: &[Expr], loc: Loc) -> R<Ptr> {
        match args {
            [p] => self.eval_ptr(p),
            _ => Err(LowerError::new(loc, "internal: one pointer expected")),
        }
    }
}
