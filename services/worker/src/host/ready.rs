//! The tab a worker keeps ready for its next session: instantiated and its
//! viewport set, so neither is on a create's or a restore's path. One at a
//! time; each one taken is replaced in the background. It holds one engine
//! instance of memory, whatever the number of sessions. Its first realm is
//! made already: every tab starts from the pre-initialized engine
//! (`preinit.rs`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use super::{EngineHost, Tab, Viewport};

/// The viewport a ready tab is made with; a session sets its own.
const READY_VIEWPORT: Viewport = Viewport {
    width: 1280,
    height: 720,
};

/// The ready tab, and whether one is being made.
#[derive(Default)]
pub(super) struct Ready {
    tab: Mutex<Option<Tab>>,
    making: AtomicBool,
}

impl Ready {
    fn take(&self) -> Option<Tab> {
        // Holds a plain value: a panic elsewhere cannot leave it half-written.
        self.tab.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    fn put(&self, tab: Tab) {
        *self.tab.lock().unwrap_or_else(|p| p.into_inner()) = Some(tab);
    }
}

impl EngineHost {
    /// A tab for a new or restored session: the ready one if there is one
    /// (set to `viewport`), a new one otherwise; either way the next ready
    /// one is made in the background.
    pub async fn session_tab(&self, viewport: Viewport) -> anyhow::Result<Tab> {
        let ready = self.ready.take();
        self.make_ready();
        match ready {
            Some(mut tab) => {
                tab.set_viewport(viewport).await?;
                Ok(tab)
            }
            None => self.new_tab(viewport).await,
        }
    }

    /// Whether a tab is ready for the next session.
    pub fn has_ready_tab(&self) -> bool {
        self.ready
            .tab
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .is_some()
    }

    /// Makes the ready tab in the background, unless there is one or one is
    /// being made.
    pub fn make_ready(&self) {
        if self.ready.making.swap(true, Ordering::AcqRel) {
            return;
        }
        let host = self.clone();
        tokio::spawn(async move {
            match host.new_tab(READY_VIEWPORT).await {
                Ok(tab) => host.ready.put(tab),
                Err(e) => tracing::warn!(error = %e, "could not make a tab ready"),
            }
            host.ready.making.store(false, Ordering::Release);
        });
    }
}
