//! Splits function variables of the 8- and 16-wide vector types into one variable per part, a
//! SPIR-V post-pass. Wide vectors are arrays of 4-component parts (`float8` =
//! `array<vec4<f32>, 2>`, `docs/compiler.md`), and NVIDIA's compiler keeps a function variable of
//! array type that lives across a loop's back edge in local memory instead of registers: a
//! `float8` accumulator read 2211 GB/s against 4311 for the same loads summed into a `float4`
//! (H200, 2026-11-26). One `vec4` variable per part is what it keeps in registers.
//!
//! A variable is split when every use is a whole load, a whole store, or an access chain whose
//! first index is a constant (a part); a part's chain without further indices becomes the
//! part's variable. Any other use of it (a dynamic index, a function argument) leaves it whole.

use super::spirv::{instructions, Inst};
use std::collections::{HashMap, HashSet};

const OP_NAME: u32 = 5;
const OP_LINE: u32 = 8;
const OP_EXT_INST: u32 = 12;
const OP_TYPE_INT: u32 = 21;
const OP_TYPE_VECTOR: u32 = 23;
const OP_TYPE_ARRAY: u32 = 28;
const OP_TYPE_POINTER: u32 = 32;
const OP_CONSTANT: u32 = 43;
const OP_CONSTANT_COMPOSITE: u32 = 44;
const OP_CONSTANT_NULL: u32 = 46;
const OP_FUNCTION: u32 = 54;
const OP_VARIABLE: u32 = 59;
const OP_LOAD: u32 = 61;
const OP_STORE: u32 = 62;
const OP_ACCESS_CHAIN: u32 = 65;
const OP_IN_BOUNDS_ACCESS_CHAIN: u32 = 66;
const OP_DECORATE: u32 = 71;
const OP_DECORATE_ID: u32 = 332;
const OP_VECTOR_SHUFFLE: u32 = 79;
const OP_COMPOSITE_CONSTRUCT: u32 = 80;
const OP_COMPOSITE_EXTRACT: u32 = 81;
const OP_COMPOSITE_INSERT: u32 = 82;
const OP_LOOP_MERGE: u32 = 246;
const OP_SELECTION_MERGE: u32 = 247;
const OP_BRANCH_CONDITIONAL: u32 = 250;
const OP_SWITCH: u32 = 251;
const STORAGE_FUNCTION: u32 = 7;
/// Parts of the widest vector (`float16`, `double16` in `vec4`/`vec2` parts... at most 8).
const MAX_PARTS: u32 = 8;

/// An access chain into a variable being split: to its part `part`, and further into it when
/// `deeper` (else the chain is the part's variable).
struct Chain {
    var: u32,
    part: u32,
    deeper: bool,
}

/// A function variable being split: its parts' element type and the parts' initializers.
struct Split {
    element: u32,
    parts: Vec<u32>,
    inits: Vec<Option<u32>>,
}

/// The module's declarations the pass reads.
#[derive(Default)]
struct Decls {
    /// 32-bit integer constants by id.
    ints: HashMap<u32, u32>,
    /// Arrays of vectors by id: (element type, length).
    arrays: HashMap<u32, (u32, u32)>,
    /// Function-storage pointer types: pointee → pointer.
    function_pointers: HashMap<u32, u32>,
    /// Pointer types: pointer → (storage class, pointee).
    pointers: HashMap<u32, (u32, u32)>,
    /// Null constants by type.
    nulls: HashMap<u32, u32>,
    /// Composite constants' constituents by id.
    composites: HashMap<u32, Vec<u32>>,
}

impl Decls {
    fn read(words: &[u32], list: &[Inst]) -> Decls {
        let mut d = Decls::default();
        let (mut vectors, mut int_types) = (HashSet::new(), HashSet::new());
        for i in list {
            let w = &words[i.at..i.at + i.len];
            match (i.op, w.len()) {
                (OP_TYPE_INT, 4) if w[2] == 32 => drop(int_types.insert(w[1])),
                (OP_TYPE_VECTOR, 4) => drop(vectors.insert(w[1])),
                (OP_CONSTANT, 4) if int_types.contains(&w[1]) => drop(d.ints.insert(w[2], w[3])),
                (OP_TYPE_ARRAY, 4) if vectors.contains(&w[2]) => {
                    if let Some(&n) = d.ints.get(&w[3]).filter(|&&n| (2..=MAX_PARTS).contains(&n)) {
                        d.arrays.insert(w[1], (w[2], n));
                    }
                }
                (OP_TYPE_POINTER, 4) => {
                    d.pointers.insert(w[1], (w[2], w[3]));
                    if w[2] == STORAGE_FUNCTION {
                        d.function_pointers.entry(w[3]).or_insert(w[1]);
                    }
                }
                (OP_CONSTANT_NULL, 3) => drop(d.nulls.entry(w[1]).or_insert(w[2])),
                (OP_CONSTANT_COMPOSITE, _) if w.len() > 3 => drop(d.composites.insert(w[2], w[3..].to_vec())),
                _ => {}
            }
        }
        d
    }
}

/// Whether word `k` of a function-body instruction of opcode `op` is a literal, not an id (a
/// literal could equal a variable's id by chance).
fn literal(op: u32, k: usize) -> bool {
    match op {
        OP_FUNCTION | OP_VARIABLE => k == 3,
        OP_LOAD | OP_COMPOSITE_EXTRACT | OP_BRANCH_CONDITIONAL => k >= 4,
        OP_STORE | OP_LOOP_MERGE => k >= 3,
        OP_EXT_INST => k == 4,
        OP_VECTOR_SHUFFLE | OP_COMPOSITE_INSERT => k >= 5,
        OP_SELECTION_MERGE => k == 2,
        OP_SWITCH => k >= 3 && k % 2 == 1,
        OP_LINE => true,
        _ => false,
    }
}

/// Splits what can be split (see the module's comment); `words` unchanged when nothing can.
pub fn apply(words: Vec<u32>) -> Vec<u32> {
    let list = instructions(&words);
    let d = Decls::read(&words, &list);
    if d.arrays.is_empty() {
        return words;
    }
    let word = |i: &Inst, k: usize| words.get(i.at + k).copied().unwrap_or(0);
    // Candidates: function variables of an array-of-vectors type with a known initializer.
    let mut vars: HashMap<u32, (u32, u32, Option<Vec<u32>>)> = HashMap::new();
    for i in list.iter().filter(|i| i.op == OP_VARIABLE && word(i, 3) == STORAGE_FUNCTION) {
        let Some(&(_, array)) = d.pointers.get(&word(i, 1)) else { continue };
        let Some(&(element, n)) = d.arrays.get(&array) else { continue };
        let init = match i.len {
            4 => None,
            5 if d.nulls.get(&array) == Some(&word(i, 4)) => Some(vec![]),
            5 => match d.composites.get(&word(i, 4)) {
                Some(c) if c.len() == n as usize => Some(c.clone()),
                _ => continue,
            },
            _ => continue,
        };
        vars.insert(word(i, 2), (element, n, init));
    }
    // Chains to a constant part: chain id → (variable, part). Anything else disqualifies.
    let mut chains: HashMap<u32, Chain> = HashMap::new();
    let mut whole: HashSet<u32> = HashSet::new();
    for i in list.iter().filter(|i| matches!(i.op, OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN)) {
        let Some((_, n, _)) = vars.get(&word(i, 3)) else { continue };
        match d.ints.get(&word(i, 4)) {
            Some(&part) if i.len >= 5 && part < *n => drop(chains.insert(word(i, 2), Chain { var: word(i, 3), part, deeper: i.len > 5 })),
            _ => drop(whole.insert(word(i, 3))),
        }
    }
    let body = list.iter().position(|i| i.op == OP_FUNCTION).unwrap_or(list.len());
    for i in &list[..body] {
        if matches!(i.op, OP_DECORATE | OP_DECORATE_ID) && vars.contains_key(&word(i, 1)) {
            whole.insert(word(i, 1));
        }
    }
    for i in &list[body..] {
        for k in 1..i.len {
            let id = word(i, k);
            let var = if vars.contains_key(&id) { Some(id) } else { chains.get(&id).map(|c| c.var) };
            let Some(var) = var else { continue };
            let allowed = match (i.op, k) {
                (OP_VARIABLE, 2) | (OP_LOAD, 3) | (OP_STORE, 1) => true,
                (OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN, 2 | 3) => true,
                _ => literal(i.op, k),
            };
            if !allowed {
                whole.insert(var);
            }
        }
    }
    vars.retain(|v, _| !whole.contains(v));
    chains.retain(|_, c| vars.contains_key(&c.var));
    if vars.is_empty() {
        return words;
    }
    rewrite(&words, &list, &d, vars, &chains)
}

/// Writes the module with `vars` split and their chains redirected to the parts.
fn rewrite(words: &[u32], list: &[Inst], d: &Decls, vars: HashMap<u32, (u32, u32, Option<Vec<u32>>)>, chains: &HashMap<u32, Chain>) -> Vec<u32> {
    let mut bound = words.get(3).copied().unwrap_or(0);
    let mut fresh = || {
        bound += 1;
        bound - 1
    };
    // Declarations the parts need that the module lacks: pointer types and null constants.
    let mut declarations = Vec::new();
    let (mut pointers, mut nulls) = (d.function_pointers.clone(), d.nulls.clone());
    let mut splits = HashMap::new();
    for (&var, (element, n, init)) in &vars {
        let pointer = *pointers.entry(*element).or_insert_with(|| {
            let id = fresh();
            declarations.extend([(4 << 16) | OP_TYPE_POINTER, id, STORAGE_FUNCTION, *element]);
            id
        });
        let inits = match init {
            None => vec![None; *n as usize],
            Some(c) if !c.is_empty() => c.iter().map(|&c| Some(c)).collect(),
            Some(_) => {
                let null = *nulls.entry(*element).or_insert_with(|| {
                    let id = fresh();
                    declarations.extend([(3 << 16) | OP_CONSTANT_NULL, *element, id]);
                    id
                });
                vec![Some(null); *n as usize]
            }
        };
        let parts = (0..*n).map(|_| fresh()).collect();
        splits.insert(var, (pointer, Split { element: *element, parts, inits }));
    }
    // The part a chain leads into; a chain to a whole part is the part's variable.
    let part_of = |c: &Chain| splits[&c.var].1.parts[c.part as usize];
    let alias = |id: u32| match chains.get(&id) {
        Some(c) if !c.deeper => part_of(c),
        _ => id,
    };
    let mut out = Vec::with_capacity(words.len() + declarations.len() + 64);
    out.extend_from_slice(&words[..super::spirv::HEADER_WORDS.min(words.len())]);
    let mut declared = false;
    for i in list {
        let w = &words[i.at..i.at + i.len];
        let aliased = |k: usize| chains.get(&w[k]).is_some_and(|c| !c.deeper);
        match i.op {
            OP_FUNCTION if !declared => {
                out.extend_from_slice(&declarations);
                declared = true;
                out.extend_from_slice(w);
            }
            OP_NAME if splits.contains_key(&w[1]) || aliased(1) => {}
            OP_VARIABLE if splits.contains_key(&w[2]) => {
                let (pointer, s) = &splits[&w[2]];
                for (&part, init) in s.parts.iter().zip(&s.inits) {
                    match init {
                        Some(c) => out.extend([(5 << 16) | OP_VARIABLE, *pointer, part, STORAGE_FUNCTION, *c]),
                        None => out.extend([(4 << 16) | OP_VARIABLE, *pointer, part, STORAGE_FUNCTION]),
                    }
                }
            }
            OP_LOAD if splits.contains_key(&w[3]) => {
                let s = &splits[&w[3]].1;
                let loaded: Vec<u32> = s.parts.iter().map(|_| fresh()).collect();
                for (&part, &value) in s.parts.iter().zip(&loaded) {
                    out.extend([w[0], s.element, value, part]);
                    out.extend_from_slice(&w[4..]);
                }
                out.extend([((3 + loaded.len()) as u32) << 16 | OP_COMPOSITE_CONSTRUCT, w[1], w[2]]);
                out.extend(loaded);
            }
            OP_STORE if splits.contains_key(&w[1]) => {
                let s = &splits[&w[1]].1;
                for (k, &part) in s.parts.iter().enumerate() {
                    let value = fresh();
                    out.extend([(5 << 16) | OP_COMPOSITE_EXTRACT, s.element, value, w[2], k as u32]);
                    out.extend([w[0], part, value]);
                    out.extend_from_slice(&w[3..]);
                }
            }
            OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if chains.contains_key(&w[2]) => {
                // Into the part: the part's variable, then the chain's further indices.
                let c = &chains[&w[2]];
                if c.deeper {
                    out.extend([((i.len - 1) as u32) << 16 | i.op, w[1], w[2], part_of(c)]);
                    out.extend_from_slice(&w[5..]);
                }
            }
            OP_LOAD | OP_ACCESS_CHAIN | OP_IN_BOUNDS_ACCESS_CHAIN if aliased(3) => {
                out.extend_from_slice(&w[..3]);
                out.push(alias(w[3]));
                out.extend_from_slice(&w[4..]);
            }
            OP_STORE if aliased(1) => {
                out.extend([w[0], alias(w[1])]);
                out.extend_from_slice(&w[2..]);
            }
            _ => out.extend_from_slice(w),
        }
    }
    if let Some(b) = out.get_mut(3) {
        *b = bound;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compiler::lower::tests::target;
    use crate::compiler::spirv::tests::spirv_val;

    /// The function variables of `words` whose type is an array.
    fn array_variables(words: &[u32]) -> usize {
        let list = instructions(words);
        let d = Decls::read(words, &list);
        let word = |i: &Inst, k: usize| words[i.at + k];
        let is_array = |ty: u32| list.iter().any(|i| i.op == OP_TYPE_ARRAY && word(i, 1) == ty);
        let array_pointers: HashSet<u32> = d.pointers.iter().filter(|(_, &(class, ty))| class == STORAGE_FUNCTION && is_array(ty)).map(|(&p, _)| p).collect();
        list.iter().filter(|i| i.op == OP_VARIABLE && word(i, 3) == STORAGE_FUNCTION && array_pointers.contains(&word(i, 1))).count()
    }

    #[test]
    fn wide_vectors_split_unless_indexed_at_run_time() {
        let src = "kernel void k(global const float8 *in, global float8 *out, int j) {
            float8 sum = 0; float16 indexed = 0; double8 d = 1.0;
            for (int i = 0; i < 4; i++) { sum += in[i]; sum.s5 += 1.0f; indexed[j] += sum.s1; d.hi *= 2.0; }
            out[0] = sum + indexed.lo + convert_float8(d); }";
        let (_, program) = crate::compiler::build(src, "", &target()).unwrap_or_else(|e| panic!("{e:?}"));
        let words = program.kernels[0].specialize([1, 1, 1], &[], &[]).unwrap_or_else(|e| panic!("{e}"));
        spirv_val(&words);
        assert_eq!(array_variables(&words), 1, "only `indexed` stays an array");
    }
}
