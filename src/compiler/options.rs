//! Build options (`clBuildProgram`, `clCompileProgram`, `clLinkProgram`): the option string
//! split like a shell command line and checked against the options each stage accepts.

/// Which call the options were given to: `clBuildProgram` and `clCompileProgram` take the
/// compiler options; `clLinkProgram` takes only the linker options (OpenCL 3.0 §5.8.6, §5.8.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Compile,
    Link,
}

/// `-cl-std=`: the OpenCL C version a program is compiled as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum ClStd {
    Cl10,
    Cl11,
    Cl12,
    Cl30,
}

impl ClStd {
    /// The `__OPENCL_C_VERSION__` value.
    pub fn version(self) -> u32 {
        match self {
            ClStd::Cl10 => 100,
            ClStd::Cl11 => 110,
            ClStd::Cl12 => 120,
            ClStd::Cl30 => 300,
        }
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct BuildOptions {
    /// `-D name` / `-D name=value`, in order; `None` means the value 1.
    pub defines: Vec<(String, Option<String>)>,
    /// `-I dir`, searched in order for `#include`.
    pub include_dirs: Vec<String>,
    /// `None` when no `-cl-std` was given: OpenCL C 1.2 (OpenCL C 3.0 spec §"Version").
    pub cl_std: Option<ClStd>,
    /// `-w`
    pub suppress_warnings: bool,
    /// `-Werror`
    pub warnings_are_errors: bool,
    pub opt_disable: bool,
    pub mad_enable: bool,
    pub fast_relaxed_math: bool,
    pub finite_math_only: bool,
    pub unsafe_math_optimizations: bool,
    pub no_signed_zeros: bool,
    pub denorms_are_zero: bool,
    pub single_precision_constant: bool,
    pub strict_aliasing: bool,
    pub kernel_arg_info: bool,
    pub uniform_work_group_size: bool,
    pub no_subgroup_ifp: bool,
    pub create_library: bool,
    pub enable_link_options: bool,
}

impl BuildOptions {
    /// Parses an option string for `stage`. The error message names the offending option.
    pub fn parse(text: &str, stage: Stage) -> Result<BuildOptions, String> {
        let mut opts = BuildOptions::default();
        let mut words = split_words(text)?.into_iter();
        while let Some(word) = words.next() {
            if stage == Stage::Compile {
                if let Some(rest) = word.strip_prefix("-D") {
                    let def = attached_or_next(rest, &mut words, "-D")?;
                    opts.defines.push(parse_define(&def)?);
                    continue;
                }
                if let Some(rest) = word.strip_prefix("-I") {
                    opts.include_dirs
                        .push(attached_or_next(rest, &mut words, "-I")?);
                    continue;
                }
                if let Some(std) = word.strip_prefix("-cl-std=") {
                    opts.cl_std = Some(parse_std(std)?);
                    continue;
                }
            }
            if !opts.set_flag(&word, stage) {
                let what = if stage == Stage::Link {
                    "linker"
                } else {
                    "compiler"
                };
                return Err(format!("invalid {what} option '{word}'"));
            }
        }
        Ok(opts)
    }

    /// Sets the flag `word` names if `stage` accepts it; `false` if it names none.
    fn set_flag(&mut self, word: &str, stage: Stage) -> bool {
        // Accepted by both stages (the program linking options).
        match word {
            "-cl-denorms-are-zero" => self.denorms_are_zero = true,
            "-cl-no-signed-zeros" => self.no_signed_zeros = true,
            "-cl-unsafe-math-optimizations" => self.set_unsafe_math(),
            "-cl-finite-math-only" => self.finite_math_only = true,
            "-cl-fast-relaxed-math" => {
                self.fast_relaxed_math = true;
                self.finite_math_only = true;
                self.set_unsafe_math();
            }
            "-cl-no-subgroup-ifp" => self.no_subgroup_ifp = true,
            _ => return self.set_stage_flag(word, stage),
        }
        true
    }

    fn set_stage_flag(&mut self, word: &str, stage: Stage) -> bool {
        let flag = match (stage, word) {
            (Stage::Link, "-create-library") => &mut self.create_library,
            (Stage::Link, "-enable-link-options") => &mut self.enable_link_options,
            (Stage::Compile, "-w") => &mut self.suppress_warnings,
            (Stage::Compile, "-Werror") => &mut self.warnings_are_errors,
            (Stage::Compile, "-cl-opt-disable") => &mut self.opt_disable,
            (Stage::Compile, "-cl-mad-enable") => &mut self.mad_enable,
            (Stage::Compile, "-cl-single-precision-constant") => {
                &mut self.single_precision_constant
            }
            (Stage::Compile, "-cl-strict-aliasing") => &mut self.strict_aliasing,
            (Stage::Compile, "-cl-kernel-arg-info") => &mut self.kernel_arg_info,
            (Stage::Compile, "-cl-uniform-work-group-size") => &mut self.uniform_work_group_size,
            _ => return false,
        };
        *flag = true;
        true
    }

    /// `-cl-unsafe-math-optimizations` implies `-cl-no-signed-zeros` and `-cl-mad-enable`.
    fn set_unsafe_math(&mut self) {
        self.unsafe_math_optimizations = true;
        self.no_signed_zeros = true;
        self.mad_enable = true;
    }

    /// The OpenCL C version the program is compiled as (`__OPENCL_C_VERSION__`).
    pub fn c_version(&self) -> u32 {
        self.cl_std.unwrap_or(ClStd::Cl12).version()
    }
}

/// The argument of `-D`/`-I`: attached (`-Dname`) or the next word (`-D name`).
fn attached_or_next(
    attached: &str,
    words: &mut impl Iterator<Item = String>,
    option: &str,
) -> Result<String, String> {
    let arg = if attached.is_empty() {
        words.next()
    } else {
        Some(attached.to_string())
    };
    arg.filter(|a| !a.is_empty())
        .ok_or_else(|| format!("missing argument to '{option}'"))
}

fn parse_define(def: &str) -> Result<(String, Option<String>), String> {
    let (name, value) = match def.split_once('=') {
        Some((name, value)) => (name, Some(value.to_string())),
        None => (def, None),
    };
    // The name may carry a parameter list (`-D'f(x)=x'`); its identifier part must be valid.
    let ident = name.split('(').next().unwrap_or("");
    let valid = ident.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && ident.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("invalid macro name in '-D {def}'"));
    }
    Ok((name.to_string(), value))
}

fn parse_std(std: &str) -> Result<ClStd, String> {
    match std {
        "CL1.0" => Ok(ClStd::Cl10),
        "CL1.1" => Ok(ClStd::Cl11),
        "CL1.2" => Ok(ClStd::Cl12),
        "CL3.0" => Ok(ClStd::Cl30),
        "CL2.0" => Err("'-cl-std=CL2.0': the device does not support OpenCL C 2.0".into()),
        _ => Err(format!("invalid value '{std}' in '-cl-std={std}'")),
    }
}

/// Splits an option string into words like a shell: blanks separate words, `'...'` and
/// `"..."` quote (and are removed), a backslash escapes the next character outside single
/// quotes.
fn split_words(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => words.extend(word.take()),
            '\'' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => w.push(c),
                        None => return Err("unterminated ' in build options".into()),
                    }
                }
            }
            '"' => {
                let w = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(e @ ('"' | '\\')) => w.push(e),
                            Some(e) => {
                                w.push('\\');
                                w.push(e);
                            }
                            None => return Err("unterminated \" in build options".into()),
                        },
                        Some(c) => w.push(c),
                        None => return Err("unterminated \" in build options".into()),
                    }
                }
            }
            '\\' => word.get_or_insert_with(String::new).extend(chars.next()),
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compile(text: &str) -> BuildOptions {
        match BuildOptions::parse(text, Stage::Compile) {
            Ok(o) => o,
            Err(e) => panic!("{text}: {e}"),
        }
    }

    #[test]
    fn defines_and_includes() {
        let o =
            compile(" -D A -DB=2 -D C=x+y  -I /tmp/inc -I\"/my dir\" -D'S=\"a b\"' -DF(x)=x*2 ");
        assert_eq!(
            o.defines,
            vec![
                ("A".to_string(), None),
                ("B".to_string(), Some("2".to_string())),
                ("C".to_string(), Some("x+y".to_string())),
                ("S".to_string(), Some("\"a b\"".to_string())),
                ("F(x)".to_string(), Some("x*2".to_string())),
            ]
        );
        assert_eq!(
            o.include_dirs,
            vec!["/tmp/inc".to_string(), "/my dir".to_string()]
        );
        assert_eq!(
            compile("-DMSG=\"\\\"hi there\\\"\"").defines,
            vec![("MSG".into(), Some("\"hi there\"".into()))]
        );
        // As the CTS and applications write them: quotes group words and are removed.
        assert_eq!(
            compile("-D 'F(x)=((x)*2)' -DNAME=\"a b\"").defines,
            vec![("F(x)".into(), Some("((x)*2)".into())), ("NAME".into(), Some("a b".into()))]
        );
    }

    #[test]
    fn flags_and_implications() {
        let o = compile("-cl-fast-relaxed-math -w -Werror -cl-kernel-arg-info -cl-opt-disable");
        assert!(o.fast_relaxed_math && o.finite_math_only && o.unsafe_math_optimizations);
        assert!(o.no_signed_zeros && o.mad_enable);
        assert!(o.suppress_warnings && o.warnings_are_errors && o.kernel_arg_info && o.opt_disable);
        assert!(!o.denorms_are_zero);
        let all = "-cl-mad-enable -cl-finite-math-only -cl-no-signed-zeros -cl-denorms-are-zero \
                   -cl-single-precision-constant -cl-strict-aliasing -cl-uniform-work-group-size \
                   -cl-no-subgroup-ifp -cl-unsafe-math-optimizations";
        let o = compile(all);
        assert!(o.denorms_are_zero && o.single_precision_constant && o.strict_aliasing);
        assert!(o.uniform_work_group_size && o.no_subgroup_ifp && o.unsafe_math_optimizations);
        assert_eq!(compile(""), BuildOptions::default());
    }

    #[test]
    fn cl_std() {
        assert_eq!(compile("").c_version(), 120);
        assert_eq!(compile("-cl-std=CL1.0").c_version(), 100);
        assert_eq!(compile("-cl-std=CL1.1").c_version(), 110);
        assert_eq!(compile("-cl-std=CL1.2").c_version(), 120);
        assert_eq!(compile("-cl-std=CL3.0").c_version(), 300);
        let err = BuildOptions::parse("-cl-std=CL2.0", Stage::Compile).unwrap_err();
        assert!(err.contains("2.0"), "{err}");
        assert!(BuildOptions::parse("-cl-std=CL4.0", Stage::Compile).is_err());
        assert!(BuildOptions::parse("-cl-std=", Stage::Compile).is_err());
    }

    #[test]
    fn invalid_options() {
        for bad in [
            "-foo",
            "-D",
            "-I",
            "-D 1X",
            "-D=3",
            "-cl-std",
            "-create-library",
            "-DA \"x",
            "'",
            "-O2",
        ] {
            assert!(BuildOptions::parse(bad, Stage::Compile).is_err(), "{bad}");
        }
        let err = BuildOptions::parse("-cl-mad-enable -bogus", Stage::Compile).unwrap_err();
        assert_eq!(err, "invalid compiler option '-bogus'");
    }

    #[test]
    fn link_options() {
        let link = |t| BuildOptions::parse(t, Stage::Link);
        let o =
            link("-create-library -enable-link-options -cl-denorms-are-zero -cl-no-signed-zeros")
                .unwrap();
        assert!(
            o.create_library && o.enable_link_options && o.denorms_are_zero && o.no_signed_zeros
        );
        let o = link("-cl-fast-relaxed-math -cl-no-subgroup-ifp").unwrap();
        assert!(o.fast_relaxed_math && o.unsafe_math_optimizations && o.no_subgroup_ifp);
        assert!(link("-cl-finite-math-only -cl-unsafe-math-optimizations").is_ok());
        for bad in [
            "-DA",
            "-I x",
            "-cl-std=CL1.2",
            "-cl-mad-enable",
            "-w",
            "-cl-kernel-arg-info",
        ] {
            assert_eq!(
                link(bad).unwrap_err(),
                format!("invalid linker option '{}'", bad.split(' ').next().unwrap())
            );
        }
    }
}
