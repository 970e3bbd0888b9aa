// Generates the tonic/prost code for dojo.proto with a vendored protoc: nothing to install.
fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    std::env::set_var("PROTOC", protoc);
    println!("cargo:rerun-if-changed=dojo.proto");
    tonic_prost_build::configure().compile_protos(&["dojo.proto"], &["."])?;
    // TensorBoard's event files: messages only, no services.
    println!("cargo:rerun-if-changed=tensorboardX/proto");
    tonic_prost_build::configure()
        .build_client(false)
        .build_server(false)
        .compile_protos(&["tensorboardX/proto/event.proto"], &["."])?;
    Ok(())
}
