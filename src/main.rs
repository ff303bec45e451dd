//! The `servo-fleet` command: wiring only. Each subcommand opens the stores it
//! needs, builds a service from its crate, and runs it until Ctrl-C or SIGTERM.

mod cli;
mod client;
mod keys;
mod runtime;
mod smoke;
mod tenants;

use clap::Parser as _;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    let runtime = match runtime::build(&cli) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("servo-fleet: starting the async runtime: {e}");
            return std::process::ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let _traces = match cli::init_tracing(&cli) {
            Ok(t) => t,
            Err(e) => {
                eprintln!("servo-fleet: {e:#}");
                return std::process::ExitCode::FAILURE;
            }
        };
        match cli::run(cli).await {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("servo-fleet: {e:#}");
                std::process::ExitCode::FAILURE
            }
        }
    })
}
