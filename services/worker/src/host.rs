//! The wasmtime host of the engine component — the only module that names wasmtime
//! types. One [`EngineHost`] per process holds the `Engine`, the linker and the
//! component (compiled once, then cached on disk); each session gets its own
//! [`Tab`]: one `Store` with a memory cap and a per-call deadline.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use tokio::sync::OnceCell;
use wasmtime::component::{HasSelf, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, PoolingAllocationConfig, Store};

use crate::admission::Lane;
use crate::net::Fetcher;

mod cache;
mod code_cache;
mod command;
mod network;
mod preinit;
mod ready;
mod store;

use cache::load_component;
pub use code_cache::{CodeCache, CodeCacheStats};
pub use command::run_command;
pub use network::PendingDownload;
pub use store::TabState;
use store::{new_store, tab_state};

#[allow(missing_docs, clippy::all)]
mod bindings {
    wasmtime::component::bindgen!({
        path: "../engine/wit",
        world: "engine",
        imports: { default: async },
        exports: { default: async },
        additional_derives: [PartialEq],
    });
}

pub use bindings::exports::fleet::engine::page::{
    AccessibilityTree, Capability, ConsoleEntry, Dialog, DialogPolicy, EvalError, Field, Found,
    Frame, FrameInfo, FrameMarkup, Link, Readable, Scroll, SelectOption, Settle, Source, StatePart,
    Summary, Support, Target, Traversal, TypeText, UserInput, Viewport, WaitError, WaitFor,
};

/// The engine component built by this crate's build script.
static ENGINE_WASM: &[u8] = include_bytes!(env!("FLEET_ENGINE_WASM"));

/// How often the epoch ticks; deadlines are checked at this granularity.
const TICK: Duration = Duration::from_millis(10);

/// Largest pre-initialized memory every tab maps copy-on-write instead of
/// having it copied in at instantiation (`preinit.rs`).
const PREINIT_IMAGE_MAX: u64 = 256 << 20;

/// Time the engine's work between calls may take: a realm's preludes run in
/// ≈10 ms, freeing a big page's realm in tens.
const PREPARE_BUDGET: Duration = Duration::from_secs(5);

/// Settings of the host.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// Most sessions held at once (sizes the instance pool).
    pub capacity: u32,
    /// Linear-memory cap of one session, bytes.
    pub memory_cap: usize,
    /// Where the compiled component is cached.
    pub cache_dir: PathBuf,
    /// Write `/tmp/perf-<pid>.map` so `perf` can name the guest's functions.
    pub perf_map: bool,
    /// Keep the files pages download (the fleet has an object store); a
    /// download is otherwise refused with a reason the page's console shows.
    pub keep_downloads: bool,
}

/// Why a call into a tab failed.
#[derive(Debug, thiserror::Error)]
pub enum TabError {
    /// The call ran past its deadline and was interrupted.
    #[error("the action did not finish within its time budget of {0} ms")]
    Timeout(u128),
    /// The guest trapped (memory cap, a bug); the tab is unusable.
    #[error("the page's engine failed: {0}")]
    Trap(String),
}

/// The JavaScript preludes' bytecode by name, as one instance of this
/// process's component compiled it (`page.compile-preludes`).
type Preludes = Arc<HashMap<String, Box<[u8]>>>;

/// The process-wide engine.
#[derive(Clone)]
pub struct EngineHost {
    engine: Engine,
    pre: bindings::EnginePre<TabState>,
    config: Arc<HostConfig>,
    fetcher: Fetcher,
    /// Compiled on first use (or by [`EngineHost::warm`]) by an instance that
    /// loads no page, so no page's script has a hand in what tabs run.
    preludes: Arc<OnceCell<Preludes>>,
    /// Whether tabs start from the pre-initialized engine (`preinit.rs`),
    /// which holds the preludes' bytecode.
    preinitialized: bool,
    /// The tab kept ready for the next session (`ready.rs`).
    ready: Arc<ready::Ready>,
    /// Page scripts' bytecode (`code_cache.rs`).
    code: Arc<CodeCache>,
}

impl EngineHost {
    /// Builds the engine, compiles (or loads from cache) the component and starts
    /// the epoch ticker. Call once per process.
    pub fn new(config: HostConfig, fetcher: Fetcher) -> anyhow::Result<Self> {
        let cap = config.capacity.max(1);
        let mut pool = PoolingAllocationConfig::default();
        // A wasip2 component instance holds several core instances and tables, and
        // a big Rust guest has a large indirect-call table: size for that.
        pool.total_component_instances(cap + 4)
            .total_core_instances(cap * 8 + 16)
            .total_memories(cap * 2 + 8)
            .total_tables(cap * 4 + 16)
            .total_stacks(cap + 4)
            .max_memory_size(config.memory_cap)
            .table_elements(200_000)
            .max_core_instance_size(4 << 20)
            .max_component_instance_size(4 << 20);
        let mut wc = Config::new();
        // Deep DOMs and recursive scripts need far more native stack than
        // wasmtime's 512 KiB default; the async (fiber) stack must exceed it.
        wc.max_wasm_stack(16 << 20)
            .async_stack_size(17 << 20)
            .epoch_interruption(true)
            .allocation_strategy(InstanceAllocationStrategy::Pooling(pool))
            .memory_init_cow(true)
            // The pre-initialized engine's memory (`preinit.rs`) is tens of
            // MiB with gaps: always map it copy-on-write, never copy it in.
            .memory_guaranteed_dense_image_size(PREINIT_IMAGE_MAX);
        if config.perf_map {
            wc.profiler(wasmtime::ProfilingStrategy::PerfMap);
        }
        let engine = Engine::new(&wc).map_err(anyhow::Error::from)?;

        let mut linker: Linker<TabState> = Linker::new(&engine);
        wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(anyhow::Error::from)?;
        bindings::Engine::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)
            .map_err(anyhow::Error::from)?;
        let code = Arc::<CodeCache>::default();
        let (component, preinitialized) = load_component(&engine, &config.cache_dir, || {
            preinit::initialized(&engine, &linker, |preludes| {
                tab_state(&config, &fetcher, &code, preludes)
            })
        })?;
        let pre = bindings::EnginePre::new(
            linker
                .instantiate_pre(&component)
                .map_err(anyhow::Error::from)?,
        )
        .map_err(anyhow::Error::from)?;

        // The ticker drives every store's deadline check; it ends with the process.
        let ticker = engine.weak();
        std::thread::Builder::new()
            .name("epoch-ticker".into())
            .spawn(move || {
                while let Some(engine) = ticker.upgrade() {
                    engine.increment_epoch();
                    drop(engine);
                    std::thread::sleep(TICK);
                }
            })
            .context("starting the epoch ticker")?;

        Ok(Self {
            engine,
            pre,
            config: Arc::new(config),
            fetcher,
            preludes: Arc::new(OnceCell::new()),
            preinitialized,
            ready: Arc::default(),
            code,
        })
    }

    /// Compiles the JavaScript preludes now rather than on the first tab, so
    /// the first session does not wait for them (a worker calls this before
    /// it reports ready).
    pub async fn warm(&self) -> anyhow::Result<()> {
        self.preludes().await.map(drop)
    }

    /// The preludes' bytecode, compiled once per process by an instance of
    /// its own that loads no page; none when every tab's engine holds it
    /// already (the pre-initialized engine, `preinit.rs`).
    async fn preludes(&self) -> anyhow::Result<Preludes> {
        if self.preinitialized {
            return Ok(Preludes::default());
        }
        let compiled = self
            .preludes
            .get_or_try_init(|| async {
                let (mut store, instance) = self.instantiate(Preludes::default()).await?;
                compile_preludes(&mut store, &instance).await
            })
            .await?;
        Ok(compiled.clone())
    }

    /// A new, empty tab.
    pub async fn new_tab(&self, viewport: Viewport) -> anyhow::Result<Tab> {
        // Without the host's bytecode a tab compiles the preludes itself:
        // slower, never wrong.
        let preludes = self.preludes().await.unwrap_or_else(|e| {
            tracing::warn!(error = %e, "no compiled preludes; the tab compiles its own");
            Preludes::default()
        });
        let (store, instance) = self.instantiate(preludes).await?;
        let mut tab = Tab {
            store,
            instance,
            poisoned: false,
            fonts: Vec::new(),
            console: crate::console_log::ConsoleLog::default(),
        };
        tab.set_viewport(viewport).await?;
        Ok(tab)
    }

    /// A new instance of the engine in a store of its own.
    async fn instantiate(
        &self,
        preludes: Preludes,
    ) -> anyhow::Result<(Store<TabState>, bindings::Engine)> {
        let state = tab_state(&self.config, &self.fetcher, &self.code, preludes);
        let mut store = new_store(&self.engine, state);
        let instance = self
            .pre
            .instantiate_async(&mut store)
            .await
            .map_err(anyhow::Error::from)?;
        Ok((store, instance))
    }
}

/// Ask `instance`, which loads no page, for the JavaScript preludes'
/// bytecode.
async fn compile_preludes(
    store: &mut Store<TabState>,
    instance: &bindings::Engine,
) -> anyhow::Result<Preludes> {
    let started = Instant::now();
    store.data_mut().deadline = Instant::now() + Duration::from_secs(30);
    let compiled = instance
        .fleet_engine_page()
        .call_compile_preludes(&mut *store)
        .await
        .map_err(anyhow::Error::from)?
        .map_err(|e| anyhow::anyhow!("the engine's preludes do not compile: {e}"))?;
    tracing::info!(
        ms = started.elapsed().as_millis() as u64,
        bytes = compiled.iter().map(|(_, code)| code.len()).sum::<usize>(),
        "compiled the JavaScript preludes"
    );
    Ok(Arc::new(
        compiled
            .into_iter()
            .map(|(name, code)| (name, code.into_boxed_slice()))
            .collect::<HashMap<_, _>>(),
    ))
}

/// One session's engine instance.
pub struct Tab {
    store: Store<TabState>,
    instance: bindings::Engine,
    poisoned: bool,
    /// Fonts the guest accepted, in order: the checkpoint keeps them, and a
    /// restore registers them again before the page loads.
    fonts: Vec<RegisteredFont>,
    /// What the tab's pages wrote to the console, action by action.
    console: crate::console_log::ConsoleLog,
}

/// A font the guest accepted. Its bytes never change, so its content hash is
/// taken once here rather than by every checkpoint.
#[derive(Debug, Clone)]
pub struct RegisteredFont {
    /// The font file.
    pub data: Vec<u8>,
    /// [`fleet_store::content_hash`] of `data`.
    pub hash: String,
}

/// Runs one export call under the tab's deadline and turns a trap into a
/// [`TabError`], marking the tab poisoned: after a trap the component instance
/// cannot be entered again.
macro_rules! guest_call {
    ($tab:ident, $budget:expr, $method:ident ( $($arg:expr),* )) => {{
        let budget: Duration = $budget;
        $tab.begin(budget)?;
        let result = $tab.instance.fleet_engine_page().$method(&mut $tab.store $(, $arg)*).await;
        $tab.finish(result, budget)
    }};
}

impl Tab {
    /// How many JavaScript preludes this tab's engine asked the host for: none
    /// when it starts from the pre-initialized engine, which holds them all.
    pub fn preludes_asked(&self) -> u32 {
        self.store.data().preludes_asked
    }

    /// Runs the tab's engine work in `lane` until [`Tab::leave_lane`]; the
    /// page's requests step aside from it while they wait on the network.
    pub fn hold_lane(&mut self, lane: Lane) {
        self.store.data_mut().lane = Some(lane);
    }

    /// Whether the tab holds a turn at the engine.
    pub fn holds_lane(&self) -> bool {
        self.store.data().lane.is_some()
    }

    /// Gives the tab's turn at the engine to the next action.
    pub fn leave_lane(&mut self) {
        self.store.data_mut().lane = None;
    }

    /// Whether a trap or timeout made the instance unusable.
    pub fn poisoned(&self) -> bool {
        self.poisoned
    }

    fn begin(&mut self, budget: Duration) -> Result<(), TabError> {
        if self.poisoned {
            return Err(TabError::Trap("the instance failed earlier".into()));
        }
        self.store.data_mut().deadline = Instant::now() + budget;
        Ok(())
    }

    fn finish<T>(&mut self, result: wasmtime::Result<T>, budget: Duration) -> Result<T, TabError> {
        result.map_err(|e| {
            self.poisoned = true;
            if Instant::now() >= self.store.data().deadline {
                TabError::Timeout(budget.as_millis())
            } else {
                TabError::Trap(root_cause(&e))
            }
        })
    }

    async fn set_viewport(&mut self, viewport: Viewport) -> Result<(), TabError> {
        guest_call!(self, Duration::from_secs(5), call_set_viewport(viewport))
    }

    /// Loads a URL or inline HTML.
    pub async fn load(&mut self, src: Source, budget: Duration) -> Result<Summary, TabError> {
        guest_call!(self, budget, call_load(&src))
    }

    /// Reads the page.
    pub async fn inspect(&mut self, budget: Duration) -> Result<Summary, TabError> {
        guest_call!(self, budget, call_inspect())
    }

    /// Evaluates JavaScript, returning JSON text or the script's error.
    pub async fn evaluate(
        &mut self,
        script: &str,
        budget: Duration,
    ) -> Result<Result<String, EvalError>, TabError> {
        guest_call!(self, budget, call_evaluate(script))
    }

    /// Lists the page's frames with their ids.
    pub async fn frames(&mut self, budget: Duration) -> Result<Vec<FrameInfo>, TabError> {
        guest_call!(self, budget, call_frames())
    }

    /// Evaluates `script` in the realm of frame `id`.
    pub async fn frame_evaluate(
        &mut self,
        id: &str,
        script: &str,
        budget: Duration,
    ) -> Result<Result<String, EvalError>, TabError> {
        guest_call!(self, budget, call_frame_evaluate(id, script))
    }

    /// Serializes frame `id`'s document, at most `max_chars` characters.
    pub async fn frame_html(
        &mut self,
        id: &str,
        max_chars: u32,
        budget: Duration,
    ) -> Result<Result<FrameMarkup, String>, TabError> {
        guest_call!(self, budget, call_frame_html(id, max_chars))
    }

    /// Paints the viewport to PNG.
    pub async fn screenshot(
        &mut self,
        full_page: bool,
        budget: Duration,
    ) -> Result<Result<Vec<u8>, String>, TabError> {
        guest_call!(self, budget, call_screenshot(full_page))
    }

    /// Performs an input action; the error says which target matched nothing.
    pub async fn input(
        &mut self,
        action: &UserInput,
        budget: Duration,
    ) -> Result<Result<Summary, String>, TabError> {
        guest_call!(self, budget, call_input(action))
    }

    /// Finds the element a target names, without acting on it.
    pub async fn find(
        &mut self,
        target: &Target,
        budget: Duration,
    ) -> Result<Result<Found, String>, TabError> {
        guest_call!(self, budget, call_find(target))
    }

    /// Moves through the history, or reloads.
    pub async fn traverse(
        &mut self,
        step: Traversal,
        budget: Duration,
    ) -> Result<Summary, TabError> {
        guest_call!(self, budget, call_traverse(step))
    }

    /// Runs the page's event loop until the condition holds or its page time
    /// is up; the error says which selector is invalid or what never came.
    pub async fn wait(
        &mut self,
        until: &WaitFor,
        budget: Duration,
    ) -> Result<Result<Summary, WaitError>, TabError> {
        guest_call!(self, budget, call_wait(until))
    }

    /// Sets how dialogs are answered.
    pub async fn set_dialog_policy(
        &mut self,
        policy: &DialogPolicy,
        budget: Duration,
    ) -> Result<(), TabError> {
        guest_call!(self, budget, call_set_dialog_policy(policy))
    }

    /// The accessibility tree, cut at `max_nodes`.
    pub async fn accessibility(
        &mut self,
        max_nodes: u32,
        budget: Duration,
    ) -> Result<AccessibilityTree, TabError> {
        guest_call!(self, budget, call_accessibility(max_nodes))
    }

    /// What the engine supports.
    pub async fn capabilities(&mut self, budget: Duration) -> Result<Vec<Capability>, TabError> {
        guest_call!(self, budget, call_capabilities())
    }

    /// The tab's durable state, in named parts.
    pub async fn snapshot(&mut self, budget: Duration) -> Result<Vec<StatePart>, TabError> {
        guest_call!(self, budget, call_snapshot())
    }

    /// The engine's work between calls (`prepare` in the WIT): free the
    /// replaced document's realm, make the next one. Failing to make it is
    /// logged, not an error: the next document makes its own.
    pub async fn prepare(&mut self) -> Result<(), TabError> {
        if let Err(e) = guest_call!(self, PREPARE_BUDGET, call_prepare())? {
            tracing::warn!(error = %e, "the engine could not prepare a realm");
        }
        Ok(())
    }

    /// Registers a font; the families it provides, or why the bytes are not a font.
    pub async fn register_font(
        &mut self,
        data: Vec<u8>,
        budget: Duration,
    ) -> Result<Result<Vec<String>, String>, TabError> {
        let families = guest_call!(self, budget, call_register_font(&data))?;
        if families.is_ok() {
            let hash = fleet_store::content_hash(&data);
            self.fonts.push(RegisteredFont { data, hash });
        }
        Ok(families)
    }

    /// The fonts registered so far, in order.
    pub fn fonts(&self) -> &[RegisteredFont] {
        &self.fonts
    }

    /// The host-side cookie jar, every cookie included (HttpOnly, session-only,
    /// expired ones are dropped on load), as JSON.
    pub fn cookie_state(&self) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        cookie_store::serde::json::save_incl_expired_and_nonpersistent(
            &self.store.data().cookies,
            &mut out,
        )
        .map_err(|e| format!("the cookie jar could not be saved: {e}"))?;
        Ok(out)
    }

    /// What the tab's pages wrote to the console.
    pub fn console_log(&mut self) -> &mut crate::console_log::ConsoleLog {
        &mut self.console
    }

    /// The downloads the tab's pages made since the last call, for the
    /// worker to store.
    pub fn take_downloads(&mut self) -> Vec<PendingDownload> {
        std::mem::take(&mut self.store.data_mut().downloads)
    }

    /// The requests the tab's pages made.
    pub fn network_log(&self) -> &crate::network_log::NetworkLog {
        &self.store.data().network
    }

    /// The host-side cookie jar, for the cookie tools.
    pub fn cookies_mut(&mut self) -> &mut crate::net::CookieStore {
        &mut self.store.data_mut().cookies
    }

    /// Replaces the cookie jar with one saved by [`Tab::cookie_state`].
    pub fn set_cookie_state(&mut self, json: &[u8]) -> Result<(), String> {
        let jar = cookie_store::serde::json::load(json)
            .map_err(|e| format!("the saved cookie jar could not be read: {e}"))?;
        self.store.data_mut().cookies = jar;
        Ok(())
    }

    /// Rebuilds the tab from the parts of a snapshot.
    pub async fn restore(
        &mut self,
        parts: &[StatePart],
        budget: Duration,
    ) -> Result<Result<Summary, String>, TabError> {
        guest_call!(self, budget, call_restore(parts))
    }
}

fn root_cause(e: &wasmtime::Error) -> String {
    let text = format!("{e:#}");
    if text.contains("growing memory") || text.contains("memory") && text.contains("limit") {
        "the page exceeded the session's memory cap".into()
    } else {
        // Trap messages are the engine's, not internal host details.
        text.lines().next().unwrap_or("trap").to_owned()
    }
}
