//! Model types → naga types. Values live in registers with naga's types: char/short (and
//! their unsigned forms) are held in 32-bit integers, normalised after every operation;
//! `bool` is naga's bool. In memory, records keep the OpenCL C member offsets so buffer views
//! match the host layout; 8/16-bit elements in buffers are not yet supported.

use super::builder::intern;
use super::LowerError;
use crate::compiler::sema::model::{self, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{ArraySize, Handle, Module, Scalar, Span, StructMember, Type, TypeInner, VectorSize};
use std::collections::HashMap;

/// The naga scalar holding a model scalar in registers.
pub fn reg_scalar(s: S) -> Scalar {
    match s {
        S::Bool => Scalar::BOOL,
        S::Char | S::Short | S::Int => Scalar::I32,
        S::UChar | S::UShort | S::UInt => Scalar::U32,
        S::Long => Scalar::I64,
        S::ULong => Scalar::U64,
        S::Half | S::Float => Scalar::F32,
        S::Double => Scalar::F64,
    }
}

/// True for types whose register form is narrower in memory (8/16-bit elements).
pub fn is_narrow(s: S) -> bool {
    matches!(s, S::Bool | S::Char | S::UChar | S::Short | S::UShort | S::Half)
}

pub fn vector_size(n: u8) -> Option<VectorSize> {
    match n {
        2 => Some(VectorSize::Bi),
        3 => Some(VectorSize::Tri),
        4 => Some(VectorSize::Quad),
        _ => None,
    }
}

/// Caches the naga type of each model type.
#[derive(Default)]
pub struct TypeMap {
    records: HashMap<u32, Handle<Type>>,
}

impl TypeMap {
    /// The naga type of a value (or a private/local variable) of model type `ty`.
    pub fn naga(&mut self, module: &mut Module, types: &model::Types, ty: &T, loc: Loc) -> Result<Handle<Type>, LowerError> {
        Ok(match ty {
            // Atomic data outside `__local` memory is its scalar: atomics reach buffers
            // through atomic views (`c11.rs`).
            T::Scalar(s) | T::Atomic(s) => intern(module, TypeInner::Scalar(reg_scalar(*s))),
            T::Vector(s, n) => match vector_size(*n) {
                Some(size) => intern(module, TypeInner::Vector { size, scalar: reg_scalar(*s) }),
                None => {
                    // 8 or 16 components: an array of 4-component parts (see `wide.rs`).
                    let scalar = reg_scalar(*s);
                    let base = intern(module, TypeInner::Vector { size: VectorSize::Quad, scalar });
                    let parts = std::num::NonZeroU32::new(u32::from(*n) / 4).ok_or_else(|| LowerError::new(loc, "internal: vector width"))?;
                    intern(module, TypeInner::Array { base, size: ArraySize::Constant(parts), stride: u32::from(scalar.width) * 4 })
                }
            },
            T::Array { elem, len } => {
                let base = self.naga(module, types, elem, loc)?;
                let stride = self.naga_size(module, types, elem, loc)?;
                let size = std::num::NonZeroU32::new(*len).ok_or_else(|| LowerError::new(loc, "zero-length array"))?;
                intern(module, TypeInner::Array { base, size: ArraySize::Constant(size), stride })
            }
            T::Record(id) => self.record(module, types, *id, loc)?,
            // A pointer held in memory (an array, a struct, a program variable): its integer
            // (`region.rs`, "stored pointers"), as wide as the device's pointers.
            T::Pointer { .. } if types.pointer_size == 4 => intern(module, TypeInner::Scalar(naga::Scalar::U32)),
            T::Pointer { .. } => intern(module, TypeInner::Scalar(naga::Scalar::U64)),
            T::Sampler => intern(module, TypeInner::Scalar(naga::Scalar::U32)),
            T::Void | T::Image(..) => {
                return Err(LowerError::new(loc, "internal: no naga value type for void or an image"))
            }
        })
    }

    /// The naga type of a `__local` variable or argument element: the scalars that `atomic`
    /// names (the kernel applies atomics to them, see `local_atomics.rs`) are atomic so atomics
    /// can reach them (workgroup variables cannot alias, and plain loads and stores of atomics
    /// are allowed); `float`s are atomic words ([`float_bits_type`]).
    pub fn naga_workgroup(&mut self, module: &mut Module, types: &model::Types, ty: &T, atomic: LocalAtomic, loc: Loc) -> Result<Handle<Type>, LowerError> {
        Ok(match ty {
            T::Scalar(s @ (S::Int | S::UInt)) if atomic.int32 => intern(module, TypeInner::Atomic(reg_scalar(*s))),
            T::Scalar(s @ (S::Long | S::ULong)) if atomic.int64 => intern(module, TypeInner::Atomic(reg_scalar(*s))),
            T::Scalar(S::Float) if atomic.float => module.types.insert(float_bits_type(), Span::UNDEFINED),
            // Atomic types are always atomic there; floats as the bits of their width.
            T::Atomic(S::Float) => module.types.insert(float_bits_type(), Span::UNDEFINED),
            T::Atomic(S::Double) => intern(module, TypeInner::Atomic(Scalar::U64)),
            T::Atomic(s) => intern(module, TypeInner::Atomic(reg_scalar(*s))),
            T::Array { elem, len } => {
                let base = self.naga_workgroup(module, types, elem, atomic, loc)?;
                let stride = self.naga_size(module, types, elem, loc)?;
                let size = std::num::NonZeroU32::new(*len).ok_or_else(|| LowerError::new(loc, "zero-length array"))?;
                intern(module, TypeInner::Array { base, size: ArraySize::Constant(size), stride })
            }
            T::Record(id) if types.record(*id).is_some_and(|r| r.is_union) => {
                let rec = types.record(*id).ok_or_else(|| LowerError::new(loc, "internal: unknown record"))?;
                let atomic = intern(module, TypeInner::Atomic(Scalar::U32));
                union_words(module, rec, atomic)?
            }
            _ => self.naga(module, types, ty, loc)?,
        })
    }

    /// Size of the naga form of `ty` (used for strides).
    fn naga_size(&mut self, module: &mut Module, types: &model::Types, ty: &T, loc: Loc) -> Result<u32, LowerError> {
        Ok(match ty {
            T::Scalar(s) | T::Atomic(s) => reg_scalar(*s).width as u32,
            T::Vector(s, n) => reg_scalar(*s).width as u32 * model::vector_slots(*n),
            T::Array { elem, len } => self.naga_size(module, types, elem, loc)?.saturating_mul(*len),
            // A pointer held in memory: its integer, as wide as the device's pointers.
            T::Pointer { .. } => types.pointer_size,
            T::Record(id) => {
                let h = self.record(module, types, *id, loc)?;
                match module.types[h].inner {
                    TypeInner::Struct { span, .. } => span,
                    // A union's words.
                    TypeInner::Array { size: ArraySize::Constant(n), .. } => 4 * n.get(),
                    _ => return Err(LowerError::new(loc, "internal: record layout")),
                }
            }
            _ => 0,
        })
    }

    /// A record as a naga struct. With no narrow members it keeps the OpenCL C offsets (so it
    /// can sit in buffers); otherwise members are laid out afresh for private use.
    fn record(&mut self, module: &mut Module, types: &model::Types, id: model::RecordId, loc: Loc) -> Result<Handle<Type>, LowerError> {
        if let Some(&h) = self.records.get(&id.0) {
            return Ok(h);
        }
        let rec = types.record(id).ok_or_else(|| LowerError::new(loc, "internal: unknown record"))?.clone();
        if rec.is_union {
            // A union is held as its words; members are read and written by bits (memory.rs).
            let word = intern(module, TypeInner::Scalar(Scalar::U32));
            let h = union_words(module, &rec, word)?;
            self.records.insert(id.0, h);
            return Ok(h);
        }
        let opencl_layout = !rec.packed && !rec.members.iter().any(|m| has_narrow(types, &m.ty));
        let mut members = Vec::new();
        let mut end = 0u32;
        for m in &rec.members {
            let ty = self.naga(module, types, &m.ty, loc)?;
            let size = self.naga_size(module, types, &m.ty, loc)?;
            let align = naga_align(module, ty);
            let offset = if opencl_layout { m.offset } else { end.div_ceil(align) * align };
            end = offset + size;
            members.push(StructMember { name: Some(m.name.clone()), ty, binding: None, offset });
        }
        let align = members.iter().map(|m| naga_align(module, m.ty)).max().unwrap_or(1);
        let span = if opencl_layout { rec.size.max(end) } else { end.div_ceil(align) * align };
        let h = module.types.insert(
            Type { name: Some(record_name(&rec.name, id)), inner: TypeInner::Struct { members, span: span.max(align) } },
            naga::Span::UNDEFINED,
        );
        self.records.insert(id.0, h);
        Ok(h)
    }
}

fn record_name(name: &str, id: model::RecordId) -> String {
    let clean: String = name.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
    format!("{}_{}", if clean.is_empty() { "anon" } else { &clean }, id.0)
}

/// Which scalars of a `__local` variable or argument are atomic.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LocalAtomic {
    pub int32: bool,
    pub int64: bool,
    pub float: bool,
}

/// The type of a `__local` float that atomics reach: an atomic u32 of its bits, named so that
/// accesses can tell it from a `uint` (see `Ctx::ptr_access`).
pub fn float_bits_type() -> Type {
    Type { name: Some("float_bits".into()), inner: TypeInner::Atomic(Scalar::U32) }
}

/// `array<word, ⌈size / 4⌉>` for a union (`word`: u32, or atomic u32 in workgroup memory).
fn union_words(module: &mut Module, rec: &model::Record, base: Handle<Type>) -> Result<Handle<Type>, LowerError> {
    let n = std::num::NonZeroU32::new(rec.size.div_ceil(4)).ok_or_else(|| LowerError::new(Loc::default(), "empty union"))?;
    Ok(intern(module, TypeInner::Array { base, size: ArraySize::Constant(n), stride: 4 }))
}

/// Alignment naga requires for `ty` in host-shareable memory.
fn naga_align(module: &Module, ty: Handle<Type>) -> u32 {
    let mut layouter = naga::proc::Layouter::default();
    if layouter.update(module.to_ctx()).is_err() {
        return 4;
    }
    layouter[ty].alignment.round_up(1)
}

/// The naga type of a 16-bit scalar or vector in a 16-bit storage view: i16, or u16 (also
/// for `half`, whose bits it holds: see `Ctx::half_from_bits`).
pub fn storage16(module: &mut Module, ty: &T) -> Handle<Type> {
    let scalar = match ty.element() {
        Some(S::UShort | S::Half) => Scalar { kind: naga::ScalarKind::Uint, width: 2 },
        _ => Scalar { kind: naga::ScalarKind::Sint, width: 2 },
    };
    match vector_size(ty.width()) {
        Some(size) => intern(module, TypeInner::Vector { size, scalar }),
        None => intern(module, TypeInner::Scalar(scalar)),
    }
}

/// True when `ty` holds an 8/16-bit scalar somewhere, or a union or packed record: such data
/// goes through words in buffers.
pub fn has_narrow(types: &model::Types, ty: &T) -> bool {
    match ty {
        T::Scalar(s) | T::Vector(s, _) | T::Atomic(s) => is_narrow(*s),
        T::Array { elem, .. } => has_narrow(types, elem),
        // Unions are bits, and a packed record's members sit where naga's layouts cannot put
        // them: they always go through words.
        T::Record(id) => types.record(*id).is_some_and(|r| r.is_union || r.packed || r.members.iter().any(|m| has_narrow(types, &m.ty))),
        T::Pointer { .. } => true,
        T::Void | T::Image(..) | T::Sampler => false,
    }
}
