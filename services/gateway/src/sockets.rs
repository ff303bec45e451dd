//! The gateway's long-lived sockets (live views and DevTools endpoints):
//! tracked, so a gateway that shuts down tells each client with a close code
//! it can retry on (1012, service restart) and waits briefly for them
//! instead of dropping them mid-message.

use std::future::Future;
use std::time::Duration;

use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The close code of a socket the gateway ends because it shuts down:
/// another replica will take the reconnect.
pub const CLOSE_RESTARTING: u16 = 1012;

/// Every open socket of one gateway.
#[derive(Clone, Debug, Default)]
pub struct Sockets {
    tracker: TaskTracker,
    closing: CancellationToken,
}

impl Sockets {
    /// Runs `socket` as one of the gateway's sockets.
    pub fn track_future<F: Future>(
        &self,
        socket: F,
    ) -> tokio_util::task::task_tracker::TrackedFuture<F> {
        self.tracker.track_future(socket)
    }

    /// Cancelled when the gateway begins to shut down.
    pub fn closing(&self) -> &CancellationToken {
        &self.closing
    }

    /// Asks every socket to close and waits up to `grace` for them.
    pub async fn close(&self, grace: Duration) {
        self.closing.cancel();
        self.tracker.close();
        if tokio::time::timeout(grace, self.tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                open = self.tracker.len(),
                "sockets still open at shutdown were dropped"
            );
        }
    }
}
