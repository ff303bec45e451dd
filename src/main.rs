//! The `servo-fleet` command: wiring only. Each subcommand opens the stores it
//! needs, builds a service from its crate, and runs it until Ctrl-C or SIGTERM.

mod cli;
mod smoke;

use clap::Parser as _;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    cli::init_tracing();
    match cli::run(cli).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("servo-fleet: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
