//! Sampler entry points.

use super::entry::entry;
use super::info::{self, Info};
use super::util::properties;
use crate::cl::object::{get, handle_of, publish, release, retain, Object};
use crate::cl::types::*;
use crate::cl::CLResult;
use crate::core::context::Context;
use crate::core::sampler::Sampler;

const ADDRESSING: [cl_addressing_mode; 5] = [CL_ADDRESS_NONE, CL_ADDRESS_CLAMP_TO_EDGE, CL_ADDRESS_CLAMP, CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT];

fn create(context: cl_context, normalized: cl_bool, addressing: cl_addressing_mode, filter: cl_filter_mode, props: Vec<cl_sampler_properties>) -> CLResult<cl_sampler> {
    let c = get::<Context>(context)?;
    super::image::images_usable(&c)?;
    let valid_bool = normalized == CL_TRUE || normalized == CL_FALSE;
    if !valid_bool || !ADDRESSING.contains(&addressing) || ![CL_FILTER_NEAREST, CL_FILTER_LINEAR].contains(&filter) {
        return Err(CL_INVALID_VALUE);
    }
    // The repeating modes are defined for normalized coordinates only.
    if normalized == CL_FALSE && [CL_ADDRESS_REPEAT, CL_ADDRESS_MIRRORED_REPEAT].contains(&addressing) {
        return Err(CL_INVALID_VALUE);
    }
    Ok(publish(Sampler::new(c, normalized == CL_TRUE, addressing, filter, props)))
}

entry! {
    fn clCreateSampler(context: cl_context, normalized: cl_bool, addressing: cl_addressing_mode, filter: cl_filter_mode; errcode_ret) -> CLResult<cl_sampler> {
        create(context, normalized, addressing, filter, Vec::new())
    }
}

entry! {
    fn clCreateSamplerWithProperties(context: cl_context, props: *const cl_sampler_properties; errcode_ret) -> CLResult<cl_sampler> {
        let (pairs, raw) = properties(props);
        let (mut normalized, mut addressing, mut filter) = (CL_TRUE, CL_ADDRESS_CLAMP, CL_FILTER_NEAREST);
        let mut seen = Vec::new();
        for (name, value) in pairs {
            if seen.contains(&name) {
                get::<Context>(context)?;
                return Err(CL_INVALID_VALUE);
            }
            seen.push(name);
            match name as cl_uint {
                CL_SAMPLER_NORMALIZED_COORDS => normalized = value as cl_bool,
                CL_SAMPLER_ADDRESSING_MODE => addressing = value as cl_addressing_mode,
                CL_SAMPLER_FILTER_MODE => filter = value as cl_filter_mode,
                _ => {
                    get::<Context>(context)?;
                    return Err(CL_INVALID_VALUE);
                }
            }
        }
        create(context, normalized, addressing, filter, raw)
    }
}

entry! {
    fn clRetainSampler(sampler: cl_sampler) -> CLResult<()> {
        retain::<Sampler>(sampler)
    }
}

entry! {
    fn clReleaseSampler(sampler: cl_sampler) -> CLResult<()> {
        release::<Sampler>(sampler).map(drop)
    }
}

entry! {
    fn clGetSamplerInfo(sampler: cl_sampler, param: cl_sampler_info, size: usize, value: *mut c_void, size_ret: *mut usize) -> CLResult<()> {
        let s = get::<Sampler>(sampler)?;
        let answer = match param {
            CL_SAMPLER_REFERENCE_COUNT => Ok(s.header().ref_count().into()),
            CL_SAMPLER_CONTEXT => Ok(handle_of(&s.context).into()),
            CL_SAMPLER_NORMALIZED_COORDS => Ok(Info::bool(s.normalized)),
            CL_SAMPLER_ADDRESSING_MODE => Ok(s.addressing.into()),
            CL_SAMPLER_FILTER_MODE => Ok(s.filter.into()),
            CL_SAMPLER_PROPERTIES => Ok(Info::slice(&s.properties)),
            _ => Err(CL_INVALID_VALUE),
        };
        info::write(answer, size, value, size_ret)
    }
}
