//! Keeps this worker's pod annotated with `controller.kubernetes.io/pod-deletion-cost`
//! equal to its live sessions, through the Kubernetes API, so that when the
//! Deployment scales down its ReplicaSet deletes the emptiest workers first and the
//! fewest sessions have to move. Active only when the pod's name and namespace are
//! configured (the chart passes them from the downward API).
//!
//! Rate-limited: the updater looks at the live count once per interval and patches
//! only a changed value. A failed patch (API unreachable, RBAC missing) is logged
//! and retried after a wait that doubles with each failure, up to [`MAX_BACKOFF`];
//! the fleet works meanwhile, only the order of scale-down suffers.

use std::time::Duration;

use anyhow::Context as _;
use k8s_openapi::api::core::v1::Pod;
use kube::api::{Api, Patch, PatchParams};
use tokio_util::sync::CancellationToken;

use crate::config::WorkerConfig;

/// The annotation a ReplicaSet reads when it chooses which pods to delete.
pub const ANNOTATION: &str = "controller.kubernetes.io/pod-deletion-cost";

/// The longest wait after failed updates.
pub const MAX_BACKOFF: Duration = Duration::from_secs(300);

/// Keeps one pod's deletion cost.
pub struct DeletionCost {
    pods: Api<Pod>,
    pod: String,
    interval: Duration,
    max_backoff: Duration,
}

impl DeletionCost {
    /// The updater of the configured pod, reaching the API with the pod's service
    /// account (or a kubeconfig when one is set); None when no pod is configured.
    pub async fn from_config(config: &WorkerConfig) -> anyhow::Result<Option<Self>> {
        let (Some(pod), Some(namespace)) = (&config.pod_name, &config.pod_namespace) else {
            return Ok(None);
        };
        let mut kube_config = kube::Config::infer().await.with_context(|| {
            format!(
                "--pod-name is set, so the worker keeps the deletion cost of pod {namespace}/{pod}, \
                 but no Kubernetes API credentials were found (the pod's service account token, \
                 or a KUBECONFIG); mount the token or unset --pod-name"
            )
        })?;
        // Our own backoff paces the retries.
        kube_config.default_retry = false;
        let client =
            kube::Client::try_from(kube_config).context("building the Kubernetes API client")?;
        Ok(Some(Self::new(
            client,
            namespace,
            pod,
            Duration::from_secs(config.deletion_cost_secs),
        )))
    }

    /// The updater of pod `namespace/pod`, looking every `interval`.
    pub fn new(client: kube::Client, namespace: &str, pod: &str, interval: Duration) -> Self {
        Self {
            pods: Api::namespaced(client, namespace),
            pod: pod.to_owned(),
            interval,
            max_backoff: MAX_BACKOFF,
        }
    }

    /// Caps the wait after failures at `max` instead of [`MAX_BACKOFF`].
    pub fn with_max_backoff(mut self, max: Duration) -> Self {
        self.max_backoff = max;
        self
    }

    /// Keeps the annotation equal to `live()` until `stop`.
    pub async fn run(self, live: impl Fn() -> u32 + Send, stop: CancellationToken) {
        let mut published = self.current().await;
        let mut failures = 0u32;
        loop {
            let n = live();
            if published != Some(n) {
                match self.patch(n).await {
                    Ok(()) => {
                        if failures > 0 {
                            tracing::info!(pod = %self.pod, cost = n, "pod deletion cost updated again");
                        }
                        published = Some(n);
                        failures = 0;
                    }
                    Err(e) => {
                        failures = failures.saturating_add(1);
                        tracing::warn!(
                            pod = %self.pod,
                            error = %e,
                            retry_in_secs = delay(self.interval, failures, self.max_backoff).as_secs_f64(),
                            "could not update the pod deletion cost"
                        );
                    }
                }
            }
            tokio::select! {
                () = stop.cancelled() => break,
                () = tokio::time::sleep(delay(self.interval, failures, self.max_backoff)) => {}
            }
        }
    }

    /// The value the pod carries now, if it can be read and parsed.
    async fn current(&self) -> Option<u32> {
        match self.pods.get_metadata(&self.pod).await {
            Ok(meta) => meta
                .metadata
                .annotations
                .as_ref()
                .and_then(|a| a.get(ANNOTATION))
                .and_then(|v| v.parse().ok()),
            Err(e) => {
                tracing::warn!(pod = %self.pod, error = %e, "could not read the pod's deletion cost");
                None
            }
        }
    }

    async fn patch(&self, cost: u32) -> Result<(), kube::Error> {
        let patch = serde_json::json!({
            "metadata": { "annotations": { ANNOTATION: cost.to_string() } }
        });
        self.pods
            .patch_metadata(&self.pod, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }
}

/// The wait before the next look: the interval, or after `failures` failed
/// updates in a row the interval doubled that many times, at most `max`.
pub fn delay(interval: Duration, failures: u32, max: Duration) -> Duration {
    if failures == 0 {
        return interval;
    }
    interval
        .saturating_mul(2u32.saturating_pow(failures.min(20)))
        .min(max.max(interval))
}

#[cfg(test)]
mod tests;
