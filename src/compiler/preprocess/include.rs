//! Where `#include` finds its files: the headers given to `clCompileProgram` (by name), then
//! an absolute name as it is, then files on disk in the `-I` directories and, for a quoted
//! name in a file read from disk, in that file's directory. A program's source has no
//! directory of its own.
//!
//! A file on disk is read only if it is a regular file of at most [`MAX_INCLUDE_BYTES`] (an
//! include cannot hang reading a device or a pipe) and, unless the program named it by an
//! absolute path, its canonical path (links and `..` resolved) lies in an `-I` directory or
//! in the directory of the file that includes it: a relative name never reaches other files
//! of the host. An absolute name is read wherever it is, as clang does and the CTS
//! (`test_compiler preprocessor_include`) requires: the build runs in the application's
//! process, which can read that file itself.

use std::fs::File;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The largest file `#include` reads from disk (16 MiB).
pub const MAX_INCLUDE_BYTES: u64 = 16 << 20;

/// Where the quoted includes of a file are looked for after the given headers and the `-I`
/// directories.
#[derive(Clone, Debug)]
pub enum Dir {
    /// Nowhere else: the program source, and the predefined macros.
    None,
    /// Among the given headers, under this directory part of the includer's name (`sub` for
    /// `sub/a.h`).
    Named(String),
    /// On disk, in this canonical directory.
    Disk(PathBuf),
}

/// An included file.
pub struct Found {
    /// Its name as given, or its canonical path on disk.
    pub path: String,
    pub text: String,
    /// Where the quoted includes in it are looked for.
    pub dir: Dir,
}

/// The search for included files of one compilation.
pub struct Finder<'a> {
    headers: &'a [(String, String)],
    /// The `-I` directories, canonical (those that do not exist hold nothing).
    dirs: Vec<PathBuf>,
}

impl<'a> Finder<'a> {
    pub fn new(headers: &'a [(String, String)], include_dirs: &[String]) -> Self {
        let dirs = include_dirs.iter().filter_map(|d| Path::new(d).canonicalize().ok()).collect();
        Finder { headers, dirs }
    }

    /// The file `name` included from a file whose quoted includes are looked for in `from`
    /// (`Dir::None` for `<name>`); the error is the diagnostic.
    pub fn find(&self, name: &str, from: &Dir) -> Result<Found, String> {
        if let Some(found) = self.given(name) {
            return Ok(found);
        }
        let not_found = || format!("cannot open include file '{name}'");
        if Path::new(name).is_absolute() {
            return self.on_disk(Path::new(name), name, None)?.ok_or_else(not_found);
        }
        for dir in &self.dirs {
            if let Some(found) = self.on_disk(&dir.join(name), name, Some(&[]))? {
                return Ok(found);
            }
        }
        let beside = match from {
            Dir::Named(dir) => self.given(&Path::new(dir).join(name).to_string_lossy()),
            Dir::Disk(dir) => self.on_disk(&dir.join(name), name, Some(std::slice::from_ref(dir)))?,
            Dir::None => None,
        };
        beside.ok_or_else(not_found)
    }

    fn given(&self, name: &str) -> Option<Found> {
        let (path, text) = self.headers.iter().find(|(n, _)| n == name)?;
        let dir = Path::new(path).parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
        Some(Found { path: path.clone(), text: text.clone(), dir: Dir::Named(dir) })
    }

    /// The file at `path` if it may be included, `None` if the search goes on (no such file,
    /// or not one to read); an error if it is too large or not text. With `within`, the file
    /// must lie in an `-I` directory or in one of those directories (canonical).
    fn on_disk(&self, path: &Path, name: &str, within: Option<&[PathBuf]>) -> Result<Option<Found>, String> {
        let Ok(real) = path.canonicalize() else { return Ok(None) };
        // (Opening a pipe would block: the type is checked first.)
        let regular = |m: std::io::Result<std::fs::Metadata>| m.is_ok_and(|m| m.is_file());
        let allowed = within.is_none_or(|extra| self.dirs.iter().chain(extra).any(|d| real.starts_with(d)));
        if !allowed || !regular(real.metadata()) {
            return Ok(None);
        }
        let Ok(file) = File::open(&real) else { return Ok(None) };
        // The opened file itself too: the path may lead elsewhere by now.
        if !regular(file.metadata()) {
            return Ok(None);
        }
        let mut bytes = Vec::new();
        if file.take(MAX_INCLUDE_BYTES + 1).read_to_end(&mut bytes).is_err() {
            return Ok(None);
        }
        if bytes.len() as u64 > MAX_INCLUDE_BYTES {
            return Err(format!("include file '{name}' is larger than {} MiB", MAX_INCLUDE_BYTES >> 20));
        }
        let text = String::from_utf8(bytes).map_err(|_| format!("include file '{name}' is not UTF-8 text"))?;
        let dir = real.parent().map(Path::to_path_buf).unwrap_or_default();
        Ok(Some(Found { path: real.to_string_lossy().into_owned(), text, dir: Dir::Disk(dir) }))
    }
}
