//! Declarations: specifiers, declarators (C's inside-out syntax), attributes, initializers,
//! struct/union/enum definitions, function definitions.

use super::ast::*;
use super::{address_space, is_reserved_space_name, PResult, Parser, Reported};
use crate::compiler::token::TokenKind;

/// Spellings of the scalar types that are identifiers rather than C keywords.
const SCALAR_NAMES: [&str; 11] =
    ["uchar", "ushort", "uint", "ulong", "char", "short", "int", "long", "half", "float", "double"];

/// Built-in type names that are not C keywords (checked when an identifier may start a type).
pub fn is_builtin_type_name(name: &str) -> bool {
    const OTHER: [&str; 17] = [
        "size_t", "ptrdiff_t", "intptr_t", "uintptr_t", "uchar", "ushort", "uint", "ulong",
        "sampler_t", "event_t", "image1d_t", "image1d_buffer_t", "image1d_array_t", "image2d_t",
        "image2d_array_t", "image3d_t",
        "cl_mem_fence_flags",
    ];
    OTHER.contains(&name) || vector_name_parts(name).is_some()
}

/// `float4` → `("float", 4)` for the vector widths OpenCL C has.
pub fn vector_name_parts(name: &str) -> Option<(&str, u8)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (base, n) = name.split_at(name.len() - digits);
    let n: u8 = n.parse().ok()?;
    (SCALAR_NAMES.contains(&base) && matches!(n, 2 | 3 | 4 | 8 | 16)).then_some((base, n))
}

/// Most pointer/array levels in one declarator (types stay shallow for later recursion).
const MAX_DERIVED: usize = 16;

/// Keywords that build a type from parts (`unsigned long int`).
const TYPE_KEYWORDS: [&str; 11] =
    ["void", "bool", "_Bool", "char", "short", "int", "long", "float", "double", "half", "signed"];

/// Accumulates `unsigned`, `long`, ... until the specifiers end.
#[derive(Default)]
struct TypeWords {
    unsigned: bool,
    signed: bool,
    shorts: u32,
    longs: u32,
    base: Option<String>,
}

impl TypeWords {
    fn is_empty(&self) -> bool {
        !self.unsigned && !self.signed && self.shorts == 0 && self.longs == 0 && self.base.is_none()
    }

    /// The OpenCL C name of the combination, or why it is invalid.
    fn resolve(&self) -> Result<String, String> {
        let base = self.base.as_deref();
        let size = match (self.shorts, self.longs, base) {
            (0, 0, Some(b)) => b,
            (0, 0, None) => "int",
            (1, 0, None | Some("int")) => "short",
            (0, 1, None | Some("int")) => "long",
            (0, 2.., _) => return Err("'long long' is reserved in OpenCL C".into()),
            _ => return Err("invalid combination of type specifiers".into()),
        };
        let integral = matches!(size, "char" | "short" | "int" | "long");
        if (self.unsigned || self.signed) && !integral {
            return Err(format!("'{size}' cannot be signed or unsigned"));
        }
        Ok(if self.unsigned { format!("u{size}") } else { size.to_string() })
    }
}

impl Parser<'_> {
    /// Whether the current token can start a declaration's specifiers.
    pub(super) fn starts_decl(&self) -> bool {
        self.starts_decl_at(0)
    }

    pub(super) fn starts_decl_at(&self, ahead: usize) -> bool {
        let Some(name) = self.ident_at(ahead) else { return false };
        TYPE_KEYWORDS.contains(&name)
            || is_qualifier_word(name)
            || matches!(
                name,
                "unsigned" | "struct" | "union" | "enum" | "typedef" | "static" | "extern"
                    | "inline" | "__inline" | "kernel" | "__kernel" | "__attribute__"
            )
            || is_builtin_type_name(name)
            || self.is_typedef(name)
    }

    /// A declaration or function definition at file scope (`None` for a stray `;`).
    pub(super) fn external_decl(&mut self) -> PResult<Option<ExternalDecl>> {
        if self.eat_punct(";") {
            return Ok(None);
        }
        let loc = self.loc();
        if !self.starts_decl() {
            let found = self.describe_current();
            return self.error(loc, format!("expected a declaration, found {found}"));
        }
        let spec = self.decl_spec()?;
        if self.eat_punct(";") {
            return Ok(Some(ExternalDecl::Decl(Declaration { spec, declarators: vec![], loc })));
        }
        let declarator = self.declarator(false)?;
        let is_function = matches!(declarator.derived.first(), Some(Derived::Function(..)));
        if is_function && self.is_punct("{") {
            let body = self.function_body(&declarator)?;
            return Ok(Some(ExternalDecl::Function(FunctionDef { spec, declarator, body, loc })));
        }
        let decl = self.declaration_rest(spec, declarator, loc)?;
        Ok(Some(ExternalDecl::Decl(decl)))
    }

    fn function_body(&mut self, declarator: &Declarator) -> PResult<Vec<Stmt>> {
        self.push_scope();
        if let Some(Derived::Function(params, _)) = declarator.derived.first() {
            for name in params.iter().filter_map(|p| p.declarator.name.as_ref()) {
                self.shadow(&name.0);
            }
        }
        let body = self.compound_body();
        self.pop_scope();
        body
    }

    /// A name declared as an object hides a typedef of an outer scope.
    fn shadow(&mut self, name: &str) {
        if self.is_typedef(name) {
            // Only typedefs are tracked; drop it from the innermost scope that has it.
            if let Some(scope) = self.typedefs.iter_mut().rev().find(|s| s.contains(name)) {
                scope.remove(name);
            }
        }
    }

    /// A block-scope or file-scope declaration: specifiers, declarators, `;`.
    pub(super) fn declaration(&mut self) -> PResult<Declaration> {
        let loc = self.loc();
        let spec = self.decl_spec()?;
        if self.eat_punct(";") {
            return Ok(Declaration { spec, declarators: vec![], loc });
        }
        let first = self.declarator(false)?;
        self.declaration_rest(spec, first, loc)
    }

    /// A member declaration. Bit-fields (`int a : 3;`) are refused at their ':' (their layout
    /// and access are not implemented).
    fn member_declaration(&mut self) -> PResult<Declaration> {
        if let Some(at) = self.bit_field_colon() {
            return self.error(at, "bit-field members are not supported");
        }
        self.declaration()
    }

    /// The ':' of a bit-field in the member declaration ahead: one outside brackets before its
    /// ';' (a '?:' in an array size is inside them).
    fn bit_field_colon(&self) -> Option<crate::compiler::source::Loc> {
        let mut depth = 0u32;
        for t in &self.tokens[self.pos..] {
            match &t.kind {
                TokenKind::Punct("(" | "[") => depth += 1,
                TokenKind::Punct(")" | "]") => depth = depth.saturating_sub(1),
                TokenKind::Punct(":") if depth == 0 => return Some(t.loc),
                TokenKind::Punct(";" | "{" | "}") => return None,
                _ => {}
            }
        }
        None
    }

    /// The rest of a declaration once its first declarator is parsed.
    fn declaration_rest(
        &mut self,
        spec: DeclSpec,
        first: Declarator,
        loc: crate::compiler::source::Loc,
    ) -> PResult<Declaration> {
        let mut declarators = Vec::new();
        let mut declarator = first;
        loop {
            if let Some(Derived::Function(..)) = declarator.derived.get(1..).and_then(|d| {
                d.iter().find(|d| matches!(d, Derived::Function(..)))
            }) {
                let at = declarator.loc;
                return self.error(at, "function pointers are not supported in OpenCL C");
            }
            let init = if self.eat_punct("=") { Some(self.initializer()?) } else { None };
            if let Some((name, _)) = &declarator.name {
                if spec.storage.is_typedef {
                    if let Some(scope) = self.typedefs.last_mut() {
                        scope.insert(name.clone());
                    }
                } else {
                    let name = name.clone();
                    self.shadow(&name);
                }
            }
            declarators.push(InitDeclarator { declarator, init });
            if !self.eat_punct(",") {
                break;
            }
            declarator = self.declarator(false)?;
        }
        self.expect_punct(";")?;
        Ok(Declaration { spec, declarators, loc })
    }

    /// Declaration specifiers: type, qualifiers, storage class, `kernel`, access qualifier,
    /// attributes, in any order.
    pub(super) fn decl_spec(&mut self) -> PResult<DeclSpec> {
        let loc = self.loc();
        let mut words = TypeWords::default();
        let mut ty: Option<TypeSpec> = None;
        let mut quals = TypeQuals::default();
        let mut storage = StorageClass::default();
        let mut access = None;
        let mut attrs = Vec::new();
        loop {
            let at = self.loc();
            let Some(name) = self.ident_at(0).map(str::to_owned) else { break };
            if self.qualifier(&name, &mut quals)? {
                continue;
            }
            match name.as_str() {
                "typedef" => storage.is_typedef = true,
                "static" => storage.is_static = true,
                "extern" => storage.is_extern = true,
                "inline" | "__inline" => storage.is_inline = true,
                "kernel" | "__kernel" => storage.kernel = Some(at),
                "read_only" | "__read_only" => access = Some(Access::ReadOnly),
                "write_only" | "__write_only" => access = Some(Access::WriteOnly),
                "read_write" | "__read_write" => access = Some(Access::ReadWrite),
                "__attribute__" => {
                    attrs.extend(self.attributes()?);
                    continue;
                }
                "unsigned" => words.unsigned = true,
                "signed" => words.signed = true,
                "short" => words.shorts += 1,
                "long" => words.longs += 1,
                "struct" | "union" | "enum" if ty.is_none() && words.is_empty() => {
                    self.pos += 1;
                    ty = Some(if name == "enum" {
                        TypeSpec::Enum(self.enum_spec(at)?)
                    } else {
                        TypeSpec::Record(self.record_spec(name == "union", at)?)
                    });
                    continue;
                }
                n if ty.is_none() && words.base.is_none() && is_base_word(n) => {
                    words.base = Some(if n == "_Bool" { "bool".into() } else { n.into() });
                }
                n if ty.is_none() && words.is_empty() && is_builtin_type_name(n) => {
                    ty = Some(TypeSpec::Builtin(n.into()));
                }
                n if ty.is_none() && words.is_empty() && self.is_typedef(n) => {
                    ty = Some(TypeSpec::Typedef(n.into()));
                }
                _ => break,
            }
            self.pos += 1;
        }
        let ty = match ty {
            Some(t) if words.is_empty() => t,
            Some(_) => return self.error(loc, "invalid combination of type specifiers"),
            None if words.is_empty() => {
                return self.error(loc, "a type is required (OpenCL C has no implicit int)")
            }
            None => match words.resolve() {
                Ok(name) => TypeSpec::Builtin(name),
                Err(message) => return self.error(loc, message),
            },
        };
        Ok(DeclSpec { ty, quals, storage, access, attrs, loc })
    }

    /// Consumes a type qualifier into `quals`; `Ok(false)` if the token is none.
    fn qualifier(&mut self, name: &str, quals: &mut TypeQuals) -> PResult<bool> {
        let at = self.loc();
        match name {
            "const" => quals.is_const = true,
            "volatile" => quals.is_volatile = true,
            "restrict" | "__restrict" => quals.is_restrict = true,
            "generic" | "__generic" => {
                self.reserved_as_identifier(name)?;
                quals.generic = Some(at);
            }
            n => match address_space(n) {
                Some(space) => {
                    self.reserved_as_identifier(name)?;
                    if let Some((prev, _)) = quals.space.filter(|(s, _)| *s != space) {
                        self.pos += 1;
                        return self.error(
                            at,
                            format!("conflicting address-space qualifiers ({prev:?} and {space:?})"),
                        );
                    }
                    quals.space = Some((space, at));
                }
                None => return Ok(false),
            },
        }
        self.pos += 1;
        Ok(true)
    }

    /// A2: an address-space keyword directly followed by what ends a declarator is being used
    /// as a name.
    fn reserved_as_identifier(&mut self, name: &str) -> PResult<()> {
        let ends = [";", "=", ",", ")", "[", "("];
        if ends.iter().any(|p| self.is_punct_at(1, p)) {
            let at = self.loc();
            self.pos += 1;
            return self.error(
                at,
                format!("'{name}' is a reserved address-space qualifier and cannot be used as an identifier"),
            );
        }
        Ok(())
    }

    /// `__attribute__((a, b(args)))`, possibly repeated.
    pub(super) fn attributes(&mut self) -> PResult<Vec<Attribute>> {
        let mut attrs = Vec::new();
        while self.is_ident("__attribute__") {
            self.pos += 1;
            self.expect_punct("(")?;
            self.expect_punct("(")?;
            while !self.is_punct(")") {
                let loc = self.loc();
                let Some(name) = self.ident_at(0).map(str::to_owned) else {
                    return self.error(loc, "expected an attribute name");
                };
                self.pos += 1;
                let mut args = Vec::new();
                if self.eat_punct("(") {
                    while !self.eat_punct(")") {
                        args.push(if self.starts_decl() {
                            AttrArg::Type(Box::new(self.type_name()?))
                        } else {
                            AttrArg::Expr(self.assignment_expr()?)
                        });
                        if !self.is_punct(")") {
                            self.expect_punct(",")?;
                        }
                    }
                }
                let name = name.trim_start_matches("__").trim_end_matches("__").to_string();
                attrs.push(Attribute { name, args, loc });
                if !self.eat_punct(",") {
                    break;
                }
            }
            self.expect_punct(")")?;
            self.expect_punct(")")?;
        }
        Ok(attrs)
    }

    fn record_spec(&mut self, is_union: bool, loc: crate::compiler::source::Loc) -> PResult<RecordSpec> {
        let mut attrs = self.attributes()?;
        let tag = self.optional_name();
        let mut members = None;
        if self.eat_punct("{") {
            let mut list = Vec::new();
            while !self.eat_punct("}") {
                if self.at_end() {
                    return self.error(self.loc(), "expected '}' to end the member list");
                }
                match self.nested(|p| p.member_declaration()) {
                    Ok(d) => list.push(d),
                    Err(Reported) => self.recover(),
                }
            }
            members = Some(list);
            attrs.extend(self.attributes()?);
        } else if tag.is_none() {
            return self.error(self.loc(), "expected a struct/union name or '{'");
        }
        Ok(RecordSpec { is_union, tag, members, attrs, loc })
    }

    /// The tag after `struct`/`union`/`enum`, if any.
    fn optional_name(&mut self) -> Option<String> {
        let name = self.ident_at(0).map(str::to_owned);
        if name.is_some() {
            self.pos += 1;
        }
        name
    }

    fn enum_spec(&mut self, loc: crate::compiler::source::Loc) -> PResult<EnumSpec> {
        let tag = self.optional_name();
        let mut variants = None;
        if self.eat_punct("{") {
            let mut list = Vec::new();
            while !self.eat_punct("}") {
                let at = self.loc();
                let Some(name) = self.ident_at(0).map(str::to_owned) else {
                    return self.error(at, "expected an enumerator name");
                };
                self.pos += 1;
                let value = if self.eat_punct("=") { Some(self.conditional_expr()?) } else { None };
                list.push(Enumerator { name, value, loc: at });
                if !self.is_punct("}") {
                    self.expect_punct(",")?;
                }
            }
            variants = Some(list);
        } else if tag.is_none() {
            return self.error(self.loc(), "expected an enum name or '{'");
        }
        Ok(EnumSpec { tag, variants, loc })
    }

    /// A declarator; `abstract_ok` allows it to have no name (type names, parameters).
    pub(super) fn declarator(&mut self, abstract_ok: bool) -> PResult<Declarator> {
        self.nested(|p| p.declarator_inner(abstract_ok))
    }

    fn declarator_inner(&mut self, abstract_ok: bool) -> PResult<Declarator> {
        let loc = self.loc();
        let mut pointers = Vec::new();
        while self.is_punct("*") {
            let at = self.loc();
            self.pos += 1;
            let mut quals = TypeQuals::default();
            while let Some(name) = self.ident_at(0).map(str::to_owned) {
                if name == "__attribute__" {
                    self.attributes()?;
                } else if !self.qualifier(&name, &mut quals)? {
                    break;
                }
            }
            pointers.push(Derived::Pointer(quals, at));
        }
        let grouped = self.is_punct("(")
            && (self.is_punct_at(1, "*")
                || self.is_punct_at(1, "(")
                || (!abstract_ok && self.ident_at(1).is_some() && !self.starts_decl_at(1)));
        let mut result = if grouped {
            self.pos += 1;
            let inner = self.declarator(abstract_ok)?;
            self.expect_punct(")")?;
            Declarator { loc, ..inner }
        } else {
            let name = match self.ident_at(0) {
                Some(n) if !self.starts_decl() => {
                    let n = n.to_owned();
                    let at = self.loc();
                    self.pos += 1;
                    Some((n, at))
                }
                _ if abstract_ok => None,
                _ => {
                    let found = self.describe_current();
                    return self.error(self.loc(), format!("expected an identifier, found {found}"));
                }
            };
            Declarator { name, derived: vec![], attrs: vec![], loc }
        };
        self.declarator_suffixes(&mut result.derived)?;
        result.derived.extend(pointers.into_iter().rev());
        if result.derived.len() > MAX_DERIVED {
            return self.error(loc, format!("declarator too complex (more than {MAX_DERIVED} pointer and array levels)"));
        }
        result.attrs.extend(self.attributes()?);
        Ok(result)
    }

    /// `[size]` and `(params)` after a declarator's name.
    fn declarator_suffixes(&mut self, derived: &mut Vec<Derived>) -> PResult<()> {
        loop {
            let at = self.loc();
            if self.eat_punct("[") {
                let size = if self.is_punct("]") { None } else { Some(Box::new(self.assignment_expr()?)) };
                self.expect_punct("]")?;
                derived.push(Derived::Array(size, at));
            } else if self.eat_punct("(") {
                let params = self.param_list()?;
                derived.push(Derived::Function(params, at));
            } else {
                return Ok(());
            }
        }
    }

    /// Parameters after `(`, through `)`. `(void)` is an empty list.
    fn param_list(&mut self) -> PResult<Vec<ParamDecl>> {
        let mut params = Vec::new();
        if self.is_ident("void") && self.is_punct_at(1, ")") {
            self.pos += 2;
            return Ok(params);
        }
        while !self.eat_punct(")") {
            let loc = self.loc();
            if self.is_punct("...") {
                return self.error(loc, "variadic functions are not supported in OpenCL C");
            }
            if !self.starts_decl() {
                let found = self.describe_current();
                return self.error(loc, format!("expected a parameter declaration, found {found}"));
            }
            let spec = self.decl_spec()?;
            let declarator = self.declarator(true)?;
            params.push(ParamDecl { spec, declarator, loc });
            if !self.is_punct(")") {
                self.expect_punct(",")?;
            }
        }
        Ok(params)
    }

    /// A type without a name: `global float4 *`.
    pub(super) fn type_name(&mut self) -> PResult<TypeName> {
        let spec = self.decl_spec()?;
        let declarator = self.declarator(true)?;
        if let Some((name, loc)) = &declarator.name {
            return self.error(*loc, format!("unexpected name '{name}' in a type name"));
        }
        Ok(TypeName { spec, declarator })
    }

    pub(super) fn initializer(&mut self) -> PResult<Initializer> {
        let loc = self.loc();
        if !self.eat_punct("{") {
            return Ok(Initializer::Expr(self.assignment_expr()?));
        }
        self.nested(|p| {
            let mut items = Vec::new();
            while !p.eat_punct("}") {
                let designators = p.designators()?;
                items.push((designators, p.initializer()?));
                if !p.is_punct("}") {
                    p.expect_punct(",")?;
                }
            }
            Ok(Initializer::List(items, loc))
        })
    }

    /// `.a[2].b =` (C99 designators), or nothing.
    fn designators(&mut self) -> PResult<Vec<Designator>> {
        let mut list = Vec::new();
        loop {
            if self.is_punct(".") {
                let at = self.loc();
                self.pos += 1;
                let Some(name) = self.ident_at(0).map(str::to_owned) else {
                    return self.error(self.loc(), "expected a member name after '.'");
                };
                self.pos += 1;
                list.push(Designator::Member(name, at));
            } else if self.eat_punct("[") {
                let index = self.conditional_expr()?;
                self.expect_punct("]")?;
                list.push(Designator::Index(index));
            } else {
                break;
            }
        }
        if !list.is_empty() {
            self.expect_punct("=")?;
        }
        Ok(list)
    }
}

fn is_base_word(name: &str) -> bool {
    matches!(name, "void" | "bool" | "_Bool" | "char" | "int" | "float" | "double" | "half")
}

fn is_qualifier_word(name: &str) -> bool {
    matches!(
        name,
        "const" | "volatile" | "restrict" | "__restrict" | "read_only" | "__read_only"
            | "write_only" | "__write_only" | "read_write" | "__read_write"
    ) || is_reserved_space_name(name)
}
