//! Running a `wasi:cli/command` component: how `cargo test --target
//! wasm32-wasip2 -p fleet-engine` runs the engine's unit tests (through
//! `fleet-wasi-run`), with the engine's imports answered as a test needs.

use std::path::Path;

use anyhow::Context as _;
use wasmtime::component::{Component, HasSelf, Linker, ResourceTable};
use wasmtime::{Config, Engine, Store};
use wasmtime_wasi::{WasiCtx, WasiCtxBuilder, WasiCtxView, WasiView};

use super::bindings;

/// Runs a `wasi:cli/command` component to its end with this process's stdio,
/// environment and `args` (its own name first), and returns whether it
/// succeeded. The engine's unit tests build to such a component, and
/// `fleet-wasi-run` runs them with this: `make test` sets it as cargo's
/// runner for `wasm32-wasip2`. The engine's network import answers every
/// fetch with an error.
pub async fn run_command(path: &Path, args: &[String]) -> anyhow::Result<bool> {
    let mut wc = Config::new();
    // The guest's deep recursion needs what the tabs get (see `EngineHost::new`).
    wc.max_wasm_stack(16 << 20).async_stack_size(17 << 20);
    let engine = Engine::new(&wc).map_err(anyhow::Error::from)?;
    let component = Component::from_file(&engine, path)
        .map_err(anyhow::Error::from)
        .with_context(|| format!("loading {}", path.display()))?;
    let mut linker: Linker<CommandState> = Linker::new(&engine);
    wasmtime_wasi::p2::add_to_linker_async(&mut linker).map_err(anyhow::Error::from)?;
    bindings::fleet::engine::network::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)
        .map_err(anyhow::Error::from)?;
    bindings::fleet::engine::preludes::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)
        .map_err(anyhow::Error::from)?;
    bindings::fleet::engine::code_cache::add_to_linker::<_, HasSelf<_>>(&mut linker, |s| s)
        .map_err(anyhow::Error::from)?;
    let mut wasi = WasiCtxBuilder::new();
    wasi.inherit_stdio().inherit_env().args(args);
    let mut store = Store::new(
        &engine,
        CommandState {
            wasi: wasi.build(),
            table: ResourceTable::new(),
        },
    );
    let command =
        wasmtime_wasi::p2::bindings::Command::instantiate_async(&mut store, &component, &linker)
            .await
            .map_err(anyhow::Error::from)?;
    let ran = command
        .wasi_cli_run()
        .call_run(&mut store)
        .await
        .map_err(anyhow::Error::from)?;
    Ok(ran.is_ok())
}

/// Unit tests have no network: a fetch fails as an unreachable host would,
/// the cookie jar is empty, and no download is kept.
impl bindings::fleet::engine::network::Host for CommandState {
    async fn fetch(
        &mut self,
        _: bindings::fleet::engine::network::Request,
    ) -> Result<bindings::fleet::engine::network::Response, String> {
        Err("the engine's unit tests have no network".into())
    }

    async fn keep_download(
        &mut self,
        filename: String,
        _: String,
        _: Vec<u8>,
        _: String,
    ) -> bindings::fleet::engine::network::SavedDownload {
        bindings::fleet::engine::network::SavedDownload {
            filename,
            size: 0,
            error: Some("the engine's unit tests keep no downloads".into()),
        }
    }

    async fn document_cookies(&mut self, _: String) -> String {
        String::new()
    }

    async fn set_document_cookie(&mut self, _: String, _: String) {}
}

/// Unit tests compile the preludes they use themselves.
impl bindings::fleet::engine::preludes::Host for CommandState {
    async fn bytecode(&mut self, _: String) -> Option<Vec<u8>> {
        None
    }
}

/// Unit tests compile every script they run: there is no code cache.
impl bindings::fleet::engine::code_cache::Host for CommandState {
    async fn script(&mut self, _: String, _: String) -> Option<Vec<u8>> {
        None
    }
}

/// The state of a command run by [`run_command`]: WASI, and no network.
struct CommandState {
    wasi: WasiCtx,
    table: ResourceTable,
}

impl WasiView for CommandState {
    fn ctx(&mut self) -> WasiCtxView<'_> {
        WasiCtxView {
            ctx: &mut self.wasi,
            table: &mut self.table,
        }
    }
}
