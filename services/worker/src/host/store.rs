//! A tab's store: the state the host keeps beside one engine instance (WASI,
//! limits, the fetcher, the current deadline, the preludes' bytecode), and
//! the store around it with its memory cap and its deadline.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::component::ResourceTable;
use wasmtime::{Engine, Store, StoreLimits, StoreLimitsBuilder, UpdateDeadline};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::{CodeCache, HostConfig, PendingDownload, Preludes, bindings};
use crate::admission::Lane;
use crate::net::{CookieStore, Fetcher};

/// Per-store state: WASI, limits, the fetcher, the current deadline and the
/// preludes' bytecode.
pub struct TabState {
    pub(super) wasi: WasiCtx,
    pub(super) table: ResourceTable,
    pub(super) limits: StoreLimits,
    pub(super) fetcher: Fetcher,
    pub(super) cookies: CookieStore,
    pub(super) deadline: Instant,
    pub(super) preludes: Preludes,
    /// How many preludes this tab's engine asked the host for, whether
    /// `preludes` had them or not (it asks for each once, on first use,
    /// unless its instance holds them already).
    pub(super) preludes_asked: u32,
    /// The requests the tab's pages made, newest last.
    pub(super) network: crate::network_log::NetworkLog,
    /// Whether downloads are kept (the fleet has an object store).
    pub(super) keep_downloads: bool,
    /// Downloads the current call's pages made, for the worker to store.
    pub(super) downloads: Vec<PendingDownload>,
    /// The turn at the engine the current action holds, set aside while the
    /// page waits on the network.
    pub(super) lane: Option<Lane>,
    /// The worker's page scripts' bytecode, and the tenant whose part of it
    /// this tab reads (`code_cache.rs`).
    pub(super) code: Arc<CodeCache>,
    pub(super) tenant: String,
}

impl WasiView for TabState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}

/// A tab's first script used to compile the ≈330 KB of prelude source
/// itself (≈50 ms of a new session); a tab of the pre-initialized engine
/// holds the bytecode already, and one of the plain engine copies it in.
impl bindings::fleet::engine::preludes::Host for TabState {
    async fn bytecode(&mut self, name: String) -> Option<Vec<u8>> {
        self.preludes_asked += 1;
        self.preludes.get(&name).map(|code| code.to_vec())
    }
}

/// A new tab's store state: its own WASI context (no preopens, no sockets, no
/// inherited stdio: the guest reaches the outside only through
/// `network.fetch`), the session's memory cap and the process's shared parts.
pub(super) fn tab_state(
    config: &HostConfig,
    fetcher: &Fetcher,
    code: &Arc<CodeCache>,
    preludes: Preludes,
) -> TabState {
    TabState {
        wasi: WasiCtxBuilder::new().build(),
        table: ResourceTable::new(),
        limits: StoreLimitsBuilder::new()
            .memory_size(config.memory_cap)
            .instances(32)
            .tables(32)
            .memories(4)
            .trap_on_grow_failure(true)
            .build(),
        fetcher: fetcher.clone(),
        cookies: CookieStore::default(),
        network: crate::network_log::NetworkLog::default(),
        keep_downloads: config.keep_downloads,
        downloads: Vec::new(),
        deadline: Instant::now() + Duration::from_secs(30),
        preludes,
        preludes_asked: 0,
        lane: None,
        code: code.clone(),
        tenant: String::new(),
    }
}

/// A store for one instance, with its state's limits and a deadline checked
/// on every epoch tick.
pub(super) fn new_store(engine: &Engine, state: TabState) -> Store<TabState> {
    let mut store = Store::new(engine, state);
    store.limiter(|s| &mut s.limits);
    store.epoch_deadline_callback(|ctx| {
        if Instant::now() >= ctx.data().deadline {
            Err(wasmtime::Error::msg("deadline"))
        } else {
            // Yield to tokio on every tick so one busy page never starves the
            // other sessions on this thread.
            Ok(UpdateDeadline::Yield(1))
        }
    });
    store.set_epoch_deadline(1);
    store
}
