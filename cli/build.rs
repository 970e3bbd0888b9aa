// libtorch's link settings (see ../net/link_libtorch.rs); the `cuda` feature (on by
// default) keeps libtorch_cuda linked so `--device cuda` works. `--no-default-features`
// builds a binary that loads no CUDA library, for CPU-only container images.
include!("../net/link_libtorch.rs");

fn main() {
    link_libtorch(std::env::var_os("CARGO_FEATURE_CUDA").is_some());
}
