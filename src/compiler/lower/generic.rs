//! The generic address space. A generic pointer is lowered as the pointer it was made from:
//! its object, or the region of a byte pointer, tells the space it points into, so a
//! `__local` pointer passed to a helper's generic parameter stays a `__local` pointer in that
//! copy of the helper, and `to_local`/`get_fence` are known at compile time.

use super::place::{Ptr, Root};
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{Expr, Space, CLK_GLOBAL_MEM_FENCE, CLK_LOCAL_MEM_FENCE};
use crate::compiler::source::Loc;
use naga::{Expression, Handle};

impl Ctx<'_> {
    /// `to_global`/`to_local`/`to_private(p)`: `p`, or NULL where it points elsewhere.
    pub(super) fn to_space(&mut self, space: Space, args: &[Expr], loc: Loc) -> R<Ptr> {
        let ptr = self.generic_operand(args, loc)?;
        Ok(if ptr.space == space { ptr } else { Ptr { root: Root::Null, view: None, steps: Vec::new(), space, seen_as: None } })
    }

    /// `get_fence(p)`: the fence flags of the memory `p` points into.
    pub(super) fn get_fence(&mut self, args: &[Expr], loc: Loc) -> R<Handle<Expression>> {
        let ptr = self.generic_operand(args, loc)?;
        let flags = match ptr.space {
            Space::Global | Space::Constant => CLK_GLOBAL_MEM_FENCE,
            Space::Local => CLK_LOCAL_MEM_FENCE,
            Space::Private | Space::Generic => 0,
        };
        Ok(self.b.u32(flags as u32))
    }

    fn generic_operand(&mut self, args: &[Expr], loc: Loc) -> R<Ptr> {
        match args {
            [p] => self.eval_ptr(p),
            _ => Err(LowerError::new(loc, "internal: one pointer expected")),
        }
    }
}
