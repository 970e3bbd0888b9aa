// Link settings for everything that uses libtorch, shared by dojo-net's build script (its
// tests and benches) and the `dojo` binary's:
//
// - An rpath to libtorch's folder, so binaries run without LD_LIBRARY_PATH.
// - With `force_cuda`, libtorch_cuda linked even though no symbol of it is referenced: the
//   linker would drop it (--as-needed), and then `tch::Cuda::is_available()` is false even
//   on a GPU machine, because CUDA support registers itself from that library's static
//   initialisers. Without it (a CPU-only build, for a CPU container image) the binary loads
//   no CUDA library at all.

fn link_libtorch(force_cuda: bool) {
    // Set by torch-sys (`links = "tch"`) for crates that depend on it directly.
    println!("cargo:rerun-if-env-changed=DEP_TCH_LIBTORCH_LIB");
    let Ok(lib) = std::env::var("DEP_TCH_LIBTORCH_LIB") else {
        return;
    };
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() != Ok("linux") {
        return;
    }
    println!("cargo:rustc-link-arg=-Wl,-rpath,{lib}");
    if force_cuda && std::path::Path::new(&lib).join("libtorch_cuda.so").exists() {
        println!("cargo:rustc-link-arg=-Wl,--no-as-needed");
        println!("cargo:rustc-link-arg=-ltorch_cuda");
        println!("cargo:rustc-link-arg=-Wl,--as-needed");
    }
}
