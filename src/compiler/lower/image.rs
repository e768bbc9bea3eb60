//! Images (`docs/compiler.md`, "Images"). An image parameter stands for a kernel argument
//! (`Slot::Image`), resolved at compile time like a buffer pointer's root. A `read_only` image
//! is read texel by texel (`ImageLoad`, SPIR-V `OpImageFetch`); OpenCL's sampling is computed
//! here from the specification's formulas (OpenCL 3.0 API §"Image addressing and filtering"):
//! normalized coordinates, the addressing modes, nearest and linear filtering, and the border
//! colour of `CL_ADDRESS_CLAMP`, which depends on the channel order. The image's order, data
//! type and extent come in its info words (`compiler::IMAGE_INFO_WORDS`), which the queries
//! read too, so an image the kernel only queries is never touched. A sampler is its `compiler::sampler_bits`: a constant sampler picks
//! the code for its mode; one known only at run time selects between the modes' results.

use super::expr::Val;
use super::{Ctx, LowerError, Slot, R};
use crate::compiler::sema::model::{Expr, ExprKind, ImageDim, ImageQuery, LocalId, PlaceKind, Scalar as S, Type as T};
use crate::compiler::source::Loc;
use naga::{BinaryOperator as B, Expression, Handle, MathFunction as M, ScalarKind as K, Statement, TypeInner, VectorSize};

type H = Handle<Expression>;

/// `CL_R`: channel orders are numbered from it.
const CL_R: u32 = 0x10B0;
/// The channel orders without alpha (bit `order - CL_R`): `CL_R`, `CL_RG`, `CL_RGB`,
/// `CL_LUMINANCE`, `CL_Rx`, `CL_RGx`, `CL_RGBx`, `CL_DEPTH`, `CL_sRGB`, `CL_sRGBx`. Their
/// border colour is (0, 0, 0, 1); that of the others (0, 0, 0, 0).
const NO_ALPHA_ORDERS: u32 = 1 << 0 | 1 << 2 | 1 << 4 | 1 << 9 | 1 << 10 | 1 << 11 | 1 << 12 | 1 << 13 | 1 << 15 | 1 << 16;
/// Channel orders past `CL_R` (up to `CL_ABGR`).
const ORDERS: u32 = 20;
/// The channel orders Vulkan lacks (`CL_A`, `CL_RA`, `CL_RGB`, `CL_ARGB`, `CL_INTENSITY`,
/// `CL_LUMINANCE`, `CL_RGBx`, `CL_ABGR`), which a 2D image made from a buffer arranges in the
/// shader (see [`Ctx::buffer_channels`]).
const CL_A: u32 = 0x10B1;
const CL_RA: u32 = 0x10B3;
const CL_RGB: u32 = 0x10B4;
const CL_ARGB: u32 = 0x10B7;
const CL_INTENSITY: u32 = 0x10B8;
const CL_LUMINANCE: u32 = 0x10B9;
const CL_RGBX: u32 = 0x10BC;
const CL_ABGR: u32 = 0x10C3;

/// The normalized channel data types and their steps: `(CL_* value, largest integer, signed)`.
const NORMALIZED: [(u32, f64, bool); 5] = [(0x10D0, 127.0, true), (0x10D1, 32767.0, true), (0x10D2, 255.0, false), (0x10D3, 65535.0, false), (0x10D6, 1023.0, false)];

/// One setting of a sampler: known at compile time, or a run-time `bool`.
#[derive(Clone, Copy)]
enum Flag {
    Known(bool),
    Run(H),
}

/// What a sampler asks for (OpenCL's sampler properties).
#[derive(Clone, Copy)]
struct Mode {
    normalized: Flag,
    /// `CL_ADDRESS_REPEAT` / `CL_ADDRESS_MIRRORED_REPEAT` (normalized coordinates only).
    repeat: Flag,
    mirror: Flag,
    /// `CL_ADDRESS_CLAMP`: coordinates outside the image read the border colour. The other
    /// modes (`CL_ADDRESS_NONE` included, whose outside is undefined) clamp to the edge.
    border: Flag,
    linear: Flag,
}

const FETCH: Mode = Mode {
    normalized: Flag::Known(false),
    repeat: Flag::Known(false),
    mirror: Flag::Known(false),
    border: Flag::Known(false),
    linear: Flag::Known(false),
};

/// Where one axis reads: the index (in the image) and whether the coordinate was outside it.
#[derive(Clone, Copy)]
struct Tap {
    index: H,
    outside: Option<H>,
}

/// An image being read or written.
struct Image {
    arg: usize,
    dim: ImageDim,
    var: H,
    kind: K,
    /// A 2D image made from a buffer, bound as a texel buffer: its row pitch in texels and its
    /// channel order.
    buffer: Option<[H; 2]>,
}

/// Spatial axes of an image of shape `dim` (the layer of an array is not one).
fn axes(dim: ImageDim) -> u32 {
    match dim {
        ImageDim::D1 | ImageDim::D1Buffer | ImageDim::D1Array => 1,
        ImageDim::D2 | ImageDim::D2Array => 2,
        ImageDim::D3 => 3,
    }
}

fn arrayed(dim: ImageDim) -> bool {
    matches!(dim, ImageDim::D1Array | ImageDim::D2Array)
}

fn kind_of(elem: S) -> K {
    match elem {
        S::Int => K::Sint,
        S::UInt => K::Uint,
        _ => K::Float,
    }
}

/// The settings of sampler value `bits`, for a read with float coordinates (`float_coords`)
/// into float texels (`filtered`: linear filtering applies).
fn known_mode(bits: u32, float_coords: bool, filtered: bool) -> Mode {
    let addressing = bits >> 1 & 7;
    Mode {
        normalized: Flag::Known(float_coords && bits & 1 != 0),
        repeat: Flag::Known(float_coords && addressing == 3),
        mirror: Flag::Known(float_coords && addressing == 4),
        border: Flag::Known(addressing == 2),
        linear: Flag::Known(float_coords && filtered && bits & 0x10 != 0),
    }
}

impl Ctx<'_> {
    /// The kernel argument an image expression (a parameter) stands for.
    pub(super) fn image_arg(&self, e: &Expr) -> R<usize> {
        let ExprKind::Load(place) = &e.kind else {
            return Err(LowerError::new(e.loc, "internal: an image that is not a parameter"));
        };
        let PlaceKind::Local(id) = place.kind else {
            return Err(LowerError::new(e.loc, "internal: an image that is not a parameter"));
        };
        match self.slot(id, e.loc)? {
            Slot::Image(Some(arg)) => Ok(arg),
            _ => Err(LowerError::new(e.loc, "internal: an image parameter without its argument")),
        }
    }

    /// Makes image parameter `id` of the function being entered stand for argument `arg`.
    pub(super) fn bind_image(&mut self, id: LocalId, arg: usize, loc: Loc) -> R<()> {
        let slot = self.frames.last_mut().and_then(|f| f.locals.get_mut(id.0 as usize));
        let slot = slot.ok_or_else(|| LowerError::new(loc, "internal: unknown image parameter"))?;
        *slot = Slot::Image(Some(arg));
        Ok(())
    }

    /// The image `e`, read or written as channels of `kind`.
    fn image(&mut self, e: &Expr, kind: K) -> R<Image> {
        let T::Image(dim, _) = e.ty else { return Err(LowerError::new(e.loc, "internal: an image expected")) };
        let arg = self.image_arg(e)?;
        let Some(var) = self.abi.image_var(&mut self.module, arg, kind) else {
            let kernel = self.frames.first().and_then(|f| self.program.function(f.func));
            let name = kernel.and_then(|k| k.params.get(arg)).and_then(|p| kernel?.locals.get(p.local.0 as usize)).map_or("", |l| l.name.as_str());
            return Err(LowerError::new(e.loc, format!("image '{name}' is read or written both as float and as integer data, but an image has one channel type")));
        };
        let var = self.b.expr(Expression::GlobalVariable(var));
        let buffer = match self.abi.image_from_buffer(arg) {
            true => {
                let pitch = self.info_word(arg, 4, e.loc)?;
                let order = self.abi.image_info_word(&mut self.b, arg, 0).ok_or_else(|| LowerError::new(e.loc, "internal: image info words"))?;
                Some([pitch, order])
            }
            false => None,
        };
        Ok(Image { arg, dim, var, kind, buffer })
    }

    /// The coordinate of texel `indices` of `img`: for a 2D image made from a buffer, its
    /// index in the texel buffer, `y · pitch + x`.
    fn texel_coordinate(&mut self, img: &Image, indices: Vec<H>) -> H {
        match (img.buffer, indices.as_slice()) {
            (Some([pitch, _]), &[x, y]) => {
                let row = self.b.binary(B::Multiply, y, pitch);
                self.b.binary(B::Add, row, x)
            }
            _ => self.coordinate(indices),
        }
    }

    pub(super) fn image_builtin(&mut self, bi: crate::compiler::sema::model::Builtin, args: &[Expr], ty: &T, loc: Loc) -> R<Val> {
        use crate::compiler::sema::model::Builtin;
        match (bi, args) {
            (Builtin::ReadImage { elem, sampled }, [image, rest @ ..]) => {
                let (sampler, coord) = match (sampled, rest) {
                    (false, [coord]) => (None, coord),
                    (true, [sampler, coord]) => (Some(sampler), coord),
                    _ => return Err(LowerError::new(loc, "internal: bad image built-in call")),
                };
                let texel = self.read_image(elem, image, sampler, coord)?;
                // read_imageh: the texel (float, or filtered) rounded to half, as every half is.
                let texel = if elem == S::Half { self.quantize_half(texel, ty, loc)? } else { texel };
                Ok(Val::V(texel))
            }
            (Builtin::WriteImage(elem), [image, coord, color]) => self.write_image(elem, image, coord, color).map(|_| Val::Void),
            (Builtin::ImageQuery(q), [image]) => self.image_query(q, image, ty, loc).map(Val::V),
            _ => Err(LowerError::new(loc, "internal: bad image built-in call")),
        }
    }

    /// `read_image*`: the texel (float reads filtered as the sampler says) as a 4-vector.
    fn read_image(&mut self, elem: S, image: &Expr, sampler: Option<&Expr>, coord: &Expr) -> R<H> {
        let kind = kind_of(elem);
        let img = self.image(image, kind)?;
        let float_coords = coord.ty.element() == Some(S::Float);
        let mode = match sampler {
            None => FETCH,
            Some(s) => self.sampler_mode(s, float_coords, kind == K::Float)?,
        };
        let c = self.eval_value(coord)?;
        let width = coord.ty.width();
        let comps: Vec<H> = (0..u32::from(width)).map(|k| if width == 1 { c } else { self.b.member(c, k) }).collect();
        let sizes = self.image_sizes(img.arg, img.dim, image.loc)?;
        let layer = match arrayed(img.dim) {
            true => Some(self.layer(img.arg, comps[axes(img.dim) as usize], float_coords, image.loc)?),
            false => None,
        };
        let border = match mode.border {
            Flag::Known(false) => None,
            _ => Some(self.border_colour(&img, image.loc)?),
        };
        let n = axes(img.dim) as usize;
        if !float_coords {
            let taps: Vec<Tap> = (0..n).map(|k| self.edge(comps[k], sizes[k], mode.border)).collect();
            return Ok(self.texel(&img, &taps, layer, border));
        }
        let u: Vec<H> = (0..n).map(|k| self.unnormalized(comps[k], sizes[k], mode)).collect();
        let vec4 = self.vec4_ty(img.kind);
        self.choose(mode.linear, vec4, |cx| cx.linear(&img, &u, &sizes, mode, layer, border), |cx| {
            let taps: Vec<Tap> = (0..n).map(|k| cx.nearest(u[k], sizes[k], mode)).collect();
            cx.texel(&img, &taps, layer, border)
        })
    }

    /// The value of a sampler expression known at compile time: a constant (a `sampler_t`
    /// constant, or an integer constant converted), or a parameter given one.
    pub(super) fn constant_sampler(&self, e: &Expr) -> Option<u32> {
        match (&e.kind, &e.ty) {
            (ExprKind::Int(bits), T::Sampler) => Some(*bits as u32),
            (ExprKind::Load(place), T::Sampler) => {
                let PlaceKind::Local(id) = place.kind else { return None };
                self.frames.last()?.samplers.iter().find(|s| s.0 == id).map(|s| s.1)
            }
            _ => None,
        }
    }

    /// The settings of a sampler argument: folded from a constant, else tested at run time.
    fn sampler_mode(&mut self, sampler: &Expr, float_coords: bool, filtered: bool) -> R<Mode> {
        if let Some(bits) = self.constant_sampler(sampler) {
            return Ok(known_mode(bits, float_coords, filtered));
        }
        let bits = self.eval_value(sampler)?;
        let mut flag = |mask: u32, shift: u32, value: u32| {
            let m = self.b.u32(mask);
            let field = if shift == 0 { bits } else {
                let s = self.b.u32(shift);
                self.b.binary(B::ShiftRight, bits, s)
            };
            let field = self.b.binary(B::And, field, m);
            let v = self.b.u32(value);
            Flag::Run(self.b.binary(B::Equal, field, v))
        };
        let border = flag(7, 1, 2);
        if !float_coords {
            return Ok(Mode { border, ..FETCH });
        }
        let mode = Mode { normalized: flag(1, 0, 1), repeat: flag(7, 1, 3), mirror: flag(7, 1, 4), border, linear: flag(1, 4, 1) };
        Ok(if filtered { mode } else { Mode { linear: Flag::Known(false), ..mode } })
    }

    /// `accept` or `reject` as `flag` says (both and a select when it is known at run time).
    fn pick(&mut self, flag: Flag, accept: impl FnOnce(&mut Self) -> H, reject: impl FnOnce(&mut Self) -> H) -> H {
        match flag {
            Flag::Known(true) => accept(self),
            Flag::Known(false) => reject(self),
            Flag::Run(c) => {
                let (a, r) = (accept(self), reject(self));
                self.b.select(c, a, r)
            }
        }
    }

    /// As [`Self::pick`], with the two ways in the arms of an `if` (they read texels).
    fn choose(&mut self, flag: Flag, ty: Handle<naga::Type>, accept: impl FnOnce(&mut Self) -> H, reject: impl FnOnce(&mut Self) -> H) -> R<H> {
        let Flag::Run(c) = flag else { return Ok(self.pick(flag, accept, reject)) };
        let result = self.b.local("texel", ty);
        self.if_stmt(
            c,
            |cx| {
                let v = accept(cx);
                let p = cx.b.expr(Expression::LocalVariable(result));
                cx.b.store(p, v);
                Ok(())
            },
            |cx| {
                let v = reject(cx);
                let p = cx.b.expr(Expression::LocalVariable(result));
                cx.b.store(p, v);
                Ok(())
            },
        )?;
        let p = self.b.expr(Expression::LocalVariable(result));
        Ok(self.b.load(p))
    }

    fn vec4_ty(&mut self, kind: K) -> Handle<naga::Type> {
        let scalar = naga::Scalar { kind, width: 4 };
        super::builder::intern(&mut self.module, TypeInner::Vector { size: VectorSize::Quad, scalar })
    }

    /// Word `k` of image argument `arg`'s info words, as an `int`.
    fn info_word(&mut self, arg: usize, k: u32, loc: Loc) -> R<H> {
        let w = self.abi.image_info_word(&mut self.b, arg, k).ok_or_else(|| LowerError::new(loc, "internal: image info words"))?;
        Ok(self.b.cast(w, K::Sint, None))
    }

    /// The image's size along each spatial axis (info words 2, 3, 4).
    fn image_sizes(&mut self, arg: usize, dim: ImageDim, loc: Loc) -> R<Vec<H>> {
        (0..axes(dim)).map(|k| self.info_word(arg, 2 + k, loc)).collect()
    }

    /// The layers of an array (info word 5).
    fn layers(&mut self, arg: usize, loc: Loc) -> R<H> {
        self.info_word(arg, 5, loc)
    }

    /// The layer of an array read: float coordinates round to the nearest even integer, then
    /// both kinds clamp to the layers there are.
    fn layer(&mut self, arg: usize, t: H, float_coords: bool, loc: Loc) -> R<H> {
        let t = if float_coords {
            let r = self.b.math(M::Round, &[t]);
            self.b.cast(r, K::Sint, Some(4))
        } else {
            t
        };
        let layers = self.layers(arg, loc)?;
        Ok(self.clamp_index(t, layers))
    }

    /// `clamp(i, 0, n - 1)`.
    fn clamp_index(&mut self, i: H, n: H) -> H {
        let (zero, one) = (self.b.i32(0), self.b.i32(1));
        let last = self.b.binary(B::Subtract, n, one);
        self.b.math(M::Clamp, &[i, zero, last])
    }

    /// Index `i` on an axis of `n` texels: clamped into the image, and outside it when the
    /// sampler has a border.
    fn edge(&mut self, i: H, n: H, border: Flag) -> Tap {
        let outside = match border {
            Flag::Known(false) => None,
            _ => {
                let zero = self.b.i32(0);
                let below = self.b.binary(B::Less, i, zero);
                let above = self.b.binary(B::GreaterEqual, i, n);
                let out = self.b.binary(B::LogicalOr, below, above);
                Some(match border {
                    Flag::Run(b) => self.b.binary(B::LogicalAnd, b, out),
                    _ => out,
                })
            }
        };
        Tap { index: self.clamp_index(i, n), outside }
    }

    /// The unnormalized coordinate `u` on an axis of `n` texels (before the `- 0.5` of linear
    /// filtering): `s · n` for normalized coordinates, with repeat `(s - floor(s)) · n`, with
    /// mirrored repeat `|s - 2 rint(s / 2)| · n`.
    fn unnormalized(&mut self, s: H, n: H, mode: Mode) -> H {
        let nf = self.b.cast(n, K::Float, Some(4));
        let plain = self.pick(mode.normalized, |cx| cx.b.binary(B::Multiply, s, nf), |_| s);
        let mirrored = self.pick(
            mode.mirror,
            |cx| {
                let half = cx.b.float(0.5, false);
                let h = cx.b.binary(B::Multiply, half, s);
                let r = cx.b.math(M::Round, &[h]);
                let two = cx.b.float(2.0, false);
                let even = cx.b.binary(B::Multiply, two, r);
                let d = cx.b.binary(B::Subtract, s, even);
                let d = cx.b.math(M::Abs, &[d]);
                cx.b.binary(B::Multiply, d, nf)
            },
            |_| plain,
        );
        self.pick(
            mode.repeat,
            |cx| {
                let f = cx.b.math(M::Floor, &[s]);
                let frac = cx.b.binary(B::Subtract, s, f);
                cx.b.binary(B::Multiply, frac, nf)
            },
            |_| mirrored,
        )
    }

    /// `i - n` where repeat wrapped `i` past the last texel, `i + n` before the first.
    fn wrap(&mut self, i: H, n: H, mode: Mode, up: bool) -> H {
        self.pick(
            mode.repeat,
            |cx| {
                let zero = cx.b.i32(0);
                let (outside, wrapped) = if up {
                    (cx.b.binary(B::GreaterEqual, i, n), cx.b.binary(B::Subtract, i, n))
                } else {
                    (cx.b.binary(B::Less, i, zero), cx.b.binary(B::Add, i, n))
                };
                cx.b.select(outside, wrapped, i)
            },
            |_| i,
        )
    }

    /// Nearest filtering on one axis: texel `floor(u)`.
    fn nearest(&mut self, u: H, n: H, mode: Mode) -> Tap {
        let f = self.b.math(M::Floor, &[u]);
        let i = self.b.cast(f, K::Sint, Some(4));
        let i = self.wrap(i, n, mode, true);
        self.edge(i, n, mode.border)
    }

    /// Linear filtering: the 2, 4 or 8 texels around `u - 0.5`, weighted by the fractions.
    fn linear(&mut self, img: &Image, u: &[H], sizes: &[H], mode: Mode, layer: Option<H>, border: Option<H>) -> H {
        let mut axes = Vec::new();
        for (&u, &n) in u.iter().zip(sizes) {
            let half = self.b.float(0.5, false);
            let f = self.b.binary(B::Subtract, u, half);
            let fl = self.b.math(M::Floor, &[f]);
            let a = self.b.binary(B::Subtract, f, fl);
            let i0 = self.b.cast(fl, K::Sint, Some(4));
            let one = self.b.i32(1);
            let i1 = self.b.binary(B::Add, i0, one);
            let i0 = self.wrap(i0, n, mode, false);
            let i1 = self.wrap(i1, n, mode, true);
            let t0 = self.edge(i0, n, mode.border);
            let t1 = self.edge(i1, n, mode.border);
            let one = self.b.float(1.0, false);
            let b = self.b.binary(B::Subtract, one, a);
            axes.push([(t0, b), (t1, a)]);
        }
        let mut sum = None;
        for corner in 0..1u32 << axes.len() {
            let mut taps = Vec::new();
            let mut weight = None;
            for (k, axis) in axes.iter().enumerate() {
                let (tap, w) = axis[(corner >> k & 1) as usize];
                taps.push(tap);
                weight = Some(weight.map_or(w, |acc| self.b.binary(B::Multiply, acc, w)));
            }
            let t = self.texel(img, &taps, layer, border);
            let term = match weight {
                Some(w) => self.b.binary(B::Multiply, t, w),
                None => t,
            };
            sum = Some(sum.map_or(term, |acc| self.b.binary(B::Add, acc, term)));
        }
        sum.unwrap_or_else(|| self.b.float(0.0, false))
    }

    /// The texel at `taps` (and `layer`), or the border colour where a tap is outside.
    fn texel(&mut self, img: &Image, taps: &[Tap], layer: Option<H>, border: Option<H>) -> H {
        let coordinate = self.texel_coordinate(img, taps.iter().map(|t| t.index).collect());
        let level = self.b.i32(0);
        let load = self.b.expr(Expression::ImageLoad { image: img.var, coordinate, array_index: layer, sample: None, level: Some(level) });
        let load = match img.buffer {
            Some([_, order]) => self.buffer_channels(img.kind, order, load),
            None => load,
        };
        let outside = taps.iter().filter_map(|t| t.outside).reduce(|a, b| self.b.binary(B::LogicalOr, a, b));
        match (outside, border) {
            (Some(o), Some(colour)) => self.b.select(o, colour, load),
            _ => load,
        }
    }

    /// Texel `t` of a 2D image made from a buffer, its channels in OpenCL's order. A
    /// texel-buffer view cannot swizzle, so the orders Vulkan lacks (which `core::image`
    /// gives swizzled sampled views) are arranged here by the image's channel order `order`
    /// (a read-only image: writes of such orders are not offered). The view reads the
    /// channels it has as R, G, B, A with 0 and 1 for those it lacks.
    fn buffer_channels(&mut self, kind: K, order: H, t: H) -> H {
        let c: Vec<H> = (0..4).map(|k| self.b.member(t, k)).collect();
        let (zero, one) = match kind {
            K::Float => (self.b.float(0.0, false), self.b.float(1.0, false)),
            K::Sint => (self.b.i32(0), self.b.i32(1)),
            _ => (self.b.u32(0), self.b.u32(1)),
        };
        let ty = self.vec4_ty(kind);
        let arranged = [
            (CL_A, [zero, zero, zero, c[0]]),
            (CL_RA, [c[0], zero, zero, c[1]]),
            (CL_INTENSITY, [c[0]; 4]),
            (CL_LUMINANCE, [c[0], c[0], c[0], one]),
            // Memory holds A, R, G, B (or A, B, G, R): the view's R is alpha.
            (CL_ARGB, [c[1], c[2], c[3], c[0]]),
            (CL_ABGR, [c[3], c[2], c[1], c[0]]),
            // x-10-10-10: the unused bits are no alpha.
            (CL_RGB, [c[0], c[1], c[2], one]),
            (CL_RGBX, [c[0], c[1], c[2], one]),
        ];
        let mut out = t;
        for (value, channels) in arranged {
            let v = self.b.compose(ty, channels.to_vec());
            let o = self.b.u32(value);
            let is = self.b.binary(B::Equal, order, o);
            out = self.b.select(is, v, out);
        }
        out
    }

    /// An image coordinate from `int` components.
    fn coordinate(&mut self, comps: Vec<H>) -> H {
        match super::types::vector_size(comps.len() as u8) {
            Some(size) => {
                let ty = super::builder::intern(&mut self.module, TypeInner::Vector { size, scalar: naga::Scalar::I32 });
                self.b.compose(ty, comps)
            }
            None => comps[0],
        }
    }

    /// `CL_ADDRESS_CLAMP`'s colour outside the image: (0, 0, 0, 0), or (0, 0, 0, 1) for the
    /// channel orders without alpha.
    fn border_colour(&mut self, img: &Image, loc: Loc) -> R<H> {
        let order = self.abi.image_info_word(&mut self.b, img.arg, 0).ok_or_else(|| LowerError::new(loc, "internal: image info words"))?;
        let base = self.b.u32(CL_R);
        let rel = self.b.binary(B::Subtract, order, base);
        let (mask, count, low5, one) = (self.b.u32(NO_ALPHA_ORDERS), self.b.u32(ORDERS), self.b.u32(31), self.b.u32(1));
        let shift = self.b.binary(B::And, rel, low5);
        let bit = self.b.binary(B::ShiftRight, mask, shift);
        let bit = self.b.binary(B::And, bit, one);
        let known = self.b.binary(B::Less, rel, count);
        let none = self.b.u32(0);
        let bit = self.b.select(known, bit, none);
        let (zero, alpha) = match img.kind {
            K::Float => {
                let f = self.b.cast(bit, K::Float, Some(4));
                (self.b.float(0.0, false), f)
            }
            K::Sint => (self.b.i32(0), self.b.cast(bit, K::Sint, None)),
            _ => (self.b.u32(0), bit),
        };
        let ty = self.vec4_ty(img.kind);
        Ok(self.b.compose(ty, vec![zero, zero, zero, alpha]))
    }

    /// `write_image*`: stores `color` at `coord` (OpenCL leaves a write outside the image
    /// undefined; on a device running kernels in the host process it is skipped).
    fn write_image(&mut self, elem: S, image: &Expr, coord: &Expr, color: &Expr) -> R<()> {
        let img = self.image(image, kind_of(elem))?;
        let c = self.eval_value(coord)?;
        let value = self.eval_value(color)?;
        let value = if img.kind == K::Float { self.quantized(img.arg, value, image.loc)? } else { value };
        let n = axes(img.dim);
        let width = coord.ty.width();
        let comps: Vec<H> = (0..u32::from(width)).map(|k| if width == 1 { c } else { self.b.member(c, k) }).collect();
        let layer = arrayed(img.dim).then(|| comps[n as usize]);
        let spatial = comps[..n as usize].to_vec();
        let coordinate = self.texel_coordinate(&img, spatial.clone());
        let store = Statement::ImageStore { image: img.var, coordinate, array_index: layer, value };
        if !self.target.clamp_array_indices {
            self.b.stmt(store);
            return Ok(());
        }
        let sizes = self.image_sizes(img.arg, img.dim, image.loc)?;
        let mut bounds: Vec<(H, H)> = spatial.into_iter().zip(sizes).collect();
        if let Some(l) = layer {
            bounds.push((l, self.layers(img.arg, image.loc)?));
        }
        let mut inside = None;
        for (i, n) in bounds {
            let zero = self.b.i32(0);
            let low = self.b.binary(B::GreaterEqual, i, zero);
            let high = self.b.binary(B::Less, i, n);
            let here = self.b.binary(B::LogicalAnd, low, high);
            inside = Some(inside.map_or(here, |acc| self.b.binary(B::LogicalAnd, acc, here)));
        }
        match inside {
            Some(c) => self.if_stmt(c, |cx| {
                cx.b.stmt(store);
                Ok(())
            }, |_| Ok(())),
            None => {
                self.b.stmt(store);
                Ok(())
            }
        }
    }

    /// A `write_imagef` colour for a normalized format, saturated and rounded to the format's
    /// step here (to nearest even): the device's own conversion may break ties otherwise
    /// (NVIDIA writes 0.5 to `CL_UNORM_INT8` as 127 where OpenCL wants 128), and it converts
    /// a multiple of the step exactly. Other formats are left to the device.
    fn quantized(&mut self, arg: usize, value: H, loc: Loc) -> R<H> {
        let data_type = self.abi.image_info_word(&mut self.b, arg, 1).ok_or_else(|| LowerError::new(loc, "internal: image info words"))?;
        let (mut scale, mut low) = (self.b.float(0.0, false), self.b.float(0.0, false));
        for (ty, max, signed) in NORMALIZED {
            let t = self.b.u32(ty);
            let is = self.b.binary(B::Equal, data_type, t);
            let m = self.b.float(max, false);
            scale = self.b.select(is, m, scale);
            if signed {
                let minus_one = self.b.float(-1.0, false);
                low = self.b.select(is, minus_one, low);
            }
        }
        let (scale, low, one) = (self.b.splat(VectorSize::Quad, scale), self.b.splat(VectorSize::Quad, low), self.b.float(1.0, false));
        let one = self.b.splat(VectorSize::Quad, one);
        let clamped = self.b.math(M::Clamp, &[value, low, one]);
        let scaled = self.b.binary(B::Multiply, clamped, scale);
        let steps = self.b.math(M::Round, &[scaled]);
        let stepped = self.b.binary(B::Divide, steps, scale);
        let zero = self.b.float(0.0, false);
        let zero = self.b.splat(VectorSize::Quad, zero);
        let normalized = self.b.binary(B::NotEqual, scale, zero);
        let normalized = self.b.expr(Expression::Relational { fun: naga::RelationalFunction::All, argument: normalized });
        Ok(self.b.select(normalized, stepped, value))
    }

    /// `get_image_*`: the image's info words.
    fn image_query(&mut self, q: ImageQuery, image: &Expr, ty: &T, loc: Loc) -> R<H> {
        let T::Image(dim, _) = image.ty else { return Err(LowerError::new(loc, "internal: an image expected")) };
        let arg = self.image_arg(image)?;
        match q {
            ImageQuery::ChannelOrder => self.info_word(arg, 0, loc),
            ImageQuery::ChannelDataType => self.info_word(arg, 1, loc),
            ImageQuery::Width => self.info_word(arg, 2, loc),
            ImageQuery::Height => self.info_word(arg, 3, loc),
            ImageQuery::Depth => self.info_word(arg, 4, loc),
            ImageQuery::ArraySize => {
                let w = self.abi.image_info_word(&mut self.b, arg, 5).ok_or_else(|| LowerError::new(loc, "internal: image info words"))?;
                let wide = ty.element().is_some_and(|s| s.size() == 8);
                Ok(if wide { self.b.cast(w, K::Uint, Some(8)) } else { w })
            }
            ImageQuery::Dim => {
                let mut sizes = self.image_sizes(arg, dim, loc)?;
                if sizes.len() == 3 {
                    sizes.push(self.b.i32(0));
                }
                Ok(self.coordinate(sizes))
            }
        }
    }
}

#[cfg(test)]
mod tests;
