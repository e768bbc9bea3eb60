//! Samplers: immutable addressing and filtering settings that kernels receive as one value
//! word (`compiler::sampler_bits`); no Vulkan sampler is made (docs/design.md, "Images").

use super::context::Context;
use crate::cl::object::{object, Header, Kind};
use crate::cl::types::*;
use std::sync::Arc;

#[repr(C)]
pub struct Sampler {
    header: Header,
    pub context: Arc<Context>,
    pub normalized: bool,
    pub addressing: cl_addressing_mode,
    pub filter: cl_filter_mode,
    /// The properties as the application gave them, zero-terminated (empty if none).
    pub properties: Vec<cl_sampler_properties>,
}
object!(Sampler, Sampler, CL_INVALID_SAMPLER);

impl Sampler {
    pub fn new(context: Arc<Context>, normalized: bool, addressing: cl_addressing_mode, filter: cl_filter_mode, properties: Vec<cl_sampler_properties>) -> Arc<Sampler> {
        Arc::new(Sampler { header: Header::new(Kind::Sampler), context, normalized, addressing, filter, properties })
    }

    /// The word kernels receive for this sampler.
    pub fn bits(&self) -> u32 {
        crate::compiler::sampler_bits(self.normalized, self.addressing, self.filter)
    }
}
