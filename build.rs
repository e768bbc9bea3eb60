//! Binds the driver's references to its own exported entry points locally (`-Bsymbolic`):
//! the loader exports functions of the same names, and the dispatch table must point at ours.
fn main() {
    println!("cargo:rustc-cdylib-link-arg=-Wl,-Bsymbolic");
}
