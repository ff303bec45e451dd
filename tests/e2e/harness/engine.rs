//! An engine host inside the test process, without a fleet: for tests of what
//! the engine does with a page, through the worker's wasmtime host.

use super::cache_dir;

/// An engine host in this test process (no fleet), `capacity` tabs with the
/// workers' memory cap; `allow_private` lists the ranges pages may reach
/// (loopback fixtures need `127.0.0.0/8`).
pub fn engine_host(
    capacity: u32,
    allow_private: &[&str],
) -> anyhow::Result<fleet_worker::host::EngineHost> {
    let policy = fleet_worker::net::NetPolicy {
        allow_private: allow_private
            .iter()
            .map(|r| r.parse())
            .collect::<Result<_, _>>()?,
    };
    fleet_worker::host::EngineHost::new(
        fleet_worker::host::HostConfig {
            capacity,
            memory_cap: 512 << 20,
            cache_dir: cache_dir(),
            perf_map: false,
            keep_downloads: false,
        },
        fleet_worker::net::Fetcher::new(policy, 8 << 20)?,
    )
}

/// A one-tab engine host (see [`engine_host`]) and its tab, 800×600; keep
/// the host alive while the tab is used.
pub async fn engine_tab(
    allow_private: &[&str],
) -> anyhow::Result<(fleet_worker::host::EngineHost, fleet_worker::host::Tab)> {
    let host = engine_host(1, allow_private)?;
    let tab = host
        .new_tab(fleet_worker::host::Viewport {
            width: 800,
            height: 600,
        })
        .await?;
    Ok((host, tab))
}
