//! Memory orders of atomics, a SPIR-V post-pass. naga writes every atomic with relaxed
//! semantics (0) and cannot say otherwise, so the lowering marks the ordered ones with two
//! memory barriers no program writes (they carry `ImageMemory`, and OpenCL C programs here
//! have no images): [`RELEASE_MARK`] just before the atomic, [`ACQUIRE_MARK`] just after it.
//! This pass moves each mark into the memory semantics of its atomic and removes it.
//!
//! Why not keep fences around relaxed atomics, which the memory model makes equivalent:
//! lavapipe (Mesa 22.3) runs an `OpMemoryBarrier` as a work-group barrier, which in divergent
//! control flow (a compare-exchange loop, a lock) stops the other work-items of its SIMD
//! group; and an ordered atomic is the form drivers compile best (`docs/compiler.md`).
//!
//! An ordered atomic gets `Acquire`, `Release` or `AcquireRelease` (what its instruction
//! allows: a load only acquires, a store only releases, a compare-exchange's unequal case only
//! acquires) with `UniformMemory | WorkgroupMemory`: the order covers buffers and `__local`
//! memory whatever the object's space (OpenCL C orders the object's space; a generic pointer
//! orders both, so this is never weaker). `SequentiallyConsistent` is `AcquireRelease`, as
//! Vulkan's memory model defines it.

use super::spirv::{instructions, Inst};
use std::collections::HashMap;

/// The lowering's mark of a release before an atomic.
pub const RELEASE_MARK: naga::Barrier = naga::Barrier::TEXTURE.union(naga::Barrier::STORAGE);
/// The lowering's mark of an acquire after an atomic.
pub const ACQUIRE_MARK: naga::Barrier = naga::Barrier::TEXTURE.union(naga::Barrier::WORK_GROUP);

const OP_TYPE_INT: u32 = 21;
const OP_CONSTANT: u32 = 43;
const OP_LABEL: u32 = 248;
const OP_MEMORY_BARRIER: u32 = 225;
const OP_ATOMIC_LOAD: u32 = 227;
const OP_ATOMIC_STORE: u32 = 228;
const OP_ATOMIC_COMPARE_EXCHANGE: u32 = 230;
/// OpAtomicExchange, OpAtomicIIncrement ... OpAtomicXor (the read-modify-writes).
const ATOMIC_RMW: std::ops::RangeInclusive<u32> = 229..=242;
/// Branches and the ends of blocks (OpBranch ... OpUnreachable): a mark's atomic is in its
/// block.
const BLOCK_ENDS: std::ops::RangeInclusive<u32> = 249..=255;

const ACQUIRE: u32 = 0x2;
const RELEASE: u32 = 0x4;
const ACQUIRE_RELEASE: u32 = 0x8;
const UNIFORM_MEMORY: u32 = 0x40;
const WORKGROUP_MEMORY: u32 = 0x100;
const IMAGE_MEMORY: u32 = 0x800;
fn is_atomic(op: u32) -> bool {
    op == OP_ATOMIC_LOAD || op == OP_ATOMIC_STORE || op == OP_ATOMIC_COMPARE_EXCHANGE || ATOMIC_RMW.contains(&op)
}

/// The word offsets (in the instruction) of an atomic's memory semantics operands: the one it
/// has, or a compare-exchange's equal and unequal ones.
fn semantics_operands(op: u32) -> &'static [usize] {
    match op {
        OP_ATOMIC_STORE => &[3],
        OP_ATOMIC_COMPARE_EXCHANGE => &[5, 6],
        _ => &[5],
    }
}

/// The semantics an atomic of opcode `op` gets at operand `k` of [`semantics_operands`].
fn ordered(op: u32, k: usize, acquire: bool, release: bool) -> u32 {
    let acquire = acquire && op != OP_ATOMIC_STORE;
    let release = release && op != OP_ATOMIC_LOAD && k == 0;
    let order = match (acquire, release) {
        (true, true) => ACQUIRE_RELEASE,
        (true, false) => ACQUIRE,
        (false, true) => RELEASE,
        (false, false) => return 0,
    };
    order | UNIFORM_MEMORY | WORKGROUP_MEMORY
}

/// Moves the marks into the semantics of their atomics (see the module documentation).
pub fn apply(mut words: Vec<u32>) -> Vec<u32> {
    let insts = instructions(&words);
    // The 32-bit unsigned type, and its constants by id and by value.
    let Some(uint) = insts.iter().find(|i| i.op == OP_TYPE_INT && words.get(i.at + 2..i.at + 4) == Some(&[32, 0])).copied() else {
        return words;
    };
    let uint_id = words[uint.at + 1];
    let mut value_of = HashMap::new();
    let mut id_of = HashMap::new();
    for i in insts.iter().filter(|i| i.op == OP_CONSTANT && i.len == 4 && words[i.at + 1] == uint_id) {
        value_of.insert(words[i.at + 2], words[i.at + 3]);
        id_of.entry(words[i.at + 3]).or_insert(words[i.at + 2]);
    }
    // A mark: Some(true) for a release, Some(false) for an acquire.
    let mark = |i: &Inst| -> Option<bool> {
        let sem = *value_of.get(words.get(i.at + 2)?)?;
        (i.op == OP_MEMORY_BARRIER && sem & IMAGE_MEMORY != 0).then_some(sem & UNIFORM_MEMORY != 0)
    };
    // Each marked atomic (by index in `insts`) with its (acquire, release); the marks found.
    let mut orders: HashMap<usize, (bool, bool)> = HashMap::new();
    let mut marks = Vec::new();
    for (n, i) in insts.iter().enumerate() {
        let Some(release) = mark(i) else { continue };
        let target = if release { first_atomic(&insts, n + 1..insts.len()) } else { first_atomic(&insts, (0..n).rev()) };
        if let Some(t) = target {
            let o = orders.entry(t).or_default();
            if release {
                o.1 = true;
            } else {
                o.0 = true;
            }
            marks.push(insts[n]);
        }
    }
    // The semantics as constants: those already defined, new ones after the uint type.
    let mut bound = words.get(3).copied().unwrap_or(0);
    let mut added = Vec::new();
    for (&t, &(acquire, release)) in &orders {
        let inst = insts[t];
        for (k, &operand) in semantics_operands(inst.op).iter().enumerate() {
            let value = ordered(inst.op, k, acquire, release);
            let id = *id_of.entry(value).or_insert_with(|| {
                added.extend([(4 << 16) | OP_CONSTANT, uint_id, bound, value]);
                bound += 1;
                bound - 1
            });
            words[inst.at + operand] = id;
        }
    }
    if let Some(w) = words.get_mut(3) {
        *w = bound;
    }
    // Types come before functions, so the new constants come before every mark.
    let types_end = uint.at + uint.len;
    let mut out = Vec::with_capacity(words.len() + added.len());
    out.extend_from_slice(&words[..types_end]);
    out.extend(added);
    let mut at = types_end;
    for cut in marks {
        out.extend_from_slice(&words[at..cut.at]);
        at = cut.at + cut.len;
    }
    out.extend_from_slice(&words[at..]);
    out
}

/// The first atomic instruction among `range` (in its order) before the block ends or
/// another memory barrier.
fn first_atomic(insts: &[Inst], range: impl Iterator<Item = usize>) -> Option<usize> {
    for n in range {
        let op = insts[n].op;
        if is_atomic(op) {
            return Some(n);
        }
        if op == OP_MEMORY_BARRIER || op == OP_LABEL || BLOCK_ENDS.contains(&op) {
            return None;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn semantics_follow_what_each_instruction_allows() {
        let both = UNIFORM_MEMORY | WORKGROUP_MEMORY;
        assert_eq!(ordered(OP_ATOMIC_LOAD, 0, true, true), ACQUIRE | both);
        assert_eq!(ordered(OP_ATOMIC_STORE, 0, true, true), RELEASE | both);
        assert_eq!(ordered(OP_ATOMIC_STORE, 0, true, false), 0);
        assert_eq!(ordered(234, 0, true, true), ACQUIRE_RELEASE | both);
        assert_eq!(ordered(OP_ATOMIC_COMPARE_EXCHANGE, 0, true, true), ACQUIRE_RELEASE | both);
        assert_eq!(ordered(OP_ATOMIC_COMPARE_EXCHANGE, 1, true, true), ACQUIRE | both);
        assert_eq!(ordered(OP_ATOMIC_COMPARE_EXCHANGE, 1, false, true), 0);
    }
}
