//! From written types to model types: built-in type names, declarators, struct/union layout,
//! enums, and the spelling of types in messages and in kernel-argument reflection.

use super::consteval::{int_bits, int_value};
use super::model::{ImageAccess, ImageDim, Member, Quals, Record, RecordId, Scalar, Space, Type};
use super::scope::{Symbol, Tag};
use super::{space_name, Sema};
use crate::compiler::parse::ast::{self, Derived, TypeSpec};
use crate::compiler::parse::vector_name_parts;
use crate::compiler::source::Loc;

/// A declarator resolved: the object's type and the qualifiers of the object itself.
#[derive(Clone, Debug)]
pub struct Declared {
    pub name: Option<(String, Loc)>,
    pub ty: Type,
    /// Address space written on the object itself (not on a pointee).
    pub space: Option<(Space, Loc)>,
    pub is_const: bool,
    pub is_restrict: bool,
    /// The outermost array had no size (`int a[]`).
    pub unsized_array: bool,
}

/// The underlying types an enum may have, narrowest first: the first that holds every value
/// (C23 §6.7.2.2 leaves the choice to the implementation; `int` when all values fit, as before).
const ENUM_TYPES: [Scalar; 4] = [Scalar::Int, Scalar::UInt, Scalar::Long, Scalar::ULong];

fn fits(value: i128, s: Scalar) -> bool {
    int_value(int_bits(value, s), s) == value
}

fn enum_const(value: i128, ty: Scalar) -> Symbol {
    Symbol::EnumConst(int_bits(value, ty), ty)
}

/// The shape of an image type name.
pub fn image_dim(name: &str) -> Option<ImageDim> {
    Some(match name {
        "image1d_t" => ImageDim::D1,
        "image1d_buffer_t" => ImageDim::D1Buffer,
        "image1d_array_t" => ImageDim::D1Array,
        "image2d_t" => ImageDim::D2,
        "image2d_array_t" => ImageDim::D2Array,
        "image3d_t" => ImageDim::D3,
        _ => return None,
    })
}

/// The OpenCL C name of an image type.
pub fn image_type_name(dim: ImageDim) -> &'static str {
    match dim {
        ImageDim::D1 => "image1d_t",
        ImageDim::D1Buffer => "image1d_buffer_t",
        ImageDim::D1Array => "image1d_array_t",
        ImageDim::D2 => "image2d_t",
        ImageDim::D2Array => "image2d_array_t",
        ImageDim::D3 => "image3d_t",
    }
}

/// A record's members as they are laid out.
struct Layout {
    members: Vec<Member>,
    /// The end of the last member (of the largest, in a union).
    offset: u64,
    align: u32,
    is_union: bool,
}

/// `struct { ... }` or `union { ... }` without a tag: as a member declaration without a
/// declarator, an anonymous member.
fn is_anonymous_record(spec: &TypeSpec) -> bool {
    matches!(spec, TypeSpec::Record(r) if r.tag.is_none() && r.members.is_some())
}

/// Most pointer/array levels of a type (typedefs can stack declarators).
const MAX_TYPE_DEPTH: usize = 32;

/// Pointer and array levels of a type, counted without recursion.
fn type_depth(mut ty: &Type) -> usize {
    let mut depth = 0;
    while let Type::Pointer { pointee: inner, .. } | Type::Array { elem: inner, .. } = ty {
        depth += 1;
        ty = inner;
    }
    depth
}

fn scalar_by_name(name: &str) -> Option<Scalar> {
    Some(match name {
        "bool" => Scalar::Bool,
        "char" => Scalar::Char,
        "uchar" => Scalar::UChar,
        "short" => Scalar::Short,
        "ushort" => Scalar::UShort,
        "int" => Scalar::Int,
        "uint" => Scalar::UInt,
        "long" => Scalar::Long,
        "ulong" => Scalar::ULong,
        "half" => Scalar::Half,
        "float" => Scalar::Float,
        "double" => Scalar::Double,
        _ => return None,
    })
}

impl Sema<'_> {
    /// A built-in type name (`uint`, `float4`, `size_t`...), checking the device supports it.
    pub(super) fn builtin_type(&mut self, name: &str, loc: Loc) -> Option<Type> {
        let wide = self.target.address_bits == 64;
        let ty = match name {
            "void" => Type::Void,
            "size_t" | "uintptr_t" => Type::Scalar(if wide { Scalar::ULong } else { Scalar::UInt }),
            "ptrdiff_t" | "intptr_t" => Type::Scalar(if wide { Scalar::Long } else { Scalar::Int }),
            "cl_mem_fence_flags" => Type::Scalar(Scalar::UInt),
            "sampler_t" => Type::Sampler,
            n if image_dim(n).is_some() => {
                return self.err(loc, format!("'{n}' needs an access qualifier here (read_only or write_only)"));
            }
            "event_t" => self.event_type(),
            n => match (scalar_by_name(n), vector_name_parts(n)) {
                (Some(s), _) => Type::Scalar(s),
                (None, Some((base, width))) => Type::Vector(scalar_by_name(base)?, width),
                _ => return self.err(loc, format!("unknown type name '{n}'")),
            },
        };
        self.check_type_supported(&ty, loc)?;
        Some(ty)
    }

    /// An image type with the access qualifier of `spec` (`read_only` when none is written).
    /// `read_write` images need `__opencl_c_read_write_images`, which is not reported.
    fn image_type(&mut self, dim: ImageDim, spec: &ast::DeclSpec) -> Option<Type> {
        let access = match spec.access {
            None | Some(ast::Access::ReadOnly) => ImageAccess::Read,
            Some(ast::Access::WriteOnly) => ImageAccess::Write,
            Some(ast::Access::ReadWrite) => return self.err(spec.loc, "read_write images are not supported"),
        };
        Some(Type::Image(dim, access))
    }

    /// Images and samplers are only parameters and values (OpenCL C 1.2 §6.9 b, c): there is
    /// no `what` (a pointer to, an array of, a member, a return value) of them.
    pub(super) fn check_not_opaque(&mut self, ty: &Type, what: &str, loc: Loc) -> Option<()> {
        if matches!(ty, Type::Image(..) | Type::Sampler) {
            return self.err(loc, format!("{what} '{}' is not allowed", self.type_str(ty)));
        }
        Some(())
    }

    /// `double` needs fp64, `long` needs 64-bit integers.
    fn check_type_supported(&mut self, ty: &Type, loc: Loc) -> Option<()> {
        match ty.element() {
            Some(Scalar::Double) if !self.target.fp64 => {
                self.err(loc, "type 'double' requires the cl_khr_fp64 extension, which this device does not support")
            }
            Some(Scalar::Long | Scalar::ULong) if !self.target.int64 => {
                self.err(loc, "64-bit integers are not supported by this device")
            }
            _ => Some(()),
        }
    }

    /// `half` values (not pointers to them) need cl_khr_fp16.
    pub(super) fn check_half_value(&mut self, ty: &Type, loc: Loc) -> Option<()> {
        let elem = match ty {
            Type::Array { elem, .. } => elem.element(),
            t => t.element(),
        };
        if elem == Some(Scalar::Half) && !self.target.fp16 {
            return self.err(loc, "'half' values require the cl_khr_fp16 extension; without it, use pointers to half with vload_half/vstore_half");
        }
        Some(())
    }

    /// The type named by declaration specifiers (defining any struct/union/enum in them).
    pub(super) fn spec_type(&mut self, spec: &ast::DeclSpec) -> Option<Type> {
        if let (Some(at), false) = (spec.quals.generic, self.is_cl2()) {
            return self.err(at, "the generic address space needs OpenCL C 2.0 or 3.0 (-cl-std=CL3.0)");
        }
        match &spec.ty {
            TypeSpec::Builtin(name) => match image_dim(name) {
                Some(dim) => self.image_type(dim, spec),
                None if spec.access.is_some() => self.err(spec.loc, format!("access qualifiers apply to images, not to '{name}'")),
                None => self.builtin_type(name, spec.loc),
            },
            TypeSpec::Typedef(name) => match self.scopes.lookup(name) {
                Some(Symbol::Typedef(t, _)) => Some(t.clone()),
                _ => self.err(spec.loc, format!("unknown type name '{name}'")),
            },
            TypeSpec::Record(r) => self.record_type(r),
            TypeSpec::Enum(e) => self.enum_type(e),
        }
    }

    /// Resolves a declarator over `base` (the type named by `spec`). For a function
    /// declarator, pass `skip_function: true` to get the return type (its first derived part,
    /// the parameter list, is skipped).
    pub(super) fn declared(
        &mut self,
        spec: &ast::DeclSpec,
        base: Type,
        declarator: &ast::Declarator,
        skip_function: bool,
    ) -> Option<Declared> {
        let mut ty = base;
        let mut quals = spec.quals;
        let mut unsized_array = false;
        let derived = if skip_function { declarator.derived.get(1..).unwrap_or(&[]) } else { &declarator.derived[..] };
        for d in derived.iter().rev() {
            unsized_array = false;
            match d {
                Derived::Pointer(q, at) => {
                    self.check_not_opaque(&ty, "a pointer to", *at)?;
                    // OpenCL C 2.0/3.0: an unqualified pointee is in the generic address space.
                    let default = if self.is_cl2() { Space::Generic } else { Space::Private };
                    let space = if quals.generic.is_some() { Space::Generic } else { quals.space.map_or(default, |s| s.0) };
                    let pointee_quals = Quals { is_const: quals.is_const, is_volatile: quals.is_volatile };
                    ty = Type::Pointer { pointee: Box::new(ty), space, quals: pointee_quals };
                    quals = *q;
                    if let Some(at) = q.generic {
                        return self.err(at, "a pointer itself cannot be in the generic address space (qualify the pointee)");
                    }
                }
                Derived::Array(size, at) => {
                    if matches!(ty, Type::Void) {
                        return self.err(*at, "array of 'void'");
                    }
                    self.check_not_opaque(&ty, "an array of", *at)?;
                    let len = match size {
                        Some(e) => self.array_len(e)?,
                        None => {
                            unsized_array = true;
                            0
                        }
                    };
                    ty = Type::Array { elem: Box::new(ty), len };
                    if self.size_of(&ty) > u64::from(u32::MAX) {
                        return self.err(*at, "array is too large (more than 4 GiB)");
                    }
                }
                Derived::Function(_, at) => {
                    return self.err(*at, "function pointers and functions returning functions are not supported in OpenCL C");
                }
            }
        }
        if let (Some(at), false) = (quals.generic, ty.is_pointer()) {
            return self.err(at, "only what a pointer points to can be in the generic address space");
        }
        if type_depth(&ty) > MAX_TYPE_DEPTH {
            return self.err(declarator.loc, format!("type nesting too deep (more than {MAX_TYPE_DEPTH} pointer and array levels)"));
        }
        Some(Declared {
            name: declarator.name.clone(),
            ty,
            space: quals.space,
            is_const: quals.is_const,
            is_restrict: quals.is_restrict,
            unsized_array,
        })
    }

    fn array_len(&mut self, e: &ast::Expr) -> Option<u32> {
        let n = self.const_int(e)?;
        match u32::try_from(n) {
            Ok(n) if n > 0 => Some(n),
            _ => self.err(e.loc, format!("array size must be a positive integer constant, not {n}")),
        }
    }

    fn record_type(&mut self, r: &ast::RecordSpec) -> Option<Type> {
        let kind = if r.is_union { "union" } else { "struct" };
        let existing = r.tag.as_ref().and_then(|t| if r.members.is_some() { self.scopes.tag_here(t) } else { self.scopes.tag(t) });
        let id = match existing {
            Some(Tag::Record(id, is_union)) if is_union == r.is_union => id,
            Some(_) => return self.err(r.loc, format!("'{}' is not a {kind}", r.tag.as_deref().unwrap_or(""))),
            None => {
                let id = RecordId(self.types.records.len() as u32);
                let name = r.tag.clone().unwrap_or_default();
                self.types.records.push(Record { name, is_union: r.is_union, members: vec![], size: 0, align: 1, packed: false });
                if let Some(tag) = &r.tag {
                    self.scopes.declare_tag(tag, Tag::Record(id, r.is_union));
                }
                id
            }
        };
        if let Some(members) = &r.members {
            self.define_record(id, r, members)?;
            if let Some(twin) = self.earlier_twin(id).filter(|_| r.tag.is_some()) {
                self.scopes.declare_tag(r.tag.as_deref().unwrap_or_default(), Tag::Record(twin, r.is_union));
                return Some(Type::Record(twin));
            }
        }
        Some(Type::Record(id))
    }

    /// A record of an earlier translation unit of a link that `id` is compatible with (C99
    /// 6.2.7: the same tag, and members of the same names and types in the same order), so the
    /// units share one type: a variable or function one of them defines is used with it by
    /// another.
    fn earlier_twin(&self, id: RecordId) -> Option<RecordId> {
        let r = self.types.record(id)?;
        (0..self.unit_first_record).map(RecordId).find(|&e| {
            let Some(t) = self.types.record(e) else { return false };
            let same_member = |a: &Member, b: &Member| a.name == b.name && a.offset == b.offset && same_type(&a.ty, &b.ty, (id, e));
            t.name == r.name
                && (t.is_union, t.size, t.align, t.packed) == (r.is_union, r.size, r.align, r.packed)
                && t.members.len() == r.members.len()
                && r.members.iter().zip(&t.members).all(|(a, b)| same_member(a, b))
        })
    }

    /// Lays out the members in the OpenCL C (C99) way: each at the next multiple of its
    /// alignment (1 when packed), the size rounded up to the record's alignment.
    fn define_record(&mut self, id: RecordId, r: &ast::RecordSpec, decls: &[ast::Declaration]) -> Option<()> {
        let packed = r.attrs.iter().any(|a| a.name == "packed");
        let mut layout = Layout { members: Vec::new(), offset: 0, align: 1, is_union: r.is_union };
        let mut some_packed = packed;
        if let Some(n) = self.aligned_attr(&r.attrs) {
            layout.align = n;
        }
        for d in decls {
            let base = self.spec_type(&d.spec)?;
            if d.declarators.is_empty() && is_anonymous_record(&d.spec.ty) {
                // C11: an anonymous struct or union's members are members of this record.
                let align = if packed { 1 } else { self.types.align_of(&base) };
                self.add_member(&mut layout, String::new(), base, d.loc, align)?;
                continue;
            }
            for id in &d.declarators {
                let decl = self.declared(&d.spec, base.clone(), &id.declarator, false)?;
                let (name, loc) = decl.name.clone().unwrap_or_default();
                // (`global int *p` qualifies what the member points to.)
                if d.spec.quals.space.is_some() && !decl.ty.is_pointer() {
                    return self.err(d.loc, "struct members cannot have an address-space qualifier");
                }
                if decl.unsized_array {
                    return self.err(loc, format!("member '{name}' has an incomplete type"));
                }
                self.check_not_opaque(&decl.ty, &format!("member '{name}' of type"), loc)?;
                // `packed` on the record or the member gives alignment 1, where an `aligned`
                // attribute of the member (not of its typedef) still raises it (as in gcc).
                let member_packed = packed || [&d.spec.attrs, &id.declarator.attrs].iter().any(|a| a.iter().any(|a| a.name == "packed"));
                some_packed |= member_packed;
                let mut align = if member_packed { 1 } else { self.types.align_of(&decl.ty).max(self.typedef_align(&d.spec)) };
                if let Some(n) = self.aligned_attr(&id.declarator.attrs) {
                    align = align.max(n);
                }
                self.add_member(&mut layout, name, decl.ty, loc, align)?;
            }
        }
        let size = layout.offset.next_multiple_of(u64::from(layout.align));
        let Ok(size) = u32::try_from(size) else { return self.err(r.loc, "struct is too large") };
        let record = self.types.records.get_mut(id.0 as usize)?;
        record.members = layout.members;
        record.size = size;
        record.align = layout.align;
        record.packed = some_packed;
        Some(())
    }

    /// The alignment a typedef named by `spec` was given by an `aligned` attribute (0 if none).
    fn typedef_align(&self, spec: &ast::DeclSpec) -> u32 {
        match &spec.ty {
            TypeSpec::Typedef(name) => match self.scopes.lookup(name) {
                Some(Symbol::Typedef(_, align)) => *align,
                _ => 0,
            },
            _ => 0,
        }
    }

    /// The alignment attributes give a declaration beyond its type's (0 if none): `aligned` in
    /// its specifiers or declarator, or that of the typedef it names. A typedef declared with
    /// it passes it on: `typedef int int8a __attribute__((aligned(8)));`.
    pub(super) fn declared_align(&mut self, spec: &ast::DeclSpec, declarator_attrs: &[ast::Attribute]) -> Option<u32> {
        let mut align = self.typedef_align(spec);
        for attrs in [&spec.attrs[..], declarator_attrs] {
            if attrs.iter().any(|a| a.name == "aligned") {
                align = align.max(self.aligned_attr(attrs)?);
            }
        }
        Some(align)
    }

    /// Places member `name` (empty for an anonymous struct or union), aligned to `align`, at
    /// the end of `layout`, or at offset 0 of a union.
    fn add_member(&mut self, layout: &mut Layout, name: String, ty: Type, loc: Loc, align: u32) -> Option<()> {
        let size = self.size_of(&ty);
        if matches!(ty, Type::Void) || size == 0 {
            return self.err(loc, format!("member '{name}' has an incomplete type"));
        }
        let member = Member { name, ty, offset: 0 };
        let taken: Vec<String> = layout.members.iter().flat_map(|m| self.types.member_names(m)).collect();
        if let Some(dup) = self.types.member_names(&member).into_iter().find(|n| taken.contains(n)) {
            return self.err(loc, format!("duplicate member '{dup}'"));
        }
        layout.align = layout.align.max(align);
        let at = if layout.is_union { 0 } else { layout.offset.next_multiple_of(u64::from(align)) };
        layout.offset = if layout.is_union { layout.offset.max(size) } else { at + size };
        layout.members.push(Member { offset: at as u32, ..member });
        Some(())
    }

    /// `__attribute__((aligned(N)))`: N, a power of two.
    fn aligned_attr(&mut self, attrs: &[ast::Attribute]) -> Option<u32> {
        let a = attrs.iter().find(|a| a.name == "aligned")?;
        let Some(ast::AttrArg::Expr(e)) = a.args.first() else { return Some(16) };
        let n = self.const_int(e)?;
        match u32::try_from(n) {
            Ok(n) if n.is_power_of_two() => Some(n),
            _ => self.err(a.loc, format!("requested alignment {n} is not a power of two")),
        }
    }

    /// An enum: its enumerators are declared as constants, its type is its underlying type
    /// ([`enum_underlying`]). As clang does for C, each enumerator is an `int` if its value fits,
    /// otherwise of the enum's type; while the list is read, an enumerator that does not fit in
    /// `int` has the type of its initializer (or of the one before, one added).
    fn enum_type(&mut self, e: &ast::EnumSpec) -> Option<Type> {
        let Some(variants) = &e.variants else {
            let tag = e.tag.as_deref().unwrap_or_default();
            return match self.scopes.tag(tag) {
                Some(Tag::Enum(s)) => Some(Type::Scalar(s)),
                _ => self.err(e.loc, format!("unknown enum '{tag}'")),
            };
        };
        if let Some(tag) = &e.tag {
            self.scopes.declare_tag(tag, Tag::Enum(Scalar::Int));
        }
        let mut values = Vec::with_capacity(variants.len());
        let mut previous: Option<(i128, Scalar)> = None;
        for v in variants {
            let (value, ty) = match (&v.value, previous) {
                (Some(init), _) => self.typed_const_int(init)?,
                (None, Some((p, ty))) => (p + 1, ty),
                (None, None) => (0, Scalar::Int),
            };
            let Some(ty) = [Scalar::Int, ty].into_iter().chain(ENUM_TYPES).find(|&s| fits(value, s)) else {
                return self.err(v.loc, format!("enumerator value {value} does not fit in 64 bits"));
            };
            self.check_type_supported(&Type::Scalar(ty), v.loc)?;
            self.scopes.declare(&v.name, enum_const(value, ty));
            values.push(value);
            previous = Some((value, ty));
        }
        let Some(underlying) = ENUM_TYPES.into_iter().find(|&s| values.iter().all(|&v| fits(v, s))) else {
            return self.err(e.loc, "the enumerator values need both a signed and a 64-bit unsigned type; no integer type holds them all");
        };
        for (v, &value) in variants.iter().zip(&values) {
            let ty = if fits(value, Scalar::Int) { Scalar::Int } else { underlying };
            self.scopes.declare(&v.name, enum_const(value, ty));
        }
        if let Some(tag) = &e.tag {
            self.scopes.declare_tag(tag, Tag::Enum(underlying));
        }
        Some(Type::Scalar(underlying))
    }

    /// A typedef (with the alignment its attributes give it, see [`Self::declared_align`]); an
    /// anonymous struct or union takes the typedef's name (for messages and `Record::name`).
    pub(super) fn declare_typedef(&mut self, name: &str, mut ty: Type, align: u32) {
        if let Type::Record(id) = ty {
            if let Some(r) = self.types.records.get_mut(id.0 as usize).filter(|r| r.name.is_empty()) {
                r.name = name.to_string();
                // `typedef struct { ... } T;` in two units of a link is one type.
                if let Some(twin) = self.earlier_twin(id) {
                    ty = Type::Record(twin);
                }
            }
        }
        self.scopes.declare(name, Symbol::Typedef(ty, align));
    }

    /// The type as messages print it, e.g. `__global float4*`.
    pub(super) fn type_str(&self, ty: &Type) -> String {
        match ty {
            Type::Void => "void".into(),
            Type::Scalar(s) => s.name().into(),
            Type::Vector(s, n) => format!("{}{n}", s.name()),
            Type::Pointer { pointee, space, quals } => {
                let c = if quals.is_const { "const " } else { "" };
                format!("{} {c}{}*", space_name(*space), self.type_str(pointee))
            }
            Type::Array { elem, len } => format!("{}[{len}]", self.type_str(elem)),
            Type::Atomic(s) => format!("atomic_{}", s.name()),
            Type::Image(dim, ImageAccess::Read) => format!("read_only {}", image_type_name(*dim)),
            Type::Image(dim, ImageAccess::Write) => format!("write_only {}", image_type_name(*dim)),
            Type::Sampler => "sampler_t".into(),
            Type::Record(id) if self.event == Some(*id) => "event_t".into(),
            Type::Record(id) => match self.types.record(*id) {
                Some(r) => format!("{} {}", if r.is_union { "union" } else { "struct" }, r.name),
                None => "struct".into(),
            },
        }
    }
}

/// The type name `clGetKernelArgInfo` reports: the base type as written (typedef names kept,
/// `unsigned int` as `uint`), a `*` per pointer (array parameters are pointers).
pub fn reflected_type_name(spec: &ast::DeclSpec, declarator: &ast::Declarator) -> String {
    let mut name = match &spec.ty {
        TypeSpec::Builtin(n) | TypeSpec::Typedef(n) => n.clone(),
        TypeSpec::Record(r) => {
            format!("{} {}", if r.is_union { "union" } else { "struct" }, r.tag.as_deref().unwrap_or(""))
        }
        TypeSpec::Enum(e) => format!("enum {}", e.tag.as_deref().unwrap_or("")),
    };
    for d in &declarator.derived {
        if matches!(d, Derived::Pointer(..) | Derived::Array(..)) {
            name.push('*');
        }
    }
    name
}

/// Types equal but for record `pair.0` standing for `pair.1` (a record pointing to itself).
fn same_type(a: &Type, b: &Type, pair: (RecordId, RecordId)) -> bool {
    match (a, b) {
        (Type::Record(x), Type::Record(y)) => x == y || (*x, *y) == pair,
        (Type::Pointer { pointee: p, space: s, quals: q }, Type::Pointer { pointee: p2, space: s2, quals: q2 }) => {
            s == s2 && q == q2 && same_type(p, p2, pair)
        }
        (Type::Array { elem, len }, Type::Array { elem: e2, len: l2 }) => len == l2 && same_type(elem, e2, pair),
        _ => a == b,
    }
}
