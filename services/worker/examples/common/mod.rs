//! What the engine examples share: a host set up as a developer runs one (the
//! engine cache from `FLEET_ENGINE_CACHE_DIR`, a perf map of the JIT code for
//! `perf` when `FLEET_PERF_MAP=true`, loopback allowed) and a page named on
//! the command line.

use fleet_worker::host::{EngineHost, HostConfig, Source};
use fleet_worker::net::{Fetcher, NetPolicy};

/// An engine host for up to `capacity` tabs, 512 MiB each.
pub fn host(capacity: u32) -> anyhow::Result<EngineHost> {
    let cache = std::env::var_os("FLEET_ENGINE_CACHE_DIR")
        .map(Into::into)
        .unwrap_or_else(|| std::env::temp_dir().join("servo-fleet-probe-cache"));
    EngineHost::new(
        HostConfig {
            capacity,
            memory_cap: 512 << 20,
            cache_dir: cache,
            perf_map: std::env::var_os("FLEET_PERF_MAP").is_some_and(|v| v == "true"),
            keep_downloads: false,
        },
        Fetcher::new(
            NetPolicy {
                allow_private: vec!["127.0.0.0/8".parse()?],
            },
            8 << 20,
        )?,
    )
}

/// `target` as a page to load: a URL, or an HTML file read now.
pub fn source(target: &str) -> anyhow::Result<Source> {
    Ok(if target.starts_with("http") {
        Source::Url(target.to_owned())
    } else {
        Source::Html(std::fs::read_to_string(target)?)
    })
}
