//! Images and samplers: `sampler_t` variables (constants named by a symbol), the conversion
//! of an integer constant to a sampler, image arguments, and the image built-ins
//! (`read_image*`, `write_image*`, `get_image_*`) with clang's overload resolution of their
//! coordinates.

use super::model::{Builtin, Expr, ExprKind, ImageAccess, ImageDim, ImageQuery, PlaceKind, Scalar, Space, Type};
use super::overload::{rank, Rank};
use super::scope::Symbol;
use super::{expr::Val, Sema};
use crate::compiler::parse::ast;
use crate::compiler::source::Loc;

/// Bits of a sampler value that mean something (see `compiler::sampler_bits`).
const SAMPLER_MASK: u64 = 0x1f;
/// The largest addressing mode (`CL_ADDRESS_MIRRORED_REPEAT`), counted from 0.
const MAX_ADDRESSING: u64 = 4;

/// Components of the coordinate of an image of shape `dim` (the layer included for arrays).
pub fn coord_width(dim: ImageDim) -> u8 {
    match dim {
        ImageDim::D1 | ImageDim::D1Buffer => 1,
        ImageDim::D1Array | ImageDim::D2 => 2,
        ImageDim::D2Array | ImageDim::D3 => 4,
    }
}

fn shape(s: Scalar, n: u8) -> Type {
    if n == 1 {
        Type::Scalar(s)
    } else {
        Type::Vector(s, n)
    }
}

/// The element type of `read_image<suffix>` / `write_image<suffix>`.
fn image_elem(suffix: &str) -> Option<Scalar> {
    Some(match suffix {
        "f" => Scalar::Float,
        "i" => Scalar::Int,
        "ui" => Scalar::UInt,
        "h" => Scalar::Half,
        _ => return None,
    })
}

fn image_query(name: &str) -> Option<ImageQuery> {
    Some(match name {
        "get_image_width" => ImageQuery::Width,
        "get_image_height" => ImageQuery::Height,
        "get_image_depth" => ImageQuery::Depth,
        "get_image_array_size" => ImageQuery::ArraySize,
        "get_image_dim" => ImageQuery::Dim,
        "get_image_channel_data_type" => ImageQuery::ChannelDataType,
        "get_image_channel_order" => ImageQuery::ChannelOrder,
        _ => return None,
    })
}

/// `read_image*`, `write_image*` or `get_image_*`.
pub fn is_image_builtin(name: &str) -> bool {
    let suffix = |prefix| name.strip_prefix(prefix).and_then(image_elem).is_some();
    suffix("read_image") || suffix("write_image") || image_query(name).is_some()
}

impl Sema<'_> {
    /// A `sampler_t` variable: initialized by a constant (OpenCL C 1.2 §6.12.14.1), it is that
    /// constant wherever it is named, so nothing stores or modifies it.
    pub(super) fn sampler_var(&mut self, space: Option<(Space, Loc)>, init: Option<&ast::Initializer>, name: &str, loc: Loc) -> Option<()> {
        if let Some((s @ (Space::Global | Space::Local | Space::Generic), at)) = space {
            return self.err(at, format!("sampler '{name}' cannot be declared in the {} address space", super::space_name(s)));
        }
        let Some(ast::Initializer::Expr(e)) = init else {
            return self.err(loc, format!("sampler '{name}' must be initialized with a sampler value (CLK_* flags)"));
        };
        let value = self.expr(e)?;
        let value = self.assign_convert(value, &Type::Sampler, "a sampler initialization")?;
        let ExprKind::Int(bits) = value.kind else {
            return self.err(e.loc, format!("sampler '{name}' must be initialized with a constant"));
        };
        self.scopes.declare(name, Symbol::Sampler(bits as u32));
        Some(())
    }

    /// An integer constant converted to a sampler (clang's `IntToOCLSampler`: initializers and
    /// arguments); anything else is an error.
    pub(super) fn int_to_sampler(&mut self, e: Expr, what: &str) -> Option<Expr> {
        let ExprKind::Int(bits) = e.kind else {
            return self.err(e.loc, format!("cannot convert '{}' to 'sampler_t' in {what}: a sampler is made only from an integer constant", self.type_str(&e.ty)));
        };
        let value = bits & u64::from(u32::MAX);
        if value & !SAMPLER_MASK != 0 || (value >> 1) & 7 > MAX_ADDRESSING {
            return self.err(e.loc, format!("{value:#x} is not a sampler value (CLK_NORMALIZED_COORDS_*, CLK_ADDRESS_*, CLK_FILTER_*)"));
        }
        Some(Expr { kind: ExprKind::Int(value), ty: Type::Sampler, loc: e.loc })
    }

    /// A call argument: an image is passed as the load of its parameter, which no other
    /// expression may be.
    pub(super) fn call_arg(&mut self, a: &ast::Expr) -> Option<Expr> {
        match self.val(a)? {
            Val::Place(p) if matches!(p.ty, Type::Image(..)) => {
                let (ty, loc) = (p.ty.clone(), p.loc);
                if !matches!(p.kind, PlaceKind::Local(_)) {
                    return self.err(loc, "an image must be named by its parameter");
                }
                Some(Expr { kind: ExprKind::Load(Box::new(p)), ty, loc })
            }
            v => self.rvalue(v),
        }
    }

    /// Images are reached only by the built-ins and passed on to functions (OpenCL C 1.2
    /// §6.9 a: no image arithmetic, assignment, or other operand).
    pub(super) fn check_not_image(&mut self, ty: &Type, loc: Loc) -> Option<()> {
        if matches!(ty, Type::Image(..)) {
            return self.err(loc, format!("an image ('{}') can only be passed to a function", self.type_str(ty)));
        }
        Some(())
    }

    /// A call of [`is_image_builtin`] `name`.
    pub(super) fn image_call(&mut self, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        if let Some(elem) = name.strip_prefix("read_image").and_then(image_elem) {
            return self.read_image(elem, name, args, loc);
        }
        if let Some(elem) = name.strip_prefix("write_image").and_then(image_elem) {
            return self.write_image(elem, name, args, loc);
        }
        let query = image_query(name)?;
        self.image_query_call(query, name, args, loc)
    }

    /// The image argument of an image built-in: its shape, after checking its access.
    fn image_arg(&mut self, name: &str, args: &[Expr], access: Option<ImageAccess>, loc: Loc) -> Option<ImageDim> {
        let Some(Type::Image(dim, a)) = args.first().map(|a| &a.ty) else {
            return self.no_overload(name, args, loc).map(|_| ImageDim::D1);
        };
        let (dim, a) = (*dim, *a);
        match access {
            Some(want) if want != a => {
                let need = if want == ImageAccess::Read { "read_only" } else { "write_only" };
                let ty = self.type_str(&Type::Image(dim, a));
                self.err(loc, format!("'{name}' needs a {need} image, not '{ty}'"))
            }
            _ => Some(dim),
        }
    }

    /// `half` reads and writes need cl_khr_fp16.
    fn check_image_elem(&mut self, elem: Scalar, name: &str, loc: Loc) -> Option<()> {
        if elem == Scalar::Half && !self.target.fp16 {
            return self.err(loc, format!("'{name}' needs the cl_khr_fp16 extension, which this device does not support"));
        }
        Some(())
    }

    /// `arg` converted to the best of `candidates` as clang ranks them, or the error that none
    /// or two fit.
    fn pick(&mut self, name: &str, args: &[Expr], at: usize, candidates: &[Type], loc: Loc) -> Option<Expr> {
        let arg = args.get(at)?;
        let ranked: Vec<(Rank, &Type)> = candidates.iter().filter_map(|c| rank(&arg.ty, c).map(|r| (r, c))).collect();
        let Some(&(best, ty)) = ranked.iter().min_by_key(|(r, _)| *r) else {
            return self.no_overload(name, args, loc);
        };
        if ranked.iter().filter(|(r, _)| *r == best).count() > 1 {
            let (a, b) = (self.type_str(ranked[0].1), self.type_str(ranked[1].1));
            return self.err(loc, format!("call to '{name}' is ambiguous: '{}' fits a '{a}' and a '{b}' coordinate equally well", self.type_str(&arg.ty)));
        }
        Some(self.convert(arg.clone(), ty))
    }

    /// `read_image{f,i,ui,h}(image, sampler, coord)` with `int` or `float` coordinates, or
    /// `(image, coord)` with `int` coordinates (no sampler).
    fn read_image(&mut self, elem: Scalar, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.check_image_elem(elem, name, loc)?;
        let sampled = args.len() == 3;
        if !matches!(args.len(), 2 | 3) {
            return self.err(loc, format!("'{name}' takes 2 or 3 argument(s), but {} were given", args.len()));
        }
        let dim = self.image_arg(name, &args, Some(ImageAccess::Read), loc)?;
        let n = coord_width(dim);
        let mut coords = vec![shape(Scalar::Int, n)];
        if sampled {
            if dim == ImageDim::D1Buffer {
                return self.no_overload(name, &args, loc);
            }
            let sampler = args[1].clone();
            args[1] = match sampler.ty {
                Type::Sampler => sampler,
                Type::Scalar(s) if s.is_integer() => self.int_to_sampler(sampler, &format!("argument 2 of '{name}'"))?,
                _ => return self.no_overload(name, &args, loc),
            };
            coords.push(shape(Scalar::Float, n));
        }
        let last = args.len() - 1;
        args[last] = self.pick(name, &args, last, &coords, loc)?;
        let b = Builtin::ReadImage { elem, sampled };
        Some(Expr { kind: ExprKind::Builtin(b, args), ty: Type::Vector(elem, 4), loc })
    }

    /// `write_image{f,i,ui,h}(image, coord, color)`: `int` coordinates, a 4-vector colour.
    fn write_image(&mut self, elem: Scalar, name: &str, mut args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        self.check_image_elem(elem, name, loc)?;
        self.arity(name, &args, 3, loc)?;
        let dim = self.image_arg(name, &args, Some(ImageAccess::Write), loc)?;
        args[1] = self.pick(name, &args, 1, &[shape(Scalar::Int, coord_width(dim))], loc)?;
        args[2] = self.pick(name, &args, 2, &[Type::Vector(elem, 4)], loc)?;
        Some(Expr { kind: ExprKind::Builtin(Builtin::WriteImage(elem), args), ty: Type::Void, loc })
    }

    /// `get_image_*(image)`, for the shapes that have the query.
    fn image_query_call(&mut self, q: ImageQuery, name: &str, args: Vec<Expr>, loc: Loc) -> Option<Expr> {
        use ImageDim::*;
        self.arity(name, &args, 1, loc)?;
        let dim = self.image_arg(name, &args, None, loc)?;
        let int = Type::Scalar(Scalar::Int);
        let ty = match (q, dim) {
            (ImageQuery::Width | ImageQuery::ChannelDataType | ImageQuery::ChannelOrder, _) => int,
            (ImageQuery::Height, D2 | D2Array | D3) | (ImageQuery::Depth, D3) => int,
            (ImageQuery::ArraySize, D1Array | D2Array) => self.size_type(),
            (ImageQuery::Dim, D2 | D2Array) => Type::Vector(Scalar::Int, 2),
            (ImageQuery::Dim, D3) => Type::Vector(Scalar::Int, 4),
            _ => return self.no_overload(name, &args, loc),
        };
        Some(Expr { kind: ExprKind::Builtin(Builtin::ImageQuery(q), args), ty, loc })
    }
}
