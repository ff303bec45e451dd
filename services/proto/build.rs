//! Generates the tonic/prost code from `proto/fleet/v1` with protox (pure Rust, so no
//! `protoc` is needed on the machine).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Read at run time, not `env!` at compile time: one compiled build script is
    // reused by every checkout that shares a target directory.
    let manifest = std::env::var_os("CARGO_MANIFEST_DIR").ok_or("CARGO_MANIFEST_DIR is not set")?;
    let root = std::path::Path::new(&manifest).join("../../proto");
    let files = [
        root.join("fleet/v1/browser.proto"),
        root.join("fleet/v1/worker.proto"),
    ];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&root])?;
    // The encoded descriptors, for gRPC reflection (clients such as grpcurl
    // list and call the services without the .proto files).
    let out = std::env::var_os("OUT_DIR").ok_or("OUT_DIR is not set")?;
    std::fs::write(
        std::path::Path::new(&out).join("fleet_descriptor.bin"),
        prost::Message::encode_to_vec(&fds),
    )?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
