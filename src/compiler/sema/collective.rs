//! Sub-group functions (OpenCL C 3.0's `__opencl_c_subgroups`, `cl_khr_subgroups`'s set) and the
//! work-group collective functions of OpenCL C 2.0 (`__opencl_c_work_group_collective_functions`):
//! the names, their overloads and where they exist.

use super::model::{Builtin, Collective, Expr, ExprKind, Group, GroupOp, Scalar, Type, WorkItemFn};
use super::overload::{form, Elems, Widths};
use super::builtins::G1;
use super::Sema;
use crate::compiler::source::Loc;

/// The sub-group work-item functions.
pub(super) fn sub_group_item(name: &str) -> Option<WorkItemFn> {
    use WorkItemFn::*;
    Some(match name {
        "get_sub_group_size" => SubGroupSize,
        "get_max_sub_group_size" => MaxSubGroupSize,
        "get_num_sub_groups" => NumSubGroups,
        "get_enqueued_num_sub_groups" => EnqueuedNumSubGroups,
        "get_sub_group_id" => SubGroupId,
        "get_sub_group_local_id" => SubGroupLocalId,
        _ => return None,
    })
}

/// `work_group_reduce_add` → (work-group, reduce with add), and the like.
pub(super) fn collective(name: &str) -> Option<(Group, Collective)> {
    let (group, rest) = match name.strip_prefix("work_group_") {
        Some(rest) => (Group::WorkGroup, rest),
        None => (Group::SubGroup, name.strip_prefix("sub_group_")?),
    };
    let op = |s: &str| match s {
        "add" => Some(GroupOp::Add),
        "min" => Some(GroupOp::Min),
        "max" => Some(GroupOp::Max),
        _ => None,
    };
    let c = match rest {
        "all" => Collective::All,
        "any" => Collective::Any,
        "broadcast" => Collective::Broadcast,
        _ => {
            if let Some(o) = rest.strip_prefix("reduce_") {
                Collective::Reduce(op(o)?)
            } else if let Some(o) = rest.strip_prefix("scan_inclusive_") {
                Collective::ScanInclusive(op(o)?)
            } else {
                Collective::ScanExclusive(op(rest.strip_prefix("scan_exclusive_")?)?)
            }
        }
    };
    Some((group, c))
}

impl Sema<'_> {
    /// Sub-group functions exist where the device has sub-groups; work-group collectives,
    /// built on them, from OpenCL C 2.0.
    pub(super) fn has_collectives(&self, group: Group) -> bool {
        self.target.subgroups && (group == Group::SubGroup || self.is_cl2())
    }

    pub(super) fn sub_group_item_call(&mut self, f: WorkItemFn, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.arity(name, &args, 0, loc)?;
        Some(Expr { kind: ExprKind::Builtin(Builtin::WorkItem(f), args), ty: Type::Scalar(Scalar::UInt), loc })
    }

    /// A collective call: `all`/`any` of an `int` predicate, `broadcast(value, ids…)`, and the
    /// reductions and scans of `int`, `uint`, `long`, `ulong`, `float`, `double` (and `half`
    /// where the device has it) scalars.
    pub(super) fn collective_call(&mut self, (group, c): (Group, Collective), name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let int = Type::Scalar(Scalar::Int);
        let (ty, args) = match c {
            Collective::All | Collective::Any => {
                self.arity(name, &args, 1, loc)?;
                (int.clone(), self.scalar_args(name, args, &int, loc)?)
            }
            Collective::Broadcast => {
                let ids = if group == Group::SubGroup { 1..=1 } else { 1..=3 };
                if args.is_empty() || !ids.contains(&(args.len() - 1)) {
                    let expected = if group == Group::SubGroup { "2" } else { "2 to 4" };
                    return self.err(loc, format!("'{name}' takes {expected} arguments, but {} were given", args.len()));
                }
                let mut args = args;
                let ids = args.split_off(1);
                let (ty, mut value) = self.resolve(name, args, &[form(Elems::Collective, Widths::Scalar, G1)], loc)?;
                let id_ty = if group == Group::SubGroup { Type::Scalar(Scalar::UInt) } else { self.size_type() };
                value.extend(self.scalar_args(name, ids, &id_ty, loc)?);
                (ty, value)
            }
            _ => {
                self.arity(name, &args, 1, loc)?;
                self.resolve(name, args, &[form(Elems::Collective, Widths::Scalar, G1)], loc)?
            }
        };
        Some(Expr { kind: ExprKind::Builtin(Builtin::Collective(group, c), args), ty, loc })
    }
}
