//! The built-ins of the generic address space (OpenCL C 2.0/3.0): `to_global`, `to_local`,
//! `to_private` and `get_fence`.

use super::model::{Builtin, Expr, ExprKind, Scalar, Space, Type};
use super::Sema;
use crate::compiler::source::Loc;

impl Sema<'_> {
    /// `to_global(p)` / `to_local(p)` / `to_private(p)`: `p` as a pointer into that space, or
    /// NULL if it points elsewhere; `get_fence(p)`: the fence flags for `p`'s memory.
    pub(super) fn generic_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if !self.is_cl2() {
            return self.err(loc, format!("'{name}' needs the generic address space of OpenCL C 2.0 or 3.0 (-cl-std=CL3.0)"));
        }
        self.arity(name, &args, 1, loc)?;
        let p = args.into_iter().next()?;
        let (pointee, quals) = match &p.ty {
            Type::Pointer { space: Space::Constant, .. } => return self.err(loc, format!("'{name}' cannot take a pointer to __constant memory")),
            Type::Pointer { pointee, quals, .. } => (pointee.clone(), *quals),
            t => return self.err(loc, format!("'{name}' needs a pointer, not '{}'", self.type_str(t))),
        };
        let generic = Type::Pointer { pointee: pointee.clone(), space: Space::Generic, quals };
        let p = self.assign_convert(p, &generic, "an argument")?;
        let (builtin, ty) = match name {
            "get_fence" => (Builtin::GetFence, Type::Scalar(Scalar::UInt)),
            _ => {
                let space = match name {
                    "to_global" => Space::Global,
                    "to_local" => Space::Local,
                    _ => Space::Private,
                };
                (Builtin::ToSpace(space), Type::Pointer { pointee, space, quals })
            }
        };
        Some(Expr { kind: ExprKind::Builtin(builtin, vec![p]), ty, loc })
    }
}
