//! Vectors of 8 and 16 components. naga vectors stop at 4, so such a vector is an array of
//! 4-component parts (`float8` = `array<vec4<f32>, 2>`, the same bytes as OpenCL's layout).
//! Component-wise operations run once per part; swizzles and constructors go through the list
//! of scalar components.

use super::types::vector_size;
use super::{Ctx, LowerError, R};
use crate::compiler::sema::model::Type as T;
use crate::compiler::source::Loc;
use naga::{Expression, Handle};

type H = Handle<Expression>;

/// True for vectors of more than 4 components.
pub fn is_wide(ty: &T) -> bool {
    ty.width() > 4
}

/// The 4-component part type of a wide vector type (other types unchanged).
fn part_of(ty: &T) -> T {
    match ty {
        T::Vector(s, n) if *n > 4 => T::Vector(*s, 4),
        other => other.clone(),
    }
}

impl Ctx<'_> {
    /// Applies the component-wise operation `f` to `args` (values with their types), once per
    /// 4-component part when the result or an argument is a wide vector.
    pub(super) fn per_part(
        &mut self,
        args: &[(H, T)],
        result: &T,
        loc: Loc,
        mut f: impl FnMut(&mut Self, &[H], &[T], &T) -> R<H>,
    ) -> R<H> {
        let (vals, tys): (Vec<H>, Vec<T>) = args.iter().cloned().unzip();
        if !is_wide(result) && !tys.iter().any(is_wide) {
            return f(self, &vals, &tys, result);
        }
        let parts = u32::from(result.width().max(tys.iter().map(T::width).max().unwrap_or(0))) / 4;
        let part_tys: Vec<T> = tys.iter().map(part_of).collect();
        let part_result = part_of(result);
        let mut out = Vec::new();
        for k in 0..parts {
            let part_vals: Vec<H> = vals
                .iter()
                .zip(&tys)
                .map(|(&v, t)| if is_wide(t) { self.b.member(v, k) } else { v })
                .collect();
            out.push(f(self, &part_vals, &part_tys, &part_result)?);
        }
        if !is_wide(result) {
            return Err(LowerError::new(loc, "internal: a wide operation with a narrow result"));
        }
        let ty = self.naga_ty(result, loc)?;
        Ok(self.b.compose(ty, out))
    }

    /// The scalar components of a scalar or vector value.
    pub(super) fn components(&mut self, v: H, ty: &T) -> Vec<H> {
        if let Some(comps) = self.composed_components(v, ty) {
            return comps;
        }
        match ty.width() {
            0 | 1 => vec![v],
            n if n <= 4 => (0..u32::from(n)).map(|k| self.b.member(v, k)).collect(),
            n => (0..u32::from(n))
                .map(|k| {
                    let part = self.b.member(v, k / 4);
                    self.b.member(part, k % 4)
                })
                .collect(),
        }
    }

    /// The components of `v` of vector type `ty` where it was composed of them here (as
    /// `compose_components` builds), without taking it apart: a vector literal of loaded values
    /// stored again keeps each value as it was loaded (a `half` its bits).
    fn composed_components(&self, v: H, ty: &T) -> Option<Vec<H>> {
        let n = usize::from(ty.width());
        if n <= 1 {
            return None;
        }
        if !is_wide(ty) {
            return self.b.composed_of(v, n);
        }
        let parts = self.b.composed_of(v, n / 4)?;
        let comps: Vec<H> = parts.into_iter().filter_map(|p| self.b.composed_of(p, 4)).flatten().collect();
        (comps.len() == n).then_some(comps)
    }

    /// A scalar or vector of type `ty` from its scalar components.
    pub(super) fn compose_components(&mut self, comps: Vec<H>, ty: &T, loc: Loc) -> R<H> {
        if ty.width() <= 1 {
            return comps.into_iter().next().ok_or_else(|| LowerError::new(loc, "internal: no component"));
        }
        if !is_wide(ty) {
            let nty = self.naga_ty(ty, loc)?;
            return Ok(self.b.compose(nty, comps));
        }
        let part_ty = self.naga_ty(&part_of(ty), loc)?;
        let parts = comps.chunks(4).map(|c| self.b.compose(part_ty, c.to_vec())).collect();
        let nty = self.naga_ty(ty, loc)?;
        Ok(self.b.compose(nty, parts))
    }

    /// A scalar repeated into `ty` (unchanged for scalar `ty`).
    pub(super) fn splat_to(&mut self, scalar: H, ty: &T, loc: Loc) -> R<H> {
        match ty.width() {
            0 | 1 => Ok(scalar),
            n if n <= 4 => {
                let size = vector_size(n).ok_or_else(|| LowerError::new(loc, "internal: vector size"))?;
                Ok(self.b.splat(size, scalar))
            }
            n => {
                let part = self.b.splat(naga::VectorSize::Quad, scalar);
                let nty = self.naga_ty(ty, loc)?;
                Ok(self.b.compose(nty, vec![part; usize::from(n / 4)]))
            }
        }
    }
}
