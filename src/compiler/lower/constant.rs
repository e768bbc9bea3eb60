//! `__constant` variables (program scope or kernel scope): each is a read-only storage buffer
//! holding the evaluated bytes of the model, which the runtime uploads once ([`ConstantData`]).
//! Accesses go through the same buffer views as `__constant` arguments, so 8/16-bit data,
//! infinities and NaNs (which naga literals cannot hold) need nothing special. A kernel that
//! would pass `CL_DEVICE_MAX_CONSTANT_ARGS` that way (`Function::packs_constants`) has them all
//! in one buffer instead, each at a byte offset, reached as bytes like `__global` variables.

use super::place::{Ptr, Root, Step};
use super::region::Region;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{ConstId, Space, Type as T};
use crate::compiler::source::Loc;
use crate::compiler::{ConstantData, DescriptorKind};

/// The one block of a kernel's packed `__constant` variables, once used: each variable's byte
/// offset in it, and its end.
#[derive(Default)]
pub(super) struct Packed {
    block: Option<usize>,
    offsets: std::collections::BTreeMap<u32, u32>,
    end: u32,
}

impl Ctx<'_> {
    /// A pointer to the whole of `__constant` variable `id` (an array is seen as a buffer of
    /// its elements, anything else as a buffer of one element).
    pub(super) fn constant_ptr(&mut self, id: ConstId, loc: Loc) -> R<Ptr> {
        let program = self.program;
        let var = program.constants.get(id.0 as usize).ok_or_else(|| LowerError::new(loc, "internal: unknown __constant variable"))?;
        if let Some(packed) = self.packed_constants.as_mut() {
            let block = *packed.block.get_or_insert_with(|| self.abi.add_constant_block());
            let offset = match packed.offsets.get(&id.0) {
                Some(&at) => at,
                None => {
                    // Aligned as in any buffer, and to words (each variable's bytes are padded).
                    let at = packed.end.next_multiple_of(program.types.align_of(&var.ty).max(4));
                    packed.end = at + var.bytes.len() as u32;
                    packed.offsets.insert(id.0, at);
                    at
                }
            };
            let byte = self.b.u32(offset);
            return Ok(Ptr { root: Root::Bytes(Region::Buffer(block)), view: Some(var.ty.clone()), steps: vec![Step::Index(byte)], space: Space::Constant, seen_as: None });
        }
        let block = match self.constants.get(&id.0) {
            Some(&b) => b,
            None => {
                let b = self.abi.add_constant_block();
                self.constants.insert(id.0, b);
                b
            }
        };
        Ok(match &var.ty {
            T::Array { elem, .. } => Ptr { root: Root::Buffer(block), view: Some((**elem).clone()), steps: Vec::new(), space: Space::Constant, seen_as: None },
            ty => {
                let zero = self.b.u32(0);
                Ptr { root: Root::Buffer(block), view: Some(ty.clone()), steps: vec![Step::Index(zero)], space: Space::Constant, seen_as: None }
            }
        })
    }

    /// The data of every `__constant` variable the kernel reads, once per view binding.
    pub(super) fn constant_data(&self) -> Vec<ConstantData> {
        let mut out = Vec::new();
        if let Some(Packed { block: Some(block), offsets, end }) = &self.packed_constants {
            let mut bytes = vec![0; (*end as usize).div_ceil(16).max(1) * 16];
            for (&id, &at) in offsets {
                let Some(var) = self.program.constants.get(id as usize) else { continue };
                bytes[at as usize..at as usize + var.bytes.len()].copy_from_slice(&var.bytes);
            }
            for &binding in self.abi.bindings(*block) {
                out.push(ConstantData { binding, descriptor: DescriptorKind::Storage, bytes: bytes.clone() });
            }
        }
        for (&id, &block) in &self.constants {
            let Some(var) = self.program.constants.get(id as usize) else { continue };
            let mut bytes = var.bytes.clone();
            // Word views read whole words: pad to a multiple of 16 bytes.
            bytes.resize(bytes.len().div_ceil(16).max(1) * 16, 0);
            for &binding in self.abi.bindings(block) {
                out.push(ConstantData { binding, descriptor: DescriptorKind::Storage, bytes: bytes.clone() });
            }
        }
        out.sort_by_key(|d| d.binding);
        out
    }
}
