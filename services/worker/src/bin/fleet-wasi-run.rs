//! `fleet-wasi-run <component.wasm> [args…]`: runs a `wasi:cli/command`
//! component under wasmtime and exits with its status. Cargo's runner for
//! `wasm32-wasip2`, so `cargo test --target wasm32-wasip2 -p fleet-engine`
//! runs the engine's unit tests (`make test` does).

use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: fleet-wasi-run <component.wasm> [args…]");
        return ExitCode::from(2);
    };
    match fleet_worker::host::run_command(std::path::Path::new(path), &args).await {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("fleet-wasi-run: {e:#}");
            ExitCode::from(2)
        }
    }
}
