// libtorch's link settings (rpath, libtorch_cuda kept for CUDA): see link_libtorch.rs.
include!("link_libtorch.rs");

fn main() {
    link_libtorch(true);
}
