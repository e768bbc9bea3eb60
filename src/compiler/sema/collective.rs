//! Sub-group functions (OpenCL C 3.0's `__opencl_c_subgroups`, `cl_khr_subgroups`'s set) and the
//! work-group collective functions of OpenCL C 2.0 (`__opencl_c_work_group_collective_functions`):
//! the names, their overloads and where they exist.

use super::model::{BallotFn, Builtin, Collective, Expr, ExprKind, Group, GroupOp, MaskKind, Scalar, ShuffleKind, Type, WorkItemFn};
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
    if let Some(c) = sub_group_only(name).or_else(|| non_uniform_arithmetic(name)) {
        return Some((Group::SubGroup, c));
    }
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

/// `cl_khr_subgroup_non_uniform_arithmetic`: `sub_group_non_uniform_reduce_mul` and the like
/// (sums and products scan natively; the other scans are `ActiveScan`s), and
/// `cl_khr_subgroup_clustered_reduce`'s `sub_group_clustered_reduce_*` (the cluster size comes
/// from the call's argument).
fn non_uniform_arithmetic(name: &str) -> Option<Collective> {
    if let Some(op) = name.strip_prefix("sub_group_clustered_reduce_") {
        return Some(Collective::ClusteredReduce { op: arithmetic_op(op)?, size: 0 });
    }
    let rest = name.strip_prefix("sub_group_non_uniform_")?;
    let (how, op) = [("reduce_", 0), ("scan_inclusive_", 1), ("scan_exclusive_", 2)].into_iter().find_map(|(p, how)| Some((how, rest.strip_prefix(p)?)))?;
    let op = arithmetic_op(op)?;
    let native_scan = matches!(op, GroupOp::Add | GroupOp::Mul);
    Some(match how {
        0 => Collective::Reduce(op),
        1 if native_scan => Collective::ScanInclusive(op),
        2 if native_scan => Collective::ScanExclusive(op),
        _ => Collective::ActiveScan { op, exclusive: how == 2 },
    })
}

/// The operation named at the end of a non-uniform or clustered function's name.
fn arithmetic_op(op: &str) -> Option<GroupOp> {
    Some(match op {
        "add" => GroupOp::Add,
        "mul" => GroupOp::Mul,
        "min" => GroupOp::Min,
        "max" => GroupOp::Max,
        "and" => GroupOp::And,
        "or" => GroupOp::Or,
        "xor" => GroupOp::Xor,
        "logical_and" => GroupOp::LogicalAnd,
        "logical_or" => GroupOp::LogicalOr,
        "logical_xor" => GroupOp::LogicalXor,
        _ => return None,
    })
}

/// The functions of the `cl_khr_subgroup_*` extensions (shuffle, shuffle_relative,
/// non_uniform_vote, ballot).
fn sub_group_only(name: &str) -> Option<Collective> {
    use BallotFn::*;
    let mask = |k| Some(Collective::Ballot(Mask(k)));
    match name {
        "get_sub_group_eq_mask" => return mask(MaskKind::Eq),
        "get_sub_group_ge_mask" => return mask(MaskKind::Ge),
        "get_sub_group_gt_mask" => return mask(MaskKind::Gt),
        "get_sub_group_le_mask" => return mask(MaskKind::Le),
        "get_sub_group_lt_mask" => return mask(MaskKind::Lt),
        _ => {}
    }
    Some(match name.strip_prefix("sub_group_")? {
        "shuffle" => Collective::Shuffle(ShuffleKind::Index),
        "shuffle_xor" => Collective::Shuffle(ShuffleKind::Xor),
        "shuffle_up" => Collective::Shuffle(ShuffleKind::Up),
        "shuffle_down" => Collective::Shuffle(ShuffleKind::Down),
        "non_uniform_broadcast" => Collective::Shuffle(ShuffleKind::Broadcast),
        "broadcast_first" => Collective::Shuffle(ShuffleKind::First),
        "rotate" => Collective::Shuffle(ShuffleKind::Rotate),
        "clustered_rotate" => Collective::Shuffle(ShuffleKind::ClusteredRotate(0)),
        "elect" => Collective::Elect,
        "non_uniform_all" => Collective::All,
        "non_uniform_any" => Collective::Any,
        "non_uniform_all_equal" => Collective::AllEqual,
        "ballot" => Collective::Ballot(Ballot),
        "inverse_ballot" => Collective::Ballot(Inverse),
        "ballot_bit_extract" => Collective::Ballot(BitExtract),
        "ballot_bit_count" => Collective::Ballot(BitCount),
        "ballot_inclusive_scan" => Collective::Ballot(InclusiveScan),
        "ballot_exclusive_scan" => Collective::Ballot(ExclusiveScan),
        "ballot_find_lsb" => Collective::Ballot(FindLsb),
        "ballot_find_msb" => Collective::Ballot(FindMsb),
        _ => return None,
    })
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
    /// reductions and scans of `int`, `uint`, `long`, `ulong`, `float`, `double` and `half`
    /// scalars; sub-groups also reduce and scan `char`, `uchar`, `short` and `ushort`, and
    /// broadcast vectors (cl_khr_subgroup_extended_types).
    pub(super) fn collective_call(&mut self, (group, mut c): (Group, Collective), name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        let (int, uint) = (Type::Scalar(Scalar::Int), Type::Scalar(Scalar::UInt));
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
                // cl_khr_subgroup_extended_types: a sub-group broadcasts every type, vectors too.
                let broadcast = if group == Group::SubGroup { form(Elems::All, Widths::All, G1) } else { form(Elems::Collective, Widths::Scalar, G1) };
                let (ty, mut value) = self.resolve(name, args, &[broadcast], loc)?;
                let id_ty = if group == Group::SubGroup { Type::Scalar(Scalar::UInt) } else { self.size_type() };
                value.extend(self.scalar_args(name, ids, &id_ty, loc)?);
                (ty, value)
            }
            Collective::ClusteredReduce { op, .. } => {
                self.arity(name, &args, 2, loc)?;
                let mut args = args;
                c = Collective::ClusteredReduce { op, size: self.cluster_size(name, args.pop(), loc)? };
                self.arithmetic_args(op, group, name, args, loc)?
            }
            Collective::Shuffle(kind) => {
                let arity = match kind {
                    ShuffleKind::First => 1,
                    ShuffleKind::ClusteredRotate(_) => 3,
                    _ => 2,
                };
                self.arity(name, &args, arity, loc)?;
                let mut args = args;
                if let ShuffleKind::ClusteredRotate(_) = kind {
                    c = Collective::Shuffle(ShuffleKind::ClusteredRotate(self.cluster_size(name, args.pop(), loc)?));
                }
                let index = args.split_off(1);
                // The broadcasts of cl_khr_subgroup_ballot take vectors too.
                let widths = if matches!(kind, ShuffleKind::Broadcast | ShuffleKind::First) { Widths::All } else { Widths::Scalar };
                let (ty, mut value) = self.resolve(name, args, &[form(Elems::All, widths, G1)], loc)?;
                // A rotation's delta is an `int`, taken modulo the sub-group size.
                let index_ty = if matches!(kind, ShuffleKind::Rotate | ShuffleKind::ClusteredRotate(_)) { int.clone() } else { uint.clone() };
                value.extend(self.scalar_args(name, index, &index_ty, loc)?);
                (ty, value)
            }
            Collective::Elect => {
                self.arity(name, &args, 0, loc)?;
                (int, args)
            }
            Collective::AllEqual => {
                self.arity(name, &args, 1, loc)?;
                (int, self.resolve(name, args, &[form(Elems::All, Widths::Scalar, G1)], loc)?.1)
            }
            Collective::Ballot(f) => self.ballot_args(f, name, args, loc)?,
            Collective::Reduce(op) | Collective::ScanInclusive(op) | Collective::ScanExclusive(op) | Collective::ActiveScan { op, .. } => {
                self.arity(name, &args, 1, loc)?;
                self.arithmetic_args(op, group, name, args, loc)?
            }
        };
        Some(Expr { kind: ExprKind::Builtin(Builtin::Collective(group, c), args), ty, loc })
    }

    /// The result type and converted value of a reduction or scan by `op`: `int` predicates
    /// for the logical operations, integers for the bitwise ones, else every scalar type
    /// (8/16-bit integers in sub-groups only: cl_khr_subgroup_extended_types).
    fn arithmetic_args(&mut self, op: GroupOp, group: Group, name: &str, args: Vec<Expr>, loc: Loc) -> Option<(Type, Vec<Expr>)> {
        if op.is_logical() {
            let int = Type::Scalar(Scalar::Int);
            return Some((int.clone(), self.scalar_args(name, args, &int, loc)?));
        }
        let elems = match group {
            _ if op.is_bitwise() => Elems::Int,
            Group::SubGroup => Elems::All,
            Group::WorkGroup => Elems::Collective,
        };
        self.resolve(name, args, &[form(elems, Widths::Scalar, G1)], loc)
    }

    /// A cluster size: an integer constant, a power of two.
    fn cluster_size(&mut self, name: &str, arg: Option<Expr>, loc: Loc) -> Option<u32> {
        let size = arg.and_then(|a| self.const_value_of(&a)).and_then(|v| u32::try_from(v).ok()).filter(|v| v.is_power_of_two());
        match size {
            Some(size) => Some(size),
            None => self.err(loc, format!("the cluster size of '{name}' must be a constant power of two")),
        }
    }

    /// The result type and converted arguments of a ballot function.
    fn ballot_args(&mut self, f: BallotFn, name: &str, args: Vec<Expr>, loc: Loc) -> Option<(Type, Vec<Expr>)> {
        let (int, uint, uint4) = (Type::Scalar(Scalar::Int), Type::Scalar(Scalar::UInt), Type::Vector(Scalar::UInt, 4));
        let (params, result): (&[&Type], Type) = match f {
            BallotFn::Ballot => (&[&int], uint4.clone()),
            BallotFn::Inverse => (&[&uint4], int.clone()),
            BallotFn::BitExtract => (&[&uint4, &uint], int.clone()),
            BallotFn::Mask(_) => (&[], uint4.clone()),
            _ => (&[&uint4], uint.clone()),
        };
        self.arity(name, &args, params.len(), loc)?;
        let mut converted = Vec::new();
        for (a, p) in args.into_iter().zip(params) {
            // Scalars convert as arguments do; a ballot must be a `uint4` already.
            let fits = matches!((&a.ty, p), (Type::Scalar(_), Type::Scalar(_))) || a.ty == **p;
            if !fits {
                return self.err(a.loc, format!("'{name}' takes '{}', not '{}'", self.type_str(p), self.type_str(&a.ty)));
            }
            converted.push(self.convert(a, p));
        }
        Some((result, converted))
    }
}
