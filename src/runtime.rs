//! The process's async runtime: how many threads it has, and building it.

use crate::cli::Cli;

/// Threads of the process's tokio runtime: one per CPU, as tokio's default,
/// plus one per engine lane where this process runs engines. A running engine
/// keeps its thread until its next epoch tick (10 ms); with only one thread
/// per CPU, every lane busy left no thread to poll the sockets, so each SQL
/// round trip of a checkpoint waited a tick and held its pooled connection
/// that much longer (under the 500-session load test the worker's pool ran
/// dry). The spare threads take that work at once and the kernel shares the
/// CPUs.
pub fn threads(cli: &Cli) -> usize {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    cpus + cli.engine_lanes()
}

/// A multi-threaded runtime with [`threads`] threads and every driver on.
pub fn build(cli: &Cli) -> std::io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads(cli))
        .enable_all()
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    fn threads_for(args: &[&str]) -> usize {
        let cli = Cli::try_parse_from(args).unwrap_or_else(|e| panic!("{args:?}: {e}"));
        threads(&cli)
    }

    #[test]
    fn processes_that_run_engines_get_a_thread_per_engine_lane_beside_one_per_cpu() {
        let cpus = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(
            threads_for(&["servo-fleet", "worker", "--engine-lanes", "3"]),
            cpus + 3
        );
        assert_eq!(
            threads_for(&["servo-fleet", "serve", "--engine-lanes", "2"]),
            cpus + 2
        );
        // Lanes default to one per CPU.
        assert_eq!(threads_for(&["servo-fleet", "worker"]), 2 * cpus);
        assert_eq!(threads_for(&["servo-fleet", "gateway"]), cpus);
    }
}
