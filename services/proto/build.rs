//! Generates the tonic/prost code from `proto/fleet/v1` with protox (pure Rust, so no
//! `protoc` is needed on the machine).

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proto");
    let files = [
        root.join("fleet/v1/browser.proto"),
        root.join("fleet/v1/worker.proto"),
    ];
    for f in &files {
        println!("cargo:rerun-if-changed={}", f.display());
    }
    let fds = protox::compile(&files, [&root])?;
    tonic_prost_build::configure()
        .build_server(true)
        .build_client(true)
        .compile_fds(fds)?;
    Ok(())
}
