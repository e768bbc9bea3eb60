//! Where `#include` finds its files: the headers given to `clCompileProgram` (by name), then
//! files on disk in the `-I` directories and, for a quoted name in a file read from disk, in
//! that file's directory. A program's source has no directory of its own.
//!
//! A file on disk is read only when its canonical path (links and `..` resolved, so an
//! absolute name too) lies in an `-I` directory and it is a regular file of at most
//! [`MAX_INCLUDE_BYTES`]: an include can neither copy another file of the host into the build
//! log (nor tell whether one exists) nor hang reading a device or a pipe.

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
    /// On disk, in this canonical directory (inside an `-I` directory).
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
        for dir in &self.dirs {
            if let Some(found) = self.on_disk(&dir.join(name), name)? {
                return Ok(found);
            }
        }
        let beside = match from {
            Dir::Named(dir) => self.given(&Path::new(dir).join(name).to_string_lossy()),
            Dir::Disk(dir) => self.on_disk(&dir.join(name), name)?,
            Dir::None => None,
        };
        beside.ok_or_else(|| format!("cannot open include file '{name}'"))
    }

    fn given(&self, name: &str) -> Option<Found> {
        let (path, text) = self.headers.iter().find(|(n, _)| n == name)?;
        let dir = Path::new(path).parent().map(|d| d.to_string_lossy().into_owned()).unwrap_or_default();
        Some(Found { path: path.clone(), text: text.clone(), dir: Dir::Named(dir) })
    }

    /// The file at `path` if it may be included, `None` if the search goes on (no such file,
    /// or not one to read); an error if it is too large or not text.
    fn on_disk(&self, path: &Path, name: &str) -> Result<Option<Found>, String> {
        let Ok(real) = path.canonicalize() else { return Ok(None) };
        // (Opening a pipe would block: the type is checked first.)
        let regular = |m: std::io::Result<std::fs::Metadata>| m.is_ok_and(|m| m.is_file());
        if !self.dirs.iter().any(|d| real.starts_with(d)) || !regular(real.metadata()) {
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
