//! `__constant` variables: a private global initialised with a constant expression decoded
//! from the evaluated bytes of the model (read-only, so drivers keep it in constant memory).

use super::types::vector_size;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::{ConstId, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{Expression, Handle, Literal, Span};

impl Ctx<'_> {
    pub(super) fn constant_var(&mut self, id: ConstId, loc: Loc) -> R<Handle<naga::GlobalVariable>> {
        if let Some(&g) = self.constants.get(&id.0) {
            return Ok(g);
        }
        let program = self.program;
        let var = program.constants.get(id.0 as usize).ok_or_else(|| LowerError::new(loc, "internal: unknown __constant variable"))?;
        let ty = self.naga_ty(&var.ty, loc)?;
        let init = self.const_expr(&var.ty, &var.bytes, loc)?;
        let g = self.module.global_variables.append(
            naga::GlobalVariable {
                name: Some(var.name.clone()),
                space: naga::AddressSpace::Private,
                binding: None,
                ty,
                init: Some(init),
                memory_decorations: naga::MemoryDecorations::empty(),
            },
            Span::UNDEFINED,
        );
        self.constants.insert(id.0, g);
        Ok(g)
    }

    /// The constant expression of a value of type `ty` laid out in `bytes`.
    fn const_expr(&mut self, ty: &T, bytes: &[u8], loc: Loc) -> R<Handle<Expression>> {
        let expr = match ty {
            T::Scalar(s) => Expression::Literal(scalar_literal(*s, bytes)),
            T::Vector(s, n) => {
                vector_size(*n).ok_or_else(|| super::expr::unsupported_width(loc))?;
                let size = s.size() as usize;
                let comps = (0..*n as usize)
                    .map(|i| self.global(Expression::Literal(scalar_literal(*s, bytes.get(i * size..).unwrap_or(&[])))))
                    .collect();
                Expression::Compose { ty: self.naga_ty(ty, loc)?, components: comps }
            }
            T::Array { elem, len } => {
                let size = self.program.types.size_of(elem) as usize;
                let comps = (0..*len as usize)
                    .map(|i| self.const_expr(elem, bytes.get(i * size..).unwrap_or(&[]), loc))
                    .collect::<R<Vec<_>>>()?;
                Expression::Compose { ty: self.naga_ty(ty, loc)?, components: comps }
            }
            T::Record(id) => {
                let program = self.program;
                let rec = program.types.record(*id).ok_or_else(|| LowerError::new(loc, "internal: unknown record"))?;
                let comps = rec
                    .members
                    .iter()
                    .map(|m| self.const_expr(&m.ty, bytes.get(m.offset as usize..).unwrap_or(&[]), loc))
                    .collect::<R<Vec<_>>>()?;
                Expression::Compose { ty: self.naga_ty(ty, loc)?, components: comps }
            }
            T::Void | T::Pointer { .. } => return Err(LowerError::new(loc, "pointers in __constant data are not supported")),
        };
        Ok(self.global(expr))
    }

    fn global(&mut self, e: Expression) -> Handle<Expression> {
        self.module.global_expressions.append(e, Span::UNDEFINED)
    }
}

/// Decodes a little-endian scalar (missing bytes read as zero).
fn scalar_literal(s: S, bytes: &[u8]) -> Literal {
    let mut raw = [0u8; 8];
    for (d, b) in raw.iter_mut().zip(bytes.iter().take(s.size() as usize)) {
        *d = *b;
    }
    let u = u64::from_le_bytes(raw);
    match s {
        S::Bool => Literal::Bool(u != 0),
        S::Char => Literal::I32(u as u8 as i8 as i32),
        S::UChar => Literal::U32(u as u8 as u32),
        S::Short => Literal::I32(u as u16 as i16 as i32),
        S::UShort => Literal::U32(u as u16 as u32),
        S::Int => Literal::I32(u as u32 as i32),
        S::UInt => Literal::U32(u as u32),
        S::Long => Literal::I64(u as i64),
        S::ULong => Literal::U64(u),
        S::Half => Literal::F32(half_to_f32(u as u16)),
        S::Float => Literal::F32(f32::from_bits(u as u32)),
        S::Double => Literal::F64(f64::from_bits(u)),
    }
}

/// IEEE binary16 → binary32 (exact).
fn half_to_f32(h: u16) -> f32 {
    let sign = if h & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f32::from(h & 0x3ff);
    sign * match exp {
        0 => frac * 2f32.powi(-24),
        31 if frac == 0.0 => f32::INFINITY,
        31 => f32::NAN,
        e => (1.0 + frac / 1024.0) * 2f32.powi(e - 15),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scalars_decode_little_endian_with_sign() {
        assert_eq!(scalar_literal(S::Char, &[0xff]), Literal::I32(-1));
        assert_eq!(scalar_literal(S::UShort, &[0x34, 0x12]), Literal::U32(0x1234));
        assert_eq!(scalar_literal(S::Float, &1.5f32.to_le_bytes()), Literal::F32(1.5));
        assert_eq!(scalar_literal(S::Half, &[0x00, 0x3c]), Literal::F32(1.0));
        assert_eq!(scalar_literal(S::Half, &[0x00, 0xc0]), Literal::F32(-2.0));
    }
}
