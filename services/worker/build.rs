//! Builds the engine guest (services/engine) for wasm32-wasip2 in release and hands
//! its path to the crate as `FLEET_ENGINE_WASM`, so the worker finds the engine
//! without configuration. The nested cargo uses its own target directory so it
//! never waits on the lock of the build that runs this script.

use std::path::PathBuf;
use std::process::Command;

fn main() {
    // Read at run time, not `env!` at compile time: one compiled build script is
    // reused by every checkout that shares a target directory.
    let manifest = match std::env::var_os("CARGO_MANIFEST_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!("cargo did not set CARGO_MANIFEST_DIR for the build script"),
    };
    let root = manifest.join("../..");
    let engine = root.join("services/engine");
    for p in ["src", "wit", "fonts", "Cargo.toml"] {
        println!("cargo:rerun-if-changed={}", engine.join(p).display());
    }
    // The lock file pins the guest's crates; the wrapper compiles (and patches)
    // QuickJS, and the cargo config carries the wrapper's patch version.
    for p in [
        "Cargo.lock",
        "tools/wasi-sdk/bin/clang",
        ".cargo/config.toml",
    ] {
        println!("cargo:rerun-if-changed={}", root.join(p).display());
    }
    println!("cargo:rerun-if-env-changed=FLEET_ENGINE_WASM_OVERRIDE");

    if let Ok(path) = std::env::var("FLEET_ENGINE_WASM_OVERRIDE") {
        println!("cargo:rustc-env=FLEET_ENGINE_WASM={path}");
        return;
    }

    let target_dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"))
        .join("engine-guest");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(&root)
        .args([
            "build",
            "--release",
            "--target",
            "wasm32-wasip2",
            "-p",
            "fleet-engine",
            "--target-dir",
        ])
        .arg(&target_dir);
    // Flags meant for the host build (clippy's wrapper, coverage, host rustflags)
    // must not leak into the guest build.
    for var in [
        "RUSTC_WORKSPACE_WRAPPER",
        "RUSTC_WRAPPER",
        "RUSTFLAGS",
        "CARGO_ENCODED_RUSTFLAGS",
        "CARGO_BUILD_TARGET",
        "CARGO_TARGET_DIR",
        "CARGO_MAKEFLAGS",
        "MAKEFLAGS",
        "MFLAGS",
    ] {
        cmd.env_remove(var);
    }
    let status = match cmd.status() {
        Ok(s) => s,
        Err(e) => panic!("could not run cargo to build the engine guest: {e}"),
    };
    if !status.success() {
        panic!(
            "building the engine guest failed (see above). It needs Debian's clang-16, llvm-16 and wasi-libc \
             (`make deps` installs them) and the wasm32-wasip2 target (rust-toolchain.toml installs it)."
        );
    }
    let wasm = target_dir.join("wasm32-wasip2/release/fleet_engine.wasm");
    println!("cargo:rustc-env=FLEET_ENGINE_WASM={}", wasm.display());
}
