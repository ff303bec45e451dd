//! The compiled engine, cached on disk: Cranelift takes seconds to compile
//! the component (and the pre-initialization, `preinit.rs`, compiles it
//! twice), so a machine does it once per engine build and later processes
//! map the artifact.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use anyhow::Context as _;
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use super::ENGINE_WASM;

/// Compiles the engine once per machine: the pre-initialized component
/// (`preinit.rs`) is made and compiled, and the artifact cached under
/// `cache_dir`, keyed by the engine component's hash and the engine's
/// compatibility hash, and loaded with mmap (copy-on-write) afterwards.
/// Should the pre-initialization fail, the engine as built is compiled
/// instead (cached under a name of its own): each tab then parses, loads and
/// compiles on its first document what the snapshot would have held, slower
/// and never wrong.
pub(super) fn load_component(
    engine: &Engine,
    cache_dir: &Path,
    initialize: impl FnOnce() -> anyhow::Result<Vec<u8>>,
) -> anyhow::Result<(Component, bool)> {
    let mut compat = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut compat);
    let key = format!(
        "{}-{:016x}",
        &hex::encode(Sha256::digest(ENGINE_WASM))[..16],
        compat.finish()
    );
    // Hosts of one process (the tests start several at once) wait for the
    // first to make the artifact, then load it, rather than each making it.
    static LOADING: Mutex<()> = Mutex::new(());
    let _loading = LOADING.lock().unwrap_or_else(PoisonError::into_inner);
    let initialized = cache_dir.join(format!("engine-{key}.initialized.cwasm"));
    if let Some(component) = cached(engine, &initialized) {
        return Ok((component, true));
    }
    match initialize() {
        Ok(wasm) => Ok((compile(engine, &wasm, cache_dir, &initialized)?, true)),
        Err(e) => {
            tracing::warn!(error = %format!("{e:#}"), "the engine could not be pre-initialized; each tab prepares itself on its first document");
            let plain = cache_dir.join(format!("engine-{key}.cwasm"));
            let component = match cached(engine, &plain) {
                Some(component) => component,
                None => compile(engine, ENGINE_WASM, cache_dir, &plain)?,
            };
            Ok((component, false))
        }
    }
}

/// The compiled component cached at `path`, if it is there and loads.
fn cached(engine: &Engine, path: &Path) -> Option<Component> {
    if !path.exists() {
        return None;
    }
    // The file is ours, written by `precompile_component` of an engine with
    // the same compatibility hash (its name says so); a corrupt file fails to
    // load and is compiled again.
    #[allow(unsafe_code)]
    match unsafe { Component::deserialize_file(engine, path) } {
        Ok(c) => Some(c),
        Err(e) => {
            tracing::warn!(error = %e, path = %path.display(), "cached engine unusable; recompiling");
            None
        }
    }
}

/// Compile `wasm`, write the artifact to `path` and load it from there.
fn compile(
    engine: &Engine,
    wasm: &[u8],
    cache_dir: &Path,
    path: &Path,
) -> anyhow::Result<Component> {
    let started = Instant::now();
    let bytes = engine
        .precompile_component(wasm)
        .map_err(anyhow::Error::from)?;
    tracing::info!(
        ms = started.elapsed().as_millis() as u64,
        "compiled the engine component"
    );
    std::fs::create_dir_all(cache_dir)
        .with_context(|| format!("creating {}", cache_dir.display()))?;
    // Unique per host, not only per process: two hosts in one process (the
    // tests run several) may compile at once, and must not write one file.
    static WRITES: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let write = WRITES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("engine");
    let tmp = cache_dir.join(format!("{name}.{}.{write}.tmp", std::process::id()));
    std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("renaming to {}", path.display()))?;
    #[allow(unsafe_code)]
    // SAFETY: `bytes` was produced just now by `precompile_component` of this engine.
    let component =
        unsafe { Component::deserialize_file(engine, path) }.map_err(anyhow::Error::from)?;
    Ok(component)
}
