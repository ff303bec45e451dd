//! The engine every tab is instantiated from, pre-initialized: the component
//! after `page.initialize` ran in an instance that loads no page, its memory
//! snapshotted into the component's data by Wizer. A new tab then starts with
//! the user-agent style sheets parsed, the bundled fonts loaded, every
//! JavaScript prelude compiled and its first realm made, in memory wasmtime
//! maps copy-on-write: shared by every tab of the process until one writes to
//! it. Done once per engine build and machine, with the compiled result
//! (`cache.rs`).
//!
//! The snapshot holds nothing of a page: each document that takes the realm
//! starts its clock and its random numbers then
//! (docs/decisions/0006-pre-initialized-engine.md).

use std::time::Instant;

use anyhow::Context as _;
use wasmtime::component::{Component, Instance, Lift, Linker, WasmList};
use wasmtime::{Engine, Store};
use wasmtime_wizer::{ComponentInstanceState, Wizer};

use super::{ENGINE_WASM, Preludes, TabState, bindings, compile_preludes, new_store};

/// The engine component with `page.initialize` already run, as bytes to
/// compile. Runs on a thread of its own, with its own async runtime: hosts
/// are made from sync code, inside or outside a tokio runtime.
pub(super) fn initialized(
    engine: &Engine,
    linker: &Linker<TabState>,
    state: impl Fn(Preludes) -> TabState + Send,
) -> anyhow::Result<Vec<u8>> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .context("starting the pre-initialization's runtime")?
                    .block_on(initialize(engine, linker, state))
            })
            .join()
            .map_err(|_| anyhow::anyhow!("the engine's pre-initialization panicked"))?
    })
}

/// Instrument the component so its state can be read, run `page.initialize`
/// in an instance of it, and write that instance's state into the component.
/// The preludes are compiled by another instance and handed over, so that
/// what compiling leaves behind is not in the snapshot.
async fn initialize(
    engine: &Engine,
    linker: &Linker<TabState>,
    state: impl Fn(Preludes) -> TabState,
) -> anyhow::Result<Vec<u8>> {
    let started = Instant::now();
    let wizer = Wizer::new();
    let (context, instrumented) = wizer
        .instrument_component(ENGINE_WASM)
        .map_err(anyhow::Error::from)
        .context("instrumenting the engine component")?;
    let component = Component::new(engine, &instrumented)
        .map_err(anyhow::Error::from)
        .context("compiling the instrumented engine")?;
    let preludes = {
        let mut store = new_store(engine, state(Preludes::default()));
        let instance = linker
            .instantiate_async(&mut store, &component)
            .await
            .map_err(anyhow::Error::from)?;
        let page = bindings::Engine::new(&mut store, &instance).map_err(anyhow::Error::from)?;
        compile_preludes(&mut store, &page).await?
    };
    let mut store = new_store(engine, state(preludes));
    let instance = linker
        .instantiate_async(&mut store, &component)
        .await
        .map_err(anyhow::Error::from)?;
    bindings::Engine::new(&mut store, &instance)
        .map_err(anyhow::Error::from)?
        .fleet_engine_page()
        .call_initialize(&mut store)
        .await
        .map_err(anyhow::Error::from)?
        .map_err(|e| anyhow::anyhow!("the engine could not initialize: {e}"))?;
    let mut state = State {
        store: &mut store,
        instance,
        failed: None,
    };
    let snapshot = wizer
        .snapshot_component(&context, &mut state)
        .await
        .map_err(anyhow::Error::from)?;
    if let Some(failed) = state.failed {
        return Err(failed.context("reading the initialized engine's state"));
    }
    tracing::info!(
        ms = started.elapsed().as_millis() as u64,
        bytes = snapshot.len(),
        "pre-initialized the engine"
    );
    Ok(snapshot)
}

/// The initialized instance, read through the accessors Wizer's
/// instrumentation exports. Wizer's reads cannot fail, so the first failure
/// is kept here (the value read is then empty) and fails the snapshot.
struct State<'a> {
    store: &'a mut Store<TabState>,
    instance: Instance,
    failed: Option<anyhow::Error>,
}

impl State<'_> {
    /// Call the accessor `func` of the exported instance `instance`.
    async fn call<R: Lift + Send + Sync + 'static>(
        &mut self,
        instance: &str,
        func: &str,
    ) -> anyhow::Result<R> {
        let (_, parent) = self
            .instance
            .get_export(&mut *self.store, None, instance)
            .with_context(|| format!("no export {instance}"))?;
        let (_, index) = self
            .instance
            .get_export(&mut *self.store, Some(&parent), func)
            .with_context(|| format!("no export {instance}#{func}"))?;
        let typed = self
            .instance
            .get_typed_func::<(), (R,)>(&mut *self.store, index)
            .map_err(anyhow::Error::from)?;
        let (value,) = typed
            .call_async(&mut *self.store, ())
            .await
            .map_err(anyhow::Error::from)?;
        Ok(value)
    }

    /// A scalar accessor's value, or zero after recording why there is none.
    async fn scalar<R: Lift + Default + Send + Sync + 'static>(
        &mut self,
        instance: &str,
        func: &str,
    ) -> R {
        match self.call(instance, func).await {
            Ok(value) => value,
            Err(e) => {
                self.failed.get_or_insert(e);
                R::default()
            }
        }
    }
}

impl ComponentInstanceState for State<'_> {
    async fn call_func_ret_list_u8(
        &mut self,
        instance: &str,
        func: &str,
        contents: impl FnOnce(&[u8]) + Send,
    ) {
        match self.call::<WasmList<u8>>(instance, func).await {
            Ok(list) => contents(list.as_le_slice(&*self.store)),
            Err(e) => {
                self.failed.get_or_insert(e);
                contents(&[]);
            }
        }
    }

    async fn call_func_ret_s32(&mut self, instance: &str, func: &str) -> i32 {
        self.scalar(instance, func).await
    }

    async fn call_func_ret_s64(&mut self, instance: &str, func: &str) -> i64 {
        self.scalar(instance, func).await
    }

    async fn call_func_ret_f32(&mut self, instance: &str, func: &str) -> u32 {
        self.scalar::<f32>(instance, func).await.to_bits()
    }

    async fn call_func_ret_f64(&mut self, instance: &str, func: &str) -> u64 {
        self.scalar::<f64>(instance, func).await.to_bits()
    }
}
