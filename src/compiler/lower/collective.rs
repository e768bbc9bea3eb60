//! Sub-group functions and work-group collectives (`sema/collective.rs`) on Vulkan's subgroup
//! operations. A sub-group is a Vulkan subgroup; a work-group collective combines the results
//! of its subgroups through a `__local` array of one value per subgroup, between barriers, so
//! one call costs two work-group barriers whatever the work-group's size.

use super::expr::Val;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{BallotFn, Collective, Expr, Group, GroupOp, MaskKind, Scalar, ShuffleKind, Type as T, WorkItemFn};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, CollectiveOperation as Co, Expression, Handle, MathFunction as M, Statement, SubgroupOperation as So};

type H = Handle<Expression>;

/// The lanes an `active_fold` combines, of those active: below this one, or in its cluster of
/// this many (a power of two).
#[derive(Clone, Copy)]
enum Lanes {
    Below,
    Cluster(u32),
}

fn subgroup_op(op: GroupOp) -> So {
    match op {
        GroupOp::Add => So::Add,
        GroupOp::Mul => So::Mul,
        GroupOp::Min => So::Min,
        GroupOp::Max => So::Max,
        // Logical operations work on predicates made 1 or 0.
        GroupOp::And | GroupOp::LogicalAnd => So::And,
        GroupOp::Or | GroupOp::LogicalOr => So::Or,
        GroupOp::Xor | GroupOp::LogicalXor => So::Xor,
    }
}

impl Ctx<'_> {
    /// A collective call: every work-item of the group reaches it (OpenCL C requires it).
    pub(super) fn collective(&mut self, group: Group, c: Collective, args: &[Expr], ty: &T, loc: Loc) -> R<Val> {
        match c {
            Collective::Elect => return Ok(Val::V(self.elect())),
            Collective::Ballot(BallotFn::Mask(k)) => return Ok(Val::V(self.lane_mask(k))),
            _ => {}
        }
        let values = args.iter().map(|a| self.eval_value(a)).collect::<R<Vec<_>>>()?;
        let Some((&value, ids)) = values.split_first() else {
            return Err(LowerError::new(loc, "internal: a collective function without arguments"));
        };
        let v = match c {
            Collective::All | Collective::Any => self.vote(group, c == Collective::All, value),
            Collective::Broadcast if group == Group::SubGroup => {
                let id = ids.first().copied().unwrap_or(value);
                self.gather_value(naga::GatherMode::Shuffle(id), value, ty, loc)?
            }
            Collective::Broadcast => {
                let ty = self.naga_ty(ty, loc)?;
                // The local ids are `size_t`; a work-group's fit in 32 bits.
                let uint = T::Scalar(Scalar::UInt);
                let ids = ids.iter().zip(&args[1..]).map(|(&id, a)| self.convert(id, &a.ty, &uint, false, loc)).collect::<R<Vec<_>>>()?;
                self.work_group_broadcast(value, &ids, ty)
            }
            Collective::Shuffle(kind @ (ShuffleKind::Rotate | ShuffleKind::ClusteredRotate(_))) => {
                let delta = ids.first().copied().unwrap_or(value);
                let from = self.rotated_lane(kind, delta);
                self.gather_value(naga::GatherMode::Shuffle(from), value, ty, loc)?
            }
            Collective::Shuffle(kind) => {
                let at = ids.first().copied().unwrap_or(value);
                let mode = match kind {
                    ShuffleKind::Index | ShuffleKind::Broadcast => naga::GatherMode::Shuffle(at),
                    ShuffleKind::Xor => naga::GatherMode::ShuffleXor(at),
                    ShuffleKind::Up => naga::GatherMode::ShuffleUp(at),
                    ShuffleKind::Down => naga::GatherMode::ShuffleDown(at),
                    ShuffleKind::First => naga::GatherMode::BroadcastFirst,
                    ShuffleKind::Rotate | ShuffleKind::ClusteredRotate(_) => return Err(LowerError::new(loc, "internal: a rotation as a shuffle")),
                };
                self.gather_value(mode, value, ty, loc)?
            }
            Collective::AllEqual => {
                let value_ty = self.naga_ty(&args[0].ty, loc)?;
                let first = self.subgroup_shuffle(naga::GatherMode::BroadcastFirst, value, value_ty);
                let same = self.b.binary(B::Equal, value, first);
                let bool_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::BOOL);
                let all = self.subgroup_collective(So::All, Co::Reduce, same, bool_ty);
                self.int_of(all)
            }
            Collective::Elect => return Err(LowerError::new(loc, "internal: sub_group_elect with arguments")),
            Collective::Ballot(f) => self.ballot(f, value, ids.first().copied()),
            Collective::ActiveScan { op, exclusive } => {
                let naga_ty = self.naga_ty(ty, loc)?;
                let value = if op.is_logical() { self.truth_of(value) } else { value };
                let before = self.active_fold(op, value, naga_ty, Lanes::Below);
                let r = if exclusive { before } else { self.group_op(op, before, value) };
                let how = if exclusive { Co::ExclusiveScan } else { Co::InclusiveScan };
                self.narrow_collective(op, how, r, ty, loc)?
            }
            Collective::ClusteredReduce { op, size } => {
                let naga_ty = self.naga_ty(ty, loc)?;
                let value = if op.is_logical() { self.truth_of(value) } else { value };
                let r = self.active_fold(op, value, naga_ty, Lanes::Cluster(size));
                self.narrow_collective(op, Co::Reduce, r, ty, loc)?
            }
            Collective::Reduce(op) | Collective::ScanInclusive(op) | Collective::ScanExclusive(op) => {
                let naga_ty = self.naga_ty(ty, loc)?;
                let how = match c {
                    Collective::Reduce(_) => Co::Reduce,
                    Collective::ScanInclusive(_) => Co::InclusiveScan,
                    _ => Co::ExclusiveScan,
                };
                let value = if op.is_logical() { self.truth_of(value) } else { value };
                let own = self.subgroup_collective(subgroup_op(op), how, value, naga_ty);
                let r = match group {
                    Group::SubGroup => own,
                    Group::WorkGroup => self.combine_subgroups(op, how, value, own, naga_ty),
                };
                self.narrow_collective(op, how, r, ty, loc)?
            }
        };
        Ok(Val::V(v))
    }

    /// A reduction or scan of an 8/16-bit type (half in either group; the integers in
    /// sub-groups, cl_khr_subgroup_extended_types), computed in its 32-bit register type: sums,
    /// products and bitwise results are brought back into the type's range (halves rounded),
    /// and an exclusive min or max scan starts from the type's own extreme, not the register's.
    fn narrow_collective(&mut self, op: GroupOp, how: Co, r: H, ty: &T, loc: Loc) -> R<H> {
        let Some(s) = ty.element().filter(|&s| super::types::is_narrow(s)) else { return Ok(r) };
        if matches!(op, GroupOp::Add | GroupOp::Mul) {
            return if s == Scalar::Half { self.quantize_half(r, ty, loc) } else { Ok(self.normalize(r, ty)) };
        }
        // An exclusive `and` starts from all ones of the register, wider than the type's.
        if op.is_bitwise() {
            return Ok(self.normalize(r, ty));
        }
        if how != Co::ExclusiveScan || s == Scalar::Half {
            return Ok(r);
        }
        let naga_ty = self.naga_ty(ty, loc)?;
        let register_extreme = self.extreme(naga_ty, op == GroupOp::Min);
        let bits = s.size() * 8;
        let extreme: i64 = match (s.is_signed(), op == GroupOp::Min) {
            (true, true) => (1 << (bits - 1)) - 1,
            (true, false) => -(1 << (bits - 1)),
            (false, true) => (1 << bits) - 1,
            (false, false) => 0,
        };
        let own_extreme = self.int_like(extreme, ty, loc)?;
        let first = self.b.binary(B::Equal, r, register_extreme);
        Ok(self.b.select(first, own_extreme, r))
    }

    /// An `int` predicate made `int` 1 or 0.
    fn truth_of(&mut self, value: H) -> H {
        let zero = self.b.i32(0);
        let truth = self.b.binary(B::NotEqual, value, zero);
        self.int_of(truth)
    }

    /// `op` over the values of the active work-items among `lanes` (the identity if none),
    /// which may be any of the sub-group's: every work-item reads each lane's value in turn
    /// (one shuffle per lane of the sub-group, the same loop for all, so every lane it reads
    /// from is running it) and combines those of the chosen active lanes. Shuffles of nearby
    /// lanes (`shuffled_scan`) would read inactive ones in divergent code.
    fn active_fold(&mut self, op: GroupOp, value: H, ty: Handle<naga::Type>, lanes: Lanes) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let size = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupSize);
        let one_i = self.b.i32(1);
        let active = self.ballot(BallotFn::Ballot, one_i, None);
        let acc = self.b.local("active_fold", ty);
        let accp = self.b.expr(Expression::LocalVariable(acc));
        let identity = self.identity(op, ty);
        self.b.store(accp, identity);
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let k = self.b.local("active_lane", u32_ty);
        let kp = self.b.expr(Expression::LocalVariable(k));
        let zero = self.b.u32(0);
        self.b.store(kp, zero);
        self.b.open();
        let at = self.b.load(kp);
        let done = self.b.binary(B::GreaterEqual, at, size);
        self.b.if_else(done, |b| b.stmt(Statement::Break), |_| {});
        let theirs = self.subgroup_shuffle(naga::GatherMode::Shuffle(at), value, ty);
        let chosen = match lanes {
            Lanes::Below => self.b.binary(B::Less, at, lane),
            Lanes::Cluster(n) => {
                let shift = self.b.u32(n.trailing_zeros());
                let (theirs, mine) = (self.b.binary(B::ShiftRight, at, shift), self.b.binary(B::ShiftRight, lane, shift));
                self.b.binary(B::Equal, theirs, mine)
            }
        };
        let is_active = self.ballot(BallotFn::BitExtract, active, Some(at));
        let no = self.b.i32(0);
        let is_active = self.b.binary(B::NotEqual, is_active, no);
        let take = self.b.binary(B::LogicalAnd, chosen, is_active);
        let old = self.b.load(accp);
        let combined = self.group_op(op, old, theirs);
        let new = self.b.select(take, combined, old);
        self.b.store(accp, new);
        let one = self.b.u32(1);
        let next = self.b.binary(B::Add, at, one);
        self.b.store(kp, next);
        let body = self.b.close();
        self.b.stmt(Statement::Loop { body, continuing: naga::Block::new(), break_if: None });
        self.b.load(accp)
    }

    /// The lane a rotation by `delta` (an `int`) reads: `delta` further modulo the sub-group's
    /// size (a power of two), or within this lane's cluster.
    fn rotated_lane(&mut self, kind: ShuffleKind, delta: H) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let delta = self.b.cast(delta, naga::ScalarKind::Uint, None);
        let sum = self.b.binary(B::Add, lane, delta);
        let modulus = match kind {
            ShuffleKind::ClusteredRotate(n) => n,
            _ => self.target.subgroup_size,
        };
        let low = self.b.u32(modulus - 1);
        let within = self.b.binary(B::And, sum, low);
        let high = self.b.u32(!(modulus - 1));
        let base = self.b.binary(B::And, lane, high);
        self.b.binary(B::InclusiveOr, base, within)
    }

    /// The identity of `op` in type `ty`: what an exclusive scan gives the first work-item.
    fn identity(&mut self, op: GroupOp, ty: Handle<naga::Type>) -> H {
        if matches!(op, GroupOp::Min | GroupOp::Max) {
            return self.extreme(ty, op == GroupOp::Min);
        }
        // All ones for `and`.
        let value = match op {
            GroupOp::Mul | GroupOp::LogicalAnd => 1,
            GroupOp::And => -1,
            _ => 0,
        };
        let scalar = self.module.types[ty].inner.scalar().unwrap_or(naga::Scalar::I32);
        self.b.lit(super::builder::literal(scalar, value))
    }

    /// `all`/`any` of an `int` predicate: `int` 1 or 0.
    fn vote(&mut self, group: Group, all: bool, value: H) -> H {
        let zero = self.b.i32(0);
        let set = self.b.binary(B::NotEqual, value, zero);
        let truth = match group {
            Group::SubGroup => {
                let bool_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::BOOL);
                self.subgroup_collective(if all { So::All } else { So::Any }, Co::Reduce, set, bool_ty)
            }
            Group::WorkGroup => {
                // The least (all) or greatest (any) of 0/1 over the work-group.
                let (one, zero) = (self.b.u32(1), self.b.u32(0));
                let bit = self.b.select(set, one, zero);
                let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
                let op = if all { GroupOp::Min } else { GroupOp::Max };
                let own = self.subgroup_collective(subgroup_op(op), Co::Reduce, bit, u32_ty);
                let r = self.combine_subgroups(op, Co::Reduce, bit, own, u32_ty);
                let one = self.b.u32(1);
                self.b.binary(B::Equal, r, one)
            }
        };
        self.int_of(truth)
    }

    /// A subgroup gather of a value of model type `ty`: vectors of 8 and 16, arrays of
    /// 4-component parts in registers, part by part.
    fn gather_value(&mut self, mode: naga::GatherMode, value: H, ty: &T, loc: Loc) -> R<H> {
        let naga_ty = self.naga_ty(ty, loc)?;
        let T::Vector(s, n @ (8 | 16)) = *ty else {
            return Ok(self.subgroup_shuffle(mode, value, naga_ty));
        };
        let part_ty = self.naga_ty(&T::Vector(s, 4), loc)?;
        let parts = (0..u32::from(n) / 4)
            .map(|i| {
                let part = self.b.expr(Expression::AccessIndex { base: value, index: i });
                self.subgroup_shuffle(mode, part, part_ty)
            })
            .collect();
        Ok(self.b.compose(naga_ty, parts))
    }

    /// `int` 1 for true, 0 for false.
    fn int_of(&mut self, truth: H) -> H {
        let (one, zero) = (self.b.i32(1), self.b.i32(0));
        self.b.select(truth, one, zero)
    }

    /// `sub_group_elect`: the active work-item of least local id.
    fn elect(&mut self) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let first = self.subgroup_shuffle(naga::GatherMode::BroadcastFirst, lane, u32_ty);
        let me = self.b.binary(B::Equal, lane, first);
        self.int_of(me)
    }

    /// A function of `cl_khr_subgroup_ballot` on `value` (a predicate or a ballot) and `index`.
    fn ballot(&mut self, f: BallotFn, value: H, index: Option<H>) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let count = |cx: &mut Self, bits: H| {
            let counts = cx.b.math(M::CountOneBits, &[bits]);
            let parts: Vec<H> = (0..4).map(|c| cx.b.expr(Expression::AccessIndex { base: counts, index: c })).collect();
            parts.into_iter().reduce(|a, b| cx.b.binary(B::Add, a, b)).unwrap_or(counts)
        };
        match f {
            BallotFn::Ballot => {
                let zero = self.b.i32(0);
                let predicate = Some(self.b.binary(B::NotEqual, value, zero));
                let result = self.b.expr(Expression::SubgroupBallotResult);
                self.b.stmt(Statement::SubgroupBallot { result, predicate });
                result
            }
            BallotFn::Inverse | BallotFn::BitExtract => {
                let i = index.unwrap_or(lane);
                let k5 = self.b.u32(5);
                let word = self.b.binary(B::ShiftRight, i, k5);
                // An index past the ballot reads no bit (a clamped word, shifted out below).
                let three = self.b.u32(3);
                let word = self.b.math(M::Min, &[word, three]);
                let component = self.b.expr(Expression::Access { base: value, index: word });
                let k31 = self.b.u32(31);
                let shift = self.b.binary(B::And, i, k31);
                let bit = self.b.binary(B::ShiftRight, component, shift);
                let one = self.b.u32(1);
                let bit = self.b.binary(B::And, bit, one);
                let k128 = self.b.u32(128);
                let inside = self.b.binary(B::Less, i, k128);
                let set = self.b.binary(B::Equal, bit, one);
                let set = self.b.binary(B::LogicalAnd, set, inside);
                self.int_of(set)
            }
            BallotFn::BitCount | BallotFn::FindLsb | BallotFn::FindMsb => {
                let size = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupSize);
                let valid = self.below(size);
                let bits = self.b.binary(B::And, value, valid);
                match f {
                    BallotFn::BitCount => count(self, bits),
                    _ => self.find_bit(bits, f == BallotFn::FindLsb),
                }
            }
            BallotFn::InclusiveScan | BallotFn::ExclusiveScan => {
                let end = if f == BallotFn::InclusiveScan {
                    let one = self.b.u32(1);
                    self.b.binary(B::Add, lane, one)
                } else {
                    lane
                };
                let upto = self.below(end);
                let bits = self.b.binary(B::And, value, upto);
                count(self, bits)
            }
            BallotFn::Mask(k) => self.lane_mask(k),
        }
    }

    /// The lowest (highest) set bit of a ballot; undefined (here 0) with none set.
    fn find_bit(&mut self, bits: H, lowest: bool) -> H {
        let mut found = self.b.u32(0);
        // Later components win for the highest bit, earlier ones for the lowest.
        let order: Vec<u32> = if lowest { (0..4).rev().collect() } else { (0..4).collect() };
        for c in order {
            let word = self.b.expr(Expression::AccessIndex { base: bits, index: c });
            let bit = self.b.math(if lowest { M::FirstTrailingBit } else { M::FirstLeadingBit }, &[word]);
            let base = self.b.u32(32 * c);
            let at = self.b.binary(B::Add, base, bit);
            let zero = self.b.u32(0);
            let some = self.b.binary(B::NotEqual, word, zero);
            found = self.b.select(some, at, found);
        }
        found
    }

    /// The ballot of the sub-group's work-items whose local ids compare with this one's as
    /// `k` says.
    fn lane_mask(&mut self, k: MaskKind) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let one = self.b.u32(1);
        let next = self.b.binary(B::Add, lane, one);
        let (lt, le) = (self.below(lane), self.below(next));
        if matches!(k, MaskKind::Lt | MaskKind::Le | MaskKind::Eq) {
            return match k {
                MaskKind::Lt => lt,
                MaskKind::Le => le,
                _ => self.b.binary(B::ExclusiveOr, le, lt),
            };
        }
        let size = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupSize);
        let all = self.below(size);
        let not = if k == MaskKind::Gt { le } else { lt };
        let not = self.b.unary(naga::UnaryOperator::BitwiseNot, not);
        self.b.binary(B::And, all, not)
    }

    /// The ballot of local ids below `n` (`n` ≤ 128).
    fn below(&mut self, n: H) -> H {
        let words: Vec<H> = (0..4)
            .map(|c| {
                let (lo, hi) = (self.b.u32(32 * c), self.b.u32(32 * c + 32));
                let k = self.b.math(M::Clamp, &[n, lo, hi]);
                let k = self.b.binary(B::Subtract, k, lo);
                let one = self.b.u32(1);
                let k31 = self.b.u32(31);
                let shift = self.b.math(M::Min, &[k, k31]);
                let bit = self.b.binary(B::ShiftLeft, one, shift);
                let partial = self.b.binary(B::Subtract, bit, one);
                let k32 = self.b.u32(32);
                let full = self.b.binary(B::Equal, k, k32);
                let ones = self.b.u32(u32::MAX);
                self.b.select(full, ones, partial)
            })
            .collect();
        let uvec4 = super::builder::intern(&mut self.module, naga::TypeInner::Vector { size: naga::VectorSize::Quad, scalar: naga::Scalar::U32 });
        self.b.compose(uvec4, words)
    }

    /// A subgroup reduction or scan. naga scans only sums and products (as WGSL does): the
    /// scans of min and max are built from shuffles, log2(subgroup size) steps.
    fn subgroup_collective(&mut self, op: So, collective_op: Co, argument: H, ty: Handle<naga::Type>) -> H {
        if collective_op != Co::Reduce && matches!(op, So::Min | So::Max) {
            return self.shuffled_scan(op == So::Min, collective_op == Co::ExclusiveScan, argument, ty);
        }
        let result = self.b.expr(Expression::SubgroupOperationResult { ty });
        self.b.stmt(Statement::SubgroupCollectiveOperation { op, collective_op, argument, result });
        result
    }

    /// The inclusive (exclusive) scan of min or max: at step d each lane combines the value
    /// d lanes down (Hillis–Steele); lanes below d have none. Lanes of a partial sub-group
    /// are the first ones, so every lane read is active.
    fn shuffled_scan(&mut self, min: bool, exclusive: bool, argument: H, ty: Handle<naga::Type>) -> H {
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let mut v = argument;
        let mut d = 1;
        while d < self.target.subgroup_size {
            let step = self.b.u32(d);
            let below = self.subgroup_shuffle(naga::GatherMode::ShuffleUp(step), v, ty);
            let combined = self.b.math(if min { M::Min } else { M::Max }, &[v, below]);
            let has = self.b.binary(B::GreaterEqual, lane, step);
            v = self.b.select(has, combined, v);
            d *= 2;
        }
        if !exclusive {
            return v;
        }
        let one = self.b.u32(1);
        let before = self.subgroup_shuffle(naga::GatherMode::ShuffleUp(one), v, ty);
        let identity = self.extreme(ty, min);
        let first = self.b.binary(B::Less, lane, one);
        self.b.select(first, identity, before)
    }

    /// The identity of min (the type's largest value) or max (its smallest).
    fn extreme(&mut self, ty: Handle<naga::Type>, largest: bool) -> H {
        use naga::Literal as L;
        let scalar = self.module.types[ty].inner.scalar().unwrap_or(naga::Scalar::I32);
        let lit = match (scalar.kind, scalar.width, largest) {
            (naga::ScalarKind::Sint, 4, true) => L::I32(i32::MAX),
            (naga::ScalarKind::Sint, 4, false) => L::I32(i32::MIN),
            (naga::ScalarKind::Sint, _, true) => L::I64(i64::MAX),
            (naga::ScalarKind::Sint, _, false) => L::I64(i64::MIN),
            (naga::ScalarKind::Uint, 4, true) => L::U32(u32::MAX),
            (naga::ScalarKind::Uint, 4, false) => L::U32(0),
            (naga::ScalarKind::Uint, _, true) => L::U64(u64::MAX),
            (naga::ScalarKind::Uint, _, false) => L::U64(0),
            (_, width, _) => return self.b.float(if largest { f64::INFINITY } else { f64::NEG_INFINITY }, width == 8),
        };
        self.b.lit(lit)
    }

    fn subgroup_shuffle(&mut self, mode: naga::GatherMode, argument: H, ty: Handle<naga::Type>) -> H {
        let result = self.b.expr(Expression::SubgroupOperationResult { ty });
        self.b.stmt(Statement::SubgroupGather { mode, argument, result });
        result
    }

    /// The value of the work-item at local id `ids` (x, y, z; missing ones 0).
    fn work_group_broadcast(&mut self, value: H, ids: &[H], ty: Handle<naga::Type>) -> H {
        let mut target = self.b.u32(0);
        for (d, &id) in ids.iter().enumerate().rev() {
            let dim = self.b.u32(d as u32);
            let size = self.workitem.call(&self.abi, &mut self.b, WorkItemFn::LocalSize, dim);
            let scaled = self.b.binary(B::Multiply, target, size);
            target = self.b.binary(B::Add, scaled, id);
        }
        let zero = self.b.u32(0);
        let me = self.workitem.call(&self.abi, &mut self.b, WorkItemFn::LocalLinearId, zero);
        let scratch = self.collective_scratch(ty);
        let chosen = self.b.binary(B::Equal, me, target);
        self.b.if_else(
            chosen,
            |b| {
                let slot = b.index(scratch, zero);
                b.store(slot, value);
            },
            |_| {},
        );
        self.local_barrier();
        let slot = self.b.index(scratch, zero);
        let r = self.b.load(slot);
        self.local_barrier();
        r
    }

    /// A work-group reduction or scan from each subgroup's own (`own`): subgroup `k` leaves
    /// its total in slot `k`; a reduction combines every slot, a scan those before its own.
    fn combine_subgroups(&mut self, op: GroupOp, how: Co, value: H, own: H, ty: Handle<naga::Type>) -> H {
        let total = if how == Co::Reduce { own } else { self.subgroup_collective(subgroup_op(op), Co::Reduce, value, ty) };
        let scratch = self.collective_scratch(ty);
        let id = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupId);
        let lane = self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::SubGroupLocalId);
        let zero = self.b.u32(0);
        let first = self.b.binary(B::Equal, lane, zero);
        self.b.if_else(
            first,
            |b| {
                let slot = b.index(scratch, id);
                b.store(slot, total);
            },
            |_| {},
        );
        self.local_barrier();
        let result = self.b.local("collective", ty);
        let at = self.b.expr(Expression::LocalVariable(result));
        self.b.store(at, own);
        let count = match how {
            Co::Reduce => self.workitem.sub_group(&mut self.module, &self.abi, &mut self.b, WorkItemFn::NumSubGroups),
            _ => id,
        };
        // result = slot 0 ∘ … ∘ slot count-1 (∘ own, for a scan), left to right.
        let prefix = self.b.local("collective_prefix", ty);
        let slot0 = self.b.index(scratch, zero);
        let v0 = self.b.load(slot0);
        let p = self.b.expr(Expression::LocalVariable(prefix));
        self.b.store(p, v0);
        let u32_ty = super::builder::scalar_ty(&mut self.module, naga::Scalar::U32);
        let i = self.b.local("collective_i", u32_ty);
        let one = self.b.u32(1);
        let ip = self.b.expr(Expression::LocalVariable(i));
        self.b.store(ip, one);
        self.b.open();
        let n = self.b.load(ip);
        let done = self.b.binary(B::GreaterEqual, n, count);
        self.b.if_else(done, |b| b.stmt(Statement::Break), |_| {});
        let slot = self.b.index(scratch, n);
        let v = self.b.load(slot);
        let acc = self.b.load(p);
        let acc = self.group_op(op, acc, v);
        self.b.store(p, acc);
        let next = self.b.binary(B::Add, n, one);
        self.b.store(ip, next);
        let body = self.b.close();
        self.b.stmt(Statement::Loop { body, continuing: naga::Block::new(), break_if: None });
        let acc = self.b.load(p);
        let combined = match how {
            Co::Reduce => acc,
            _ => self.group_op(op, acc, own),
        };
        // A scan of subgroup 0 has nothing before it.
        let some = self.b.binary(B::Greater, count, zero);
        let chosen = self.b.select(some, combined, own);
        self.b.store(at, chosen);
        self.local_barrier();
        self.b.load(at)
    }

    fn group_op(&mut self, op: GroupOp, a: H, b: H) -> H {
        match op {
            GroupOp::Add => self.b.binary(B::Add, a, b),
            GroupOp::Mul => self.b.binary(B::Multiply, a, b),
            GroupOp::Min => self.b.math(M::Min, &[a, b]),
            GroupOp::Max => self.b.math(M::Max, &[a, b]),
            // Logical operations see predicates made 1 or 0.
            GroupOp::And | GroupOp::LogicalAnd => self.b.binary(B::And, a, b),
            GroupOp::Or | GroupOp::LogicalOr => self.b.binary(B::InclusiveOr, a, b),
            GroupOp::Xor | GroupOp::LogicalXor => self.b.binary(B::ExclusiveOr, a, b),
        }
    }

    fn local_barrier(&mut self) {
        self.b.stmt(Statement::ControlBarrier(naga::Barrier::WORK_GROUP));
    }

    /// The `__local` array of one `ty` per subgroup that work-group collectives share.
    fn collective_scratch(&mut self, ty: Handle<naga::Type>) -> H {
        let slots = self.target.max_work_group_size.div_ceil(self.target.subgroup_size.max(1)).max(1);
        let var = *self.collective_scratch.entry(ty).or_insert_with(|| {
            let len = std::num::NonZeroU32::new(slots).unwrap_or(std::num::NonZeroU32::MIN);
            let stride = self.module.types[ty].inner.size(self.module.to_ctx());
            let array = super::builder::intern(&mut self.module, naga::TypeInner::Array { base: ty, size: naga::ArraySize::Constant(len), stride });
            let g = naga::GlobalVariable {
                name: Some("collective_scratch".into()),
                space: naga::AddressSpace::WorkGroup,
                binding: None,
                ty: array,
                init: None,
                memory_decorations: naga::MemoryDecorations::empty(),
            };
            self.module.global_variables.append(g, naga::Span::UNDEFINED)
        });
        self.b.expr(Expression::GlobalVariable(var))
    }
}
