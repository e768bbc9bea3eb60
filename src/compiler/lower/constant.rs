//! `__constant` variables (program scope or kernel scope): each is a read-only storage buffer
//! holding the evaluated bytes of the model, which the runtime uploads once ([`ConstantData`]).
//! Accesses go through the same buffer views as `__constant` arguments, so 8/16-bit data,
//! infinities and NaNs (which naga literals cannot hold) need nothing special.

use super::place::{Ptr, Root, Step};
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{ConstId, Space, Type as T};
use crate::compiler::source::Loc;
use crate::compiler::{ConstantData, DescriptorKind};

impl Ctx<'_> {
    /// A pointer to the whole of `__constant` variable `id` (an array is seen as a buffer of
    /// its elements, anything else as a buffer of one element).
    pub(super) fn constant_ptr(&mut self, id: ConstId, loc: Loc) -> R<Ptr> {
        let program = self.program;
        let var = program.constants.get(id.0 as usize).ok_or_else(|| LowerError::new(loc, "internal: unknown __constant variable"))?;
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
