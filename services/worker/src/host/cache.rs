//! The compiled engine, cached on disk: Cranelift takes seconds to compile
//! the component, so a machine does it once per engine build and later
//! processes map the artifact.

use std::hash::{Hash, Hasher};
use std::path::Path;
use std::time::Instant;

use anyhow::Context as _;
use sha2::{Digest, Sha256};
use wasmtime::Engine;
use wasmtime::component::Component;

use super::ENGINE_WASM;

/// Compiles the component once per machine: the compiled artifact is cached under
/// `cache_dir`, keyed by the component's hash and the engine's compatibility hash,
/// and loaded with mmap (copy-on-write) afterwards.
pub(super) fn load_component(engine: &Engine, cache_dir: &Path) -> anyhow::Result<Component> {
    let mut compat = std::collections::hash_map::DefaultHasher::new();
    engine.precompile_compatibility_hash().hash(&mut compat);
    let key = format!(
        "{}-{:016x}",
        &hex::encode(Sha256::digest(ENGINE_WASM))[..16],
        compat.finish()
    );
    let path = cache_dir.join(format!("engine-{key}.cwasm"));
    if path.exists() {
        // SAFETY-free path: the file is ours, written by `precompile_component` of an
        // engine with the same compatibility hash; a corrupt file fails to load and we
        // recompile below.
        #[allow(unsafe_code)]
        match unsafe { Component::deserialize_file(engine, &path) } {
            Ok(c) => return Ok(c),
            Err(e) => {
                tracing::warn!(error = %e, path = %path.display(), "cached engine unusable; recompiling")
            }
        }
    }
    let started = Instant::now();
    let bytes = engine
        .precompile_component(ENGINE_WASM)
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
    let tmp = cache_dir.join(format!("engine-{key}.{}.{write}.tmp", std::process::id()));
    std::fs::write(&tmp, &bytes).with_context(|| format!("writing {}", tmp.display()))?;
    std::fs::rename(&tmp, &path).with_context(|| format!("renaming to {}", path.display()))?;
    #[allow(unsafe_code)]
    // SAFETY: `bytes` was produced just now by `precompile_component` of this engine.
    let component =
        unsafe { Component::deserialize_file(engine, &path) }.map_err(anyhow::Error::from)?;
    Ok(component)
}
