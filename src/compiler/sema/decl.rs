//! File-scope declarations and functions: program-scope variables (A9, A12), function
//! signatures (A3, A4, A13, kernel rules), kernel attributes, initializers, and the
//! whole-program checks at the end (undefined functions, recursion, A10 constant limits).

use super::consteval::{int_bits, to_bytes};
use super::model::{GlobalId, GlobalVar, Place,
    ConstId, ConstantVar, Expr, ExprKind, FuncId, Function, FunctionKind, Param, PlaceKind, Program,
    Scalar, Space, Type,
};
use super::scope::{Symbol, VarInfo, VarRef};
use super::types::{reflected_type_name, Declared};
use super::{space_name, visit, FnCtx, FuncEntry, Sema};
use crate::compiler::parse::ast::{self, Derived, ExternalDecl, Initializer, TypeSpec};
use crate::compiler::source::Loc;
use crate::compiler::KernelAttributes;
use std::collections::BTreeSet;

/// Largest array an initializer list may fill (the model lists every element).
const MAX_INIT_ELEMENTS: u32 = 1 << 16;

/// How a `__global` variable's declaration relates to others of its name.
#[derive(Clone, Copy, PartialEq)]
enum Linkage {
    /// At program scope: one variable for every declaration of the name.
    Program,
    /// `extern` at program scope: the same, and defined elsewhere.
    Extern,
    /// `static` inside a function: a variable of its own.
    Own,
}

/// An item of an initializer list: its designators and the initializer.
type InitItem = (Vec<ast::Designator>, Initializer);

/// How [`Sema::list_value`] enters an aggregate.
enum Entry<'a> {
    /// Its own braces.
    Braces,
    /// Its braces left out: its first item's value.
    Elided(Expr),
    /// By a designator naming a part inside it: the slots from here on, and its value so far.
    Designated { path: &'a [usize], prior: Option<Expr> },
}

/// A function's signature as written.
struct Signature {
    name: String,
    ret: Type,
    params: Vec<(Declared, String, Loc)>,
    is_kernel: bool,
    loc: Loc,
}

impl Sema<'_> {
    pub(super) fn translation_unit(&mut self, tu: &ast::TranslationUnit) {
        self.declare_atomics();
        for item in &tu.items {
            match item {
                ExternalDecl::Function(f) => {
                    self.function_def(f);
                }
                ExternalDecl::Decl(d) => self.file_decl(d),
            }
        }
    }

    /// Starts the next translation unit of a link: what it declares at file scope is its own,
    /// but for the functions and variables, which every unit shares.
    pub(super) fn next_translation_unit(&mut self) {
        self.scopes.next_file();
        self.unit_first_record = self.types.records.len() as u32;
    }

    fn file_decl(&mut self, d: &ast::Declaration) {
        let Some(base) = self.spec_type(&d.spec) else { return };
        for id in &d.declarators {
            let is_function = matches!(id.declarator.derived.first(), Some(Derived::Function(..)));
            if is_function && !d.spec.storage.is_typedef {
                self.declare_function(&d.spec, &id.declarator);
                continue;
            }
            let Some(decl) = self.declared(&d.spec, base.clone(), &id.declarator, false) else { continue };
            let Some((name, loc)) = decl.name.clone() else { continue };
            if d.spec.storage.is_typedef {
                let align = self.declared_align(&d.spec, &id.declarator.attrs).unwrap_or_default();
                self.declare_typedef(&name, decl.ty, align);
            } else {
                self.program_var(decl, id.init.as_ref(), d.spec.storage.is_extern, &name, loc);
            }
        }
    }

    /// A12: program-scope variables are `__constant`, or in OpenCL C 2.0/3.0 `__global`
    /// (the default there: `__opencl_c_program_scope_global_variables`).
    fn program_var(&mut self, mut decl: Declared, init: Option<&Initializer>, is_extern: bool, name: &str, loc: Loc) -> Option<()> {
        if let Some(i) = init.filter(|_| decl.unsized_array) {
            decl.ty = self.sized_by_initializer(&decl.ty, i)?;
        }
        match decl.ty {
            Type::Image(..) => return self.err(loc, format!("'{name}': an image can only be a function parameter")),
            Type::Sampler => return self.sampler_var(decl.space, init, name, loc),
            _ => {}
        }
        match decl.space.map(|s| s.0) {
            Some(Space::Constant) if is_extern && init.is_none() => self.extern_constant(decl, name, loc),
            Some(Space::Constant) => self.constant_var(decl, init, name, loc).map(|_| ()),
            Some(Space::Global) | None if self.is_cl2() => {
                let linkage = if is_extern { Linkage::Extern } else { Linkage::Program };
                self.global_var(decl, init, linkage, name, loc)
            }
            _ => self.err(loc, format!("program-scope variable '{name}' must be declared in the __constant address space")),
        }
    }

    /// The address (as a pointer held in memory) of a program-scope `__global` variable, or an
    /// element or member of one, that constant pointer expression `e` names.
    fn variable_address(&mut self, e: &Expr) -> Option<u64> {
        let offset = match &e.kind {
            ExprKind::AddrOf(p) | ExprKind::Decay(p) => self.place_offset(p)?,
            ExprKind::PtrCast(inner) => return self.variable_address(inner),
            ExprKind::PtrAdd(p, n) => {
                let Type::Pointer { pointee, .. } = &p.ty else { return None };
                let n = self.const_value_of(n)?;
                let size = self.size_of(pointee);
                return Some(self.variable_address(p)?.wrapping_add(n.wrapping_mul(size)));
            }
            _ => return None,
        };
        Some(crate::compiler::global_variable_address(offset, self.types.pointer_size))
    }

    /// The byte offset in the program's `__global` variables of place `p` (constant indices).
    fn place_offset(&mut self, p: &Place) -> Option<u32> {
        match p.kind {
            PlaceKind::Global(id) => self.global_vars.get(id.0 as usize).map(|v| v.offset),
            PlaceKind::Index(ref base, ref i) => {
                let Type::Array { elem, .. } = &base.ty else { return None };
                let k = u32::try_from(self.const_value_of(i)?).ok()?;
                let size = self.size_of(elem) as u32;
                Some(self.place_offset(base)? + k * size)
            }
            PlaceKind::Member(ref base, m) => {
                let Type::Record(r) = base.ty else { return None };
                let offset = self.types.record(r)?.members.get(m as usize)?.offset;
                Some(self.place_offset(base)? + offset)
            }
            _ => None,
        }
    }

    pub(super) fn const_value_of(&mut self, e: &Expr) -> Option<u64> {
        match &e.kind {
            ExprKind::Int(v) => Some(*v),
            ExprKind::Convert { value, .. } => self.const_value_of(value),
            _ => None,
        }
    }

    fn is_null_pointer(&self, e: &Expr) -> bool {
        matches!(e.kind, ExprKind::Zero)
    }

    /// A `static` variable inside a function (OpenCL C 2.0/3.0): a `__constant` or `__global`
    /// variable of the program, visible in its block.
    pub(super) fn static_local(&mut self, mut decl: Declared, init: Option<&Initializer>, name: &str, loc: Loc) -> Option<()> {
        if let Some(i) = init.filter(|_| decl.unsized_array) {
            decl.ty = self.sized_by_initializer(&decl.ty, i)?;
        }
        match decl.space.map(|s| s.0) {
            Some(Space::Constant) => self.constant_var(decl, init, name, loc).map(|_| ()),
            Some(Space::Global) | None => self.global_var(decl, init, Linkage::Own, name, loc),
            Some(_) => self.err(loc, format!("static variable '{name}' must be in the __global or __constant address space")),
        }
    }

    /// A `__global` variable of the program: room in the program's buffer of them and its
    /// initial bytes. At program scope, a declaration takes the room of an earlier one of the
    /// same name, and an `extern` one the room its definition (perhaps in another file of a
    /// link) fills.
    fn global_var(&mut self, decl: Declared, init: Option<&Initializer>, linkage: Linkage, name: &str, loc: Loc) -> Option<()> {
        if self.size_of(&decl.ty) > crate::compiler::MAX_GLOBAL_VARIABLE_SIZE {
            return self.err(loc, format!("'{name}' is larger than CL_DEVICE_MAX_GLOBAL_VARIABLE_SIZE ({} bytes)", crate::compiler::MAX_GLOBAL_VARIABLE_SIZE));
        }
        self.check_half_value(&decl.ty, loc)?;
        let bytes = match init {
            Some(init) if decl.ty.is_pointer() => {
                let value = self.initializer_value(init, &decl.ty)?;
                let address = self.variable_address(&value).or_else(|| self.is_null_pointer(&value).then_some(0));
                let Some(address) = address else {
                    return self.err(loc, format!("the initializer of '{name}' is not NULL or the address of a program-scope __global variable"));
                };
                Some(address.to_le_bytes()[..self.types.pointer_size as usize].to_vec())
            }
            Some(init) => {
                let value = self.initializer_value(init, &decl.ty)?;
                let cv = self.eval_expr(&value)?;
                let Some(bytes) = to_bytes(&cv, &decl.ty, &self.types) else {
                    return self.err(loc, format!("the initializer of '{name}' is not a compile-time constant"));
                };
                Some(bytes)
            }
            None if linkage == Linkage::Extern => None,
            None => Some(vec![0; self.size_of(&decl.ty) as usize]),
        };
        let earlier = match self.scopes.lookup(name) {
            Some(Symbol::Var(VarInfo { var: VarRef::Global(id), .. })) if linkage != Linkage::Own => Some(*id),
            _ => None,
        };
        let id = match earlier {
            Some(id) => {
                let var = self.global_vars.get_mut(id.0 as usize)?;
                if var.ty != decl.ty {
                    return self.err(loc, format!("'{name}' is declared again with another type"));
                }
                match (&var.bytes, bytes) {
                    (Some(_), Some(_)) => return self.err(loc, format!("redefinition of '{name}'")),
                    (None, Some(b)) => var.bytes = Some(b),
                    _ => {}
                }
                id
            }
            None => {
                let align = self.types.align_of(&decl.ty);
                let end = self.global_vars.last().map_or(0, |v| v.offset + self.size_of(&v.ty) as u32);
                let offset = end.next_multiple_of(align.max(1));
                let id = GlobalId(self.global_vars.len() as u32);
                self.global_vars.push(GlobalVar { name: name.to_string(), ty: decl.ty.clone(), offset, bytes, loc });
                id
            }
        };
        let info = VarInfo { var: VarRef::Global(id), ty: decl.ty, space: Space::Global, is_const: decl.is_const };
        self.scopes.declare(name, Symbol::Var(info));
        Some(())
    }

    /// `extern constant T name;`: the variable another file of a link defines (perhaps later).
    fn extern_constant(&mut self, decl: Declared, name: &str, loc: Loc) -> Option<()> {
        if let Some(Symbol::Var(VarInfo { var: VarRef::Constant(_), ty, .. })) = self.scopes.lookup(name) {
            return if *ty == decl.ty { Some(()) } else { self.err(loc, format!("'{name}' is declared again with another type")) };
        }
        let id = ConstId(self.constants.len() as u32);
        self.constants.push(ConstantVar { name: name.to_string(), ty: decl.ty.clone(), bytes: Vec::new(), loc });
        self.pending_constants.insert(id.0);
        let info = VarInfo { var: VarRef::Constant(id), ty: decl.ty, space: Space::Constant, is_const: true };
        self.scopes.declare(name, Symbol::Var(info));
        Some(())
    }

    /// A9: a `__constant` variable needs a constant initializer; its value becomes bytes.
    pub(super) fn constant_var(&mut self, decl: Declared, init: Option<&Initializer>, name: &str, loc: Loc) -> Option<ConstId> {
        let Some(init) = init else {
            return self.err(loc, format!("__constant variable '{name}' must be initialized with a compile-time constant"));
        };
        if self.contains_pointer(&decl.ty) {
            return self.err(loc, format!("__constant variable '{name}' cannot hold pointers"));
        }
        let size = self.size_of(&decl.ty);
        if size > self.target.max_constant_buffer_size {
            return self.err(
                loc,
                format!("__constant variable '{name}' takes {size} bytes, more than the device limit of {} bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)", self.target.max_constant_buffer_size),
            );
        }
        self.check_half_value(&decl.ty, loc)?;
        let value = self.initializer_value(init, &decl.ty)?;
        let cv = self.eval_expr(&value)?;
        let Some(bytes) = to_bytes(&cv, &decl.ty, &self.types) else {
            return self.err(loc, format!("the initializer of '{name}' is not a compile-time constant"));
        };
        if let Some(Symbol::Var(VarInfo { var: VarRef::Constant(id), ty, .. })) = self.scopes.lookup(name) {
            // The definition of an `extern` declaration met before.
            let (id, same) = (*id, *ty == decl.ty);
            if self.pending_constants.remove(&id.0) {
                if !same {
                    return self.err(loc, format!("'{name}' is defined with another type than its extern declaration"));
                }
                self.constants.get_mut(id.0 as usize)?.bytes = bytes;
                return Some(id);
            }
        }
        let id = ConstId(self.constants.len() as u32);
        self.constants.push(ConstantVar { name: name.to_string(), ty: decl.ty.clone(), bytes, loc });
        let info = VarInfo { var: VarRef::Constant(id), ty: decl.ty, space: Space::Constant, is_const: true };
        self.scopes.declare(name, Symbol::Var(info));
        Some(id)
    }

    fn contains_pointer(&self, ty: &Type) -> bool {
        match ty {
            Type::Pointer { .. } => true,
            Type::Array { elem, .. } => self.contains_pointer(elem),
            Type::Record(id) => {
                self.types.record(*id).is_some_and(|r| r.members.iter().any(|m| self.contains_pointer(&m.ty)))
            }
            _ => false,
        }
    }

    pub(super) fn contains_atomic(&self, ty: &Type) -> bool {
        match ty {
            Type::Atomic(_) => true,
            Type::Array { elem, .. } => self.contains_atomic(elem),
            Type::Record(id) => self.types.record(*id).is_some_and(|r| r.members.iter().any(|m| self.contains_atomic(&m.ty))),
            _ => false,
        }
    }

    /// `int a[] = {1, 2, 3}`: the array's length from its initializer.
    pub(super) fn sized_by_initializer(&mut self, ty: &Type, init: &Initializer) -> Option<Type> {
        let Type::Array { elem, .. } = ty else { return Some(ty.clone()) };
        if let Some(text) = string_initializer(init).filter(|_| is_char(elem)) {
            let len = u32::try_from(text.len() + 1).ok()?;
            return Some(Type::Array { elem: elem.clone(), len });
        }
        let Initializer::List(items, loc) = init else {
            return self.err(init_loc(init), "an array needs a braced initializer list");
        };
        let mut next = 0u32;
        let mut len = 0u32;
        for (designators, _) in items {
            if let Some(ast::Designator::Index(e)) = designators.first() {
                let i = self.const_int(e)?;
                let Some(i) = u32::try_from(i).ok().filter(|&i| i < u32::MAX) else {
                    return self.err(e.loc, format!("array index {i} in the initializer is out of range"));
                };
                next = i;
            }
            next += 1;
            len = len.max(next);
        }
        if len == 0 {
            return self.err(*loc, "an array cannot be empty");
        }
        let ty = Type::Array { elem: elem.clone(), len };
        if !is_aggregate(elem) || items.iter().all(|(_, i)| matches!(i, Initializer::List(..)) || string_initializer(i).is_some()) {
            return Some(ty);
        }
        // Elements whose braces are left out take several items each: `len` (one element per
        // item) is an upper bound, the last element filled gives the length.
        let (values, _) = self.list_parts(items, &mut 0, &ty, *loc, Entry::Braces)?;
        let len = values.iter().rposition(Option::is_some).map_or(1, |i| i + 1);
        Some(Type::Array { elem: elem.clone(), len: len as u32 })
    }

    /// A char array initialized by a string literal: its bytes, then zeros (the NUL is left
    /// out when the array is exactly as long as the text, as C allows).
    fn char_array_value(&mut self, text: &str, elem: &Type, len: u32, loc: Loc) -> Option<Expr> {
        if text.len() > len as usize {
            return self.err(loc, format!("initializer string of {} bytes is too long for an array of {len}", text.len()));
        }
        if len > MAX_INIT_ELEMENTS {
            return self.err(loc, format!("initializers for arrays of more than {MAX_INIT_ELEMENTS} elements are not supported"));
        }
        let s = elem.scalar()?;
        let byte = |b: u8| Expr { kind: ExprKind::Int(int_bits(i128::from(b), s)), ty: elem.clone(), loc };
        let bytes = text.bytes().chain(std::iter::repeat(0)).take(len as usize);
        let ty = Type::Array { elem: Box::new(elem.clone()), len };
        Some(Expr { kind: ExprKind::Aggregate(bytes.map(byte).collect()), ty, loc })
    }

    /// The value of an initializer for an object of type `ty`: an expression converted to
    /// `ty`, or for braces a complete aggregate/vector with omitted parts zero.
    pub(super) fn initializer_value(&mut self, init: &Initializer, ty: &Type) -> Option<Expr> {
        if let (Type::Array { elem, len }, Some(text)) = (ty, string_initializer(init)) {
            if is_char(elem) {
                return self.char_array_value(text, elem, *len, init_loc(init));
            }
        }
        let (items, loc) = match init {
            Initializer::Expr(e) => {
                let v = self.expr(e)?;
                return self.init_convert(v, ty);
            }
            Initializer::List(items, loc) => (items, *loc),
        };
        if !is_aggregate(ty) {
            return match items.as_slice() {
                [(d, single)] if d.is_empty() => self.initializer_value(single, ty),
                _ => self.err(loc, format!("too many initializers for '{}'", self.type_str(ty))),
            };
        }
        let mut pos = 0;
        self.list_value(items, &mut pos, ty, loc, Entry::Braces)
    }

    /// The value of aggregate `ty` initialized from `items[*pos..]`, which `entry` says how it
    /// was entered: its own braces (all their items), or with its braces left out (C's brace
    /// elision: from its first item, already evaluated, as many items as it takes, until a
    /// designator), or by a designator through it (`.real` of an anonymous member: from that
    /// member on, the earlier value of the aggregate kept). Omitted parts are zero.
    fn list_value(&mut self, items: &[InitItem], pos: &mut usize, ty: &Type, loc: Loc, entry: Entry) -> Option<Expr> {
        let (values, slots) = self.list_parts(items, pos, ty, loc, entry)?;
        let parts = values.into_iter().zip(&slots).map(|(v, t)| v.unwrap_or(Expr { kind: ExprKind::Zero, ty: t.clone(), loc }));
        let kind = if matches!(ty, Type::Vector(..)) { ExprKind::Vector(parts.collect()) } else { ExprKind::Aggregate(parts.collect()) };
        Some(Expr { kind, ty: ty.clone(), loc })
    }

    /// The parts [`Sema::list_value`] fills (`None` where omitted), and the slots.
    fn list_parts(&mut self, items: &[InitItem], pos: &mut usize, ty: &Type, loc: Loc, entry: Entry) -> Option<(Vec<Option<Expr>>, Vec<Type>)> {
        if let Type::Array { len, .. } = ty {
            if *len > MAX_INIT_ELEMENTS {
                return self.err(loc, format!("initializer lists for arrays of more than {MAX_INIT_ELEMENTS} elements are not supported"));
            }
        }
        let slots = self.init_slots(ty);
        let (braced, mut first, prior, path) = match entry {
            Entry::Braces => (true, None, None, &[][..]),
            Entry::Elided(value) => (false, Some(value), None, &[][..]),
            Entry::Designated { path, prior } => (false, None, prior, path),
        };
        // A value given whole before (not part by part) is replaced whole.
        let mut values: Vec<Option<Expr>> = match prior.map(|e| e.kind) {
            Some(ExprKind::Aggregate(parts) | ExprKind::Vector(parts)) if parts.len() == slots.len() => {
                parts.into_iter().map(Some).collect()
            }
            _ => vec![None; slots.len()],
        };
        // A union holds one member: a designator chooses it, and no item may follow.
        let is_union = matches!(ty, Type::Record(id) if self.types.record(*id).is_some_and(|r| r.is_union));
        let choose = |values: &mut Vec<Option<Expr>>, at: usize| {
            if is_union {
                let kept = values[at].take();
                values.iter_mut().for_each(|v| *v = None);
                values[at] = kept;
            }
        };
        let full = |next: usize, values: &[Option<Expr>]| if is_union { values.iter().any(Option::is_some) } else { next >= slots.len() };
        let entered_at = *pos;
        let mut next = 0;
        if let [at, rest @ ..] = path {
            next = *at;
            choose(&mut values, next);
            if !rest.is_empty() {
                values[next] = Some(self.designated_value(items, pos, &slots[next], loc, rest, values[next].take())?);
                next += 1;
            }
        }
        while let Some((designators, item)) = items.get(*pos) {
            // An entered aggregate's first item was designated for it by the enclosing list,
            // and is always its own.
            let entering = !braced && *pos == entered_at;
            match Some(designators).filter(|d| !d.is_empty() && !entering) {
                Some(_) if !braced => break,
                Some(d) => {
                    let steps = self.designated_path(d, ty)?;
                    let [at, rest @ ..] = steps.as_slice() else { return None };
                    next = *at;
                    choose(&mut values, next);
                    if !rest.is_empty() {
                        values[next] = Some(self.designated_value(items, pos, &slots[next], loc, rest, values[next].take())?);
                        next += 1;
                        continue;
                    }
                }
                None if entering || !full(next, &values) => {}
                None if braced => {
                    return self.err(init_loc(item), format!("too many initializers for '{}'", self.type_str(ty)));
                }
                None => break,
            }
            let Some(slot_ty) = slots.get(next) else {
                return self.err(init_loc(item), format!("too many initializers for '{}'", self.type_str(ty)));
            };
            values[next] = Some(self.element_value(items, pos, &slot_ty.clone(), loc, first.take())?);
            next += 1;
        }
        Some((values, slots))
    }

    fn designated_value(&mut self, items: &[InitItem], pos: &mut usize, ty: &Type, loc: Loc, path: &[usize], prior: Option<Expr>) -> Option<Expr> {
        self.list_value(items, pos, ty, loc, Entry::Designated { path, prior })
    }

    /// One element or member of type `ty` from `items[*pos]` (`pending`: its value, already
    /// evaluated) and, when that is an expression that does not initialize an aggregate `ty`
    /// whole, from the items after it (brace elision).
    fn element_value(&mut self, items: &[InitItem], pos: &mut usize, ty: &Type, loc: Loc, pending: Option<Expr>) -> Option<Expr> {
        let (_, item) = items.get(*pos)?;
        let string_into_array = matches!(ty, Type::Array { elem, .. } if is_char(elem)) && string_initializer(item).is_some();
        let value = match (pending, item) {
            (Some(v), _) => v,
            (None, Initializer::Expr(e)) if is_aggregate(ty) && !string_into_array => self.expr(e)?,
            (None, _) => {
                *pos += 1;
                return self.initializer_value(item, ty);
            }
        };
        if is_aggregate(ty) && value.ty != *ty {
            return self.list_value(items, pos, ty, loc, Entry::Elided(value));
        }
        *pos += 1;
        self.init_convert(value, ty)
    }

    /// `value` converted to the type of the object it initializes: an atomic object takes
    /// a value of its scalar type (`ATOMIC_VAR_INIT(v)` is `(v)`).
    fn init_convert(&mut self, value: Expr, ty: &Type) -> Option<Expr> {
        match ty {
            Type::Atomic(s) => self.assign_convert(value, &Type::Scalar(*s), "an initialization"),
            _ => self.assign_convert(value, ty, "an initialization"),
        }
    }

    /// The types of the parts an initializer list fills: elements, members or vector
    /// components.
    fn init_slots(&self, ty: &Type) -> Vec<Type> {
        let count = match ty {
            Type::Array { len, .. } => *len as usize,
            Type::Vector(_, n) => usize::from(*n),
            Type::Record(id) => self.types.record(*id).map_or(0, |r| r.members.len()),
            _ => 0,
        };
        (0..count).filter_map(|i| self.slot_type(ty, i)).collect()
    }

    /// The slots designators (`.s.b[1]`) lead to inside an aggregate of type `ty`: indices, and
    /// members through anonymous members.
    fn designated_path(&mut self, designators: &[ast::Designator], ty: &Type) -> Option<Vec<usize>> {
        let mut path = Vec::new();
        let mut ty = ty.clone();
        for d in designators {
            let (steps, loc) = match (d, &ty) {
                (ast::Designator::Member(name, loc), Type::Record(id)) => match self.types.member_path(*id, name) {
                    Some(p) => (p.into_iter().map(|i| i as usize).collect::<Vec<_>>(), *loc),
                    None => return self.err(*loc, format!("no member named '{name}' to initialize")),
                },
                (ast::Designator::Index(e), Type::Array { .. } | Type::Vector(..)) => {
                    let i = self.const_int(e)?;
                    match usize::try_from(i) {
                        Ok(i) => (vec![i], e.loc),
                        Err(_) => return self.err(e.loc, format!("array index {i} is out of bounds in the initializer")),
                    }
                }
                (ast::Designator::Member(name, loc), t) => {
                    return self.err(*loc, format!("member designator '.{name}' for a value of type '{}'", self.type_str(t)))
                }
                (ast::Designator::Index(e), t) => {
                    return self.err(e.loc, format!("array designator for a value of type '{}'", self.type_str(t)))
                }
            };
            for step in steps {
                let Some(t) = self.slot_type(&ty, step) else {
                    return self.err(loc, format!("array index {step} is out of bounds in the initializer"));
                };
                ty = t;
                path.push(step);
            }
        }
        Some(path)
    }

    /// The type of slot `i` of what an initializer list of type `ty` fills, if there is one.
    fn slot_type(&self, ty: &Type, i: usize) -> Option<Type> {
        match ty {
            Type::Array { elem, len } => (i < *len as usize).then(|| (**elem).clone()),
            Type::Vector(s, n) => (i < usize::from(*n)).then_some(Type::Scalar(*s)),
            Type::Record(id) => self.types.record(*id)?.members.get(i).map(|m| m.ty.clone()),
            _ => None,
        }
    }

    /// The signature of a function declarator, checked (A3, A4, A13, kernel rules).
    fn signature(&mut self, spec: &ast::DeclSpec, declarator: &ast::Declarator) -> Option<Signature> {
        let (name, loc) = declarator.name.clone()?;
        let Some(Derived::Function(params, _)) = declarator.derived.first() else { return None };
        let is_kernel = spec.storage.kernel.is_some();
        let base = self.spec_type(spec)?;
        let ret = self.declared(spec, base, declarator, true)?;
        if let Some((space, at)) = ret.space {
            // A13: only the pointee of a returned pointer may be qualified.
            return self.err(
                at,
                format!("the return type of '{name}' cannot be qualified with {}; only the pointee of a returned pointer can", space_name(space)),
            );
        }
        if is_kernel && ret.ty != Type::Void {
            return self.err(loc, format!("kernel function '{name}' must return void"));
        }
        if matches!(ret.ty, Type::Array { .. }) {
            return self.err(loc, format!("function '{name}' cannot return an array"));
        }
        self.check_not_opaque(&ret.ty, &format!("function '{name}' returning"), loc)?;
        let mut out = Vec::new();
        for p in params {
            let base = self.spec_type(&p.spec)?;
            let mut d = self.declared(&p.spec, base, &p.declarator, false)?;
            // An array parameter is a pointer to its element, in the space written on it.
            if let Type::Array { elem, .. } = &d.ty {
                let space = d.space.take().map_or(Space::Private, |s| s.0);
                let quals = super::model::Quals { is_const: d.is_const, is_volatile: false };
                d.ty = Type::Pointer { pointee: elem.clone(), space, quals };
                d.is_const = false;
            }
            self.check_param(&name, is_kernel, &d, p)?;
            out.push((d, reflected_type_name(&p.spec, &p.declarator), p.loc));
        }
        Some(Signature { name, ret: ret.ty, params: out, is_kernel, loc })
    }

    fn check_param(&mut self, func: &str, is_kernel: bool, d: &Declared, p: &ast::ParamDecl) -> Option<()> {
        let pname = d.name.as_ref().map_or("<unnamed>", |n| n.0.as_str()).to_string();
        let loc = d.name.as_ref().map_or(p.loc, |n| n.1);
        if let Some((space, at)) = d.space.filter(|s| s.0 != Space::Private) {
            return self.err(
                at,
                format!("parameter '{pname}' cannot be declared in the {} address space: function parameters are __private (qualify the pointee instead)", space_name(space)),
            );
        }
        if d.ty == Type::Void {
            return self.err(loc, format!("parameter '{pname}' has type 'void'"));
        }
        if !is_kernel {
            return Some(());
        }
        match &d.ty {
            Type::Pointer { pointee, space, .. } => {
                if matches!(space, Space::Private | Space::Generic) {
                    let how = match (p.spec.quals.space.is_none(), space) {
                        (true, Space::Generic) => " (an unqualified pointer points to the generic address space)",
                        (true, _) => " (an unqualified pointer points to __private)",
                        _ => "",
                    };
                    return self.err(
                        loc,
                        format!("kernel '{func}': pointer argument '{pname}' must point to __global, __local or __constant memory, not {}{how}", space_name(*space)),
                    );
                }
                // OpenCL C 2.0 lifted the rule; a pointer to records holding pointers (a linked
                // list in shared virtual memory) was never refused, as clang does not.
                if pointee.is_pointer() && !self.is_cl2() {
                    return self.err(loc, format!("kernel '{func}': argument '{pname}' cannot point to pointers before OpenCL C 2.0"));
                }
            }
            t => {
                if let TypeSpec::Builtin(n) = &p.spec.ty {
                    if matches!(n.as_str(), "size_t" | "ptrdiff_t" | "intptr_t" | "uintptr_t" | "bool") {
                        return self.err(loc, format!("kernel '{func}': argument '{pname}' cannot have type '{n}'"));
                    }
                }
                if t.element() == Some(Scalar::Bool) {
                    return self.err(loc, format!("kernel '{func}': argument '{pname}' cannot have type 'bool'"));
                }
                if self.contains_pointer(t) {
                    return self.err(loc, format!("kernel '{func}': argument '{pname}' is a struct containing pointers"));
                }
                self.check_half_value(t, loc)?;
            }
        }
        Some(())
    }

    /// Declares (or re-declares, checking it matches) a function; returns its index.
    fn declare_function(&mut self, spec: &ast::DeclSpec, declarator: &ast::Declarator) -> Option<(usize, Signature)> {
        let sig = self.signature(spec, declarator)?;
        let params: Vec<Type> = sig.params.iter().map(|p| p.0.ty.clone()).collect();
        if let Some(Symbol::Function(i)) = self.scopes.lookup(&sig.name).cloned() {
            let e = self.funcs.get(i)?;
            if e.ret != sig.ret || e.params != params || e.is_kernel != sig.is_kernel {
                return self.err(sig.loc, format!("conflicting declaration of function '{}'", sig.name));
            }
            return Some((i, sig));
        }
        if self.scopes.lookup(&sig.name).is_some() {
            return self.err(sig.loc, format!("'{}' is already declared", sig.name));
        }
        let entry = FuncEntry { name: sig.name.clone(), ret: sig.ret.clone(), params, is_kernel: sig.is_kernel, body: None };
        self.funcs.push(entry);
        let index = self.funcs.len() - 1;
        self.scopes.declare_global(&sig.name, Symbol::Function(index));
        Some((index, sig))
    }

    fn function_def(&mut self, f: &ast::FunctionDef) -> Option<()> {
        let (index, sig) = self.declare_function(&f.spec, &f.declarator)?;
        if self.funcs.get(index)?.body.is_some() {
            return self.err(sig.loc, format!("redefinition of function '{}'", sig.name));
        }
        let kind = if sig.is_kernel {
            let mut attrs = f.spec.attrs.clone();
            attrs.extend(f.declarator.attrs.iter().cloned());
            FunctionKind::Kernel(self.kernel_attributes(&attrs)?)
        } else {
            FunctionKind::Helper
        };
        self.scopes.push();
        self.cur = Some(FnCtx {
            entry: index,
            is_kernel: sig.is_kernel,
            ret: sig.ret.clone(),
            locals: vec![],
            own_constants: vec![],
            workgroup_vars: vec![],
            breakables: vec![],
            body_depth: self.scopes.depth(),
            labels: vec![],
            switches: vec![],
        });
        let mut params = Vec::new();
        for (d, type_name, ploc) in sig.params {
            let name = d.name.as_ref().map_or(String::new(), |n| n.0.clone());
            let local = self.add_local(&name, d.ty.clone(), ploc)?;
            if !name.is_empty() {
                let info = VarInfo { var: VarRef::Local(local), ty: d.ty.clone(), space: Space::Private, is_const: d.is_const };
                self.scopes.declare(&name, Symbol::Var(info));
            }
            params.push(Param { local, type_name, is_restrict: d.is_restrict, is_const: d.is_const });
        }
        let body = self.body(&f.body);
        let body = self.eliminate_gotos(body)?;
        self.scopes.pop();
        if sig.ret != Type::Void && !always_returns(&body) {
            self.diags.warning(sig.loc, format!("control may reach the end of non-void function '{}'", sig.name));
        }
        let ctx = self.cur.take()?;
        let function = Function {
            name: sig.name,
            kind,
            params,
            ret: sig.ret,
            locals: ctx.locals,
            body,
            own_constants: ctx.own_constants,
            workgroup_vars: ctx.workgroup_vars,
            packs_constants: false,
            inlined_size: 0,
            loc: sig.loc,
        };
        self.funcs.get_mut(index)?.body = Some(function);
        Some(())
    }

    /// `reqd_work_group_size`, `work_group_size_hint`, `vec_type_hint`; others are ignored.
    fn kernel_attributes(&mut self, attrs: &[ast::Attribute]) -> Option<KernelAttributes> {
        let mut out = KernelAttributes::default();
        for a in attrs {
            match a.name.as_str() {
                "reqd_work_group_size" | "work_group_size_hint" => {
                    let size = self.three_sizes(a)?;
                    if a.name == "reqd_work_group_size" {
                        self.check_work_group_size(size, a.loc)?;
                        out.reqd_work_group_size = Some(size);
                    } else {
                        out.work_group_size_hint = Some(size);
                    }
                }
                "vec_type_hint" => {
                    let Some(ast::AttrArg::Type(t)) = a.args.first() else {
                        return self.err(a.loc, "vec_type_hint needs a type argument");
                    };
                    let ty = self.type_name(t)?;
                    if !ty.is_arithmetic() {
                        return self.err(a.loc, "vec_type_hint needs a scalar or vector type");
                    }
                    out.vec_type_hint = Some(self.type_str(&ty));
                }
                _ => {}
            }
        }
        Some(out)
    }

    fn three_sizes(&mut self, a: &ast::Attribute) -> Option<[u32; 3]> {
        if a.args.len() != 3 {
            return self.err(a.loc, format!("'{}' needs three arguments", a.name));
        }
        let mut size = [0u32; 3];
        for (slot, arg) in size.iter_mut().zip(&a.args) {
            let ast::AttrArg::Expr(e) = arg else { return self.err(a.loc, "expected an integer constant") };
            let v = self.const_int(e)?;
            *slot = match u32::try_from(v) {
                Ok(v) if v > 0 => v,
                _ => return self.err(e.loc, format!("'{}' sizes must be positive, not {v}", a.name)),
            };
        }
        Some(size)
    }

    fn check_work_group_size(&mut self, size: [u32; 3], loc: Loc) -> Option<()> {
        let total: u64 = size.iter().map(|&s| u64::from(s)).product();
        if total > u64::from(self.target.max_work_group_size) {
            return self.err(loc, format!("reqd_work_group_size has {total} work-items, more than the device's maximum work-group size {}", self.target.max_work_group_size));
        }
        for (d, (&s, &max)) in size.iter().zip(&self.target.max_work_item_sizes).enumerate() {
            if s > max {
                return self.err(loc, format!("reqd_work_group_size dimension {d} is {s}, more than the device's maximum {max}"));
            }
        }
        Some(())
    }

    /// The program, once every function is analysed: undefined callees, recursion, order
    /// (callees first) and the per-kernel constant limits (A10).
    pub(super) fn finish(&mut self) -> Option<Program> {
        let calls = self.call_graph();
        let order = self.call_order(&calls)?;
        let mut new_id = vec![0u32; self.funcs.len()];
        for (new, &old) in order.iter().enumerate() {
            new_id[old] = new as u32;
        }
        let mut functions: Vec<Function> = Vec::new();
        for &old in &order {
            let mut f = self.funcs.get_mut(old)?.body.take()?;
            let mut size = 0u64;
            visit::walk_mut(&mut f.body, &mut |n| {
                size = size.saturating_add(1);
                if let visit::Node::Expr(Expr { kind: ExprKind::Call(id, _), .. }) = n {
                    id.0 = new_id.get(id.0 as usize).copied().unwrap_or(id.0);
                    // Callees come first, so each one's size is known.
                    size = size.saturating_add(functions.get(id.0 as usize).map_or(0, |c| c.inlined_size));
                }
            });
            f.inlined_size = size;
            functions.push(f);
        }
        for w in &mut self.workgroup_vars {
            w.kernel = FuncId(new_id.get(w.kernel.0 as usize).copied().unwrap_or(0));
        }
        let mut program = Program {
            types: self.types.clone(),
            constants: std::mem::take(&mut self.constants),
            workgroup_vars: std::mem::take(&mut self.workgroup_vars),
            global_vars: std::mem::take(&mut self.global_vars),
            functions,
            printf: std::mem::take(&mut self.printf),
        };
        self.check_constant_limits(&mut program)?;
        for v in program.global_vars.iter().filter(|v| v.bytes.is_none()) {
            self.diags.error(v.loc, format!("'{}' is declared extern but never defined", v.name));
        }
        for c in self.pending_constants.iter().filter_map(|&id| program.constants.get(id as usize)) {
            self.diags.error(c.loc, format!("'{}' is declared extern but never defined", c.name));
        }
        let undefined = program.global_vars.iter().any(|v| v.bytes.is_none()) || !self.pending_constants.is_empty();
        (!undefined).then_some(program)
    }

    /// For each function, the functions it calls (with a call site), by index.
    fn call_graph(&mut self) -> Vec<Vec<(usize, Loc)>> {
        let mut graph = Vec::new();
        for f in &mut self.funcs {
            let mut calls = Vec::new();
            if let Some(body) = f.body.as_mut() {
                visit::exprs_mut(&mut body.body, &mut |e| {
                    if let ExprKind::Call(id, _) = &e.kind {
                        calls.push((id.0 as usize, e.loc));
                    }
                });
            }
            graph.push(calls);
        }
        graph
    }

    /// Defined functions in an order where callees come first; reports calls to functions
    /// without a body, to kernels, and recursion.
    fn call_order(&mut self, calls: &[Vec<(usize, Loc)>]) -> Option<Vec<usize>> {
        let mut ok = true;
        for site in calls.iter().flatten() {
            let callee = self.funcs.get(site.0)?;
            let name = callee.name.clone();
            if callee.body.is_none() {
                ok &= self.err::<()>(site.1, format!("function '{name}' is declared but never defined")).is_some();
            }
        }
        // Depth-first post-order with an explicit stack (no recursion on user input).
        let n = self.funcs.len();
        let mut state = vec![0u8; n]; // 0 new, 1 on the stack, 2 done
        let mut order = Vec::new();
        for root in 0..n {
            if state[root] != 0 || self.funcs[root].body.is_none() {
                continue;
            }
            let mut stack = vec![(root, 0usize)];
            state[root] = 1;
            while let Some((f, next)) = stack.pop() {
                let edges = calls.get(f).map_or(&[][..], Vec::as_slice);
                if let Some(&(callee, site)) = edges.get(next) {
                    stack.push((f, next + 1));
                    match state.get(callee) {
                        Some(0) if self.funcs[callee].body.is_some() => {
                            state[callee] = 1;
                            stack.push((callee, 0));
                        }
                        Some(1) => {
                            let (caller, name) = (self.funcs[f].name.clone(), self.funcs[callee].name.clone());
                            let how = if caller == name { format!("'{name}' calls itself") } else { format!("'{caller}' calls '{name}', which is on the call chain") };
                            ok &= self.err::<()>(site, format!("recursion is not supported in OpenCL C: {how}")).is_some();
                        }
                        _ => {}
                    }
                } else {
                    state[f] = 2;
                    order.push(f);
                }
            }
        }
        ok.then_some(order)
    }

    /// A10: per kernel, the `__constant` pointer arguments it reads plus the `__constant`
    /// variables it uses (directly or through callees) count against `max_constant_args`
    /// (an argument never read is never bound); their total size against
    /// `max_constant_buffer_size`. A kernel whose variables would pass the count packs them
    /// into one buffer, which counts once.
    fn check_constant_limits(&mut self, p: &mut Program) -> Option<()> {
        let mut uses: Vec<BTreeSet<u32>> = Vec::new();
        let mut reads: Vec<BTreeSet<u32>> = Vec::new();
        for f in &p.functions {
            let mut body = f.body.clone();
            let (mut c, mut k, mut locals) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
            visit::exprs_mut(&mut body, &mut |e| match &e.kind {
                ExprKind::Load(pl) | ExprKind::AddrOf(pl) | ExprKind::Decay(pl) => match visit::place_root(pl) {
                    Some(PlaceKind::Constant(id)) => {
                        c.insert(id.0);
                    }
                    Some(PlaceKind::Local(id)) => {
                        locals.insert(id.0);
                    }
                    _ => {}
                },
                ExprKind::Call(id, _) => {
                    k.insert(id.0);
                }
                _ => {}
            });
            // Callees come first, so their sets are complete.
            for callee in &k {
                if let Some(s) = uses.get(*callee as usize) {
                    c.extend(s.iter().copied());
                }
            }
            uses.push(c);
            reads.push(locals);
        }
        let mut ok = true;
        let limit = self.target.max_constant_args as usize;
        for (i, f) in p.functions.iter_mut().enumerate().filter(|(_, f)| f.is_kernel()) {
            let read = reads.get(i).cloned().unwrap_or_default();
            let args = f.params.iter().filter(|prm| {
                read.contains(&prm.local.0)
                    && matches!(f.locals.get(prm.local.0 as usize).map(|l| &l.ty), Some(Type::Pointer { space: Space::Constant, .. }))
            });
            let used = uses.get(i).cloned().unwrap_or_default();
            let args = args.count();
            f.packs_constants = args + used.len() > limit && used.len() > 1;
            let count = args + if f.packs_constants { 1 } else { used.len() };
            if count > limit {
                ok &= self.err::<()>(
                    f.loc,
                    format!(
                        "kernel '{}' uses {count} constant arguments (__constant pointer arguments and __constant variables), more than the device limit of {} (CL_DEVICE_MAX_CONSTANT_ARGS)",
                        f.name, self.target.max_constant_args
                    ),
                ).is_some();
            }
            let size: u64 = used.iter().filter_map(|c| p.constants.get(*c as usize)).map(|c| c.bytes.len() as u64).sum();
            if size > self.target.max_constant_buffer_size {
                ok &= self.err::<()>(
                    f.loc,
                    format!(
                        "kernel '{}' uses {size} bytes of __constant data, more than the device limit of {} bytes (CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE)",
                        f.name, self.target.max_constant_buffer_size
                    ),
                ).is_some();
            }
        }
        ok.then_some(())
    }
}

/// Whether a statement list ends in a `return` on every path (a conservative check).
fn always_returns(stmts: &[super::model::Stmt]) -> bool {
    // What follows a statement that always returns is never reached (`return x; ;`).
    stmts.iter().any(returns)
}

fn returns(stmt: &super::model::Stmt) -> bool {
    use super::model::Stmt;
    match stmt {
        Stmt::Return(_) => true,
        Stmt::Block(b) => always_returns(b),
        Stmt::If { then, otherwise: Some(o), .. } => returns(then) && returns(o),
        _ => false,
    }
}

/// The string literal initializing a char array: `"abc"` or `{ "abc" }`.
fn string_initializer(init: &Initializer) -> Option<&str> {
    match init {
        Initializer::Expr(ast::Expr { kind: ast::ExprKind::Str(text), .. }) => Some(text),
        Initializer::List(items, _) => match items.as_slice() {
            [(d, single)] if d.is_empty() => string_initializer(single),
            _ => None,
        },
        Initializer::Expr(_) => None,
    }
}

/// Types whose initializer lists may leave out their braces (C's aggregates, and vectors as
/// clang treats them).
fn is_aggregate(ty: &Type) -> bool {
    matches!(ty, Type::Array { .. } | Type::Record(_) | Type::Vector(..))
}

fn is_char(ty: &Type) -> bool {
    matches!(ty, Type::Scalar(Scalar::Char | Scalar::UChar))
}

fn init_loc(init: &Initializer) -> Loc {
    match init {
        Initializer::Expr(e) => e.loc,
        Initializer::List(_, loc) => *loc,
    }
}
