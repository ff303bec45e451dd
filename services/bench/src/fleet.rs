//! The fleet under test: real `servo-fleet` processes (one gateway, N workers) on
//! Postgres and Redis, started from the running binary, reached over loopback,
//! and stopped when the [`Fleet`] is dropped.

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tokio::process::{Child, Command};

/// Where the fleet's stores and binary are.
#[derive(Debug, Clone)]
pub struct FleetConfig {
    /// The `servo-fleet` binary (the bench's own executable).
    pub binary: PathBuf,
    /// Postgres URL the bench may create sessions in.
    pub database_url: String,
    /// Redis URL.
    pub redis_url: String,
    /// Live sessions each worker may hold.
    pub capacity: u32,
    /// Environment for every process, after the fleet's own.
    pub extra_env: Vec<(String, String)>,
}

/// A running gateway and its workers.
pub struct Fleet {
    /// Base URL of the gateway (`http://127.0.0.1:port`).
    pub gateway: String,
    /// Each worker's base URL and process ID.
    pub workers: Vec<(String, u32)>,
    /// The tenant key the bench calls with.
    pub key: String,
    /// Redis, for reading routes and forgetting them.
    pub redis: redis::aio::MultiplexedConnection,
    /// The prefix of this fleet's worker ids: the process and a count of
    /// fleets it started, so a fleet started after another never reuses a
    /// worker id the registry may still hold.
    id_prefix: String,
    children: Vec<Child>,
}

/// A free loopback port for a process to listen on. Ports the kernel hands
/// out for port 0 are the ones outgoing connections (to Postgres, Redis, the
/// pages) take too, so one released here could be in use by the time the
/// process binds it. These come from the 12,000 ports just below the kernel's
/// ephemeral range, each handed out once per process (other processes start
/// elsewhere in the span), and checked free when handed out. The e2e tests
/// use it too.
pub fn free_port() -> anyhow::Result<u16> {
    static NEXT: AtomicU32 = AtomicU32::new(0);
    const SPAN: u32 = 12_000;
    let ephemeral_low = std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|r| r.split_whitespace().next()?.parse::<u32>().ok())
        .unwrap_or(32_768);
    anyhow::ensure!(
        ephemeral_low > SPAN + 1024,
        "the ephemeral port range starts at {ephemeral_low}: too low to keep listening ports out of it"
    );
    let first = ephemeral_low - SPAN;
    let offset = std::process::id() % SPAN;
    for _ in 0..SPAN {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let port = u16::try_from(first + (offset + n) % SPAN)?;
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            return Ok(port);
        }
    }
    bail!("no free loopback port below the ephemeral range")
}

impl Fleet {
    /// Starts a gateway and `workers` workers and waits until every one answers.
    pub async fn start(config: &FleetConfig, workers: usize) -> anyhow::Result<Fleet> {
        let redis_client =
            redis::Client::open(config.redis_url.as_str()).context("the Redis URL is not valid")?;
        // Nothing is flushed: an earlier run's worker registrations expire on
        // their own, and its routes name sessions this run never calls.
        let redis = redis_client
            .get_multiplexed_async_connection()
            .await
            .with_context(|| format!("Redis at {} does not answer", config.redis_url))?;

        let status = Command::new(&config.binary)
            .args(["migrate", "--database-url", &config.database_url])
            .stdout(Stdio::null())
            .status()
            .await
            .context("running servo-fleet migrate")?;
        if !status.success() {
            bail!("servo-fleet migrate failed against {}", config.database_url);
        }
        let out = Command::new(&config.binary)
            .args(["keys", "create", "--tenant", "bench"])
            .args(["--database-url", &config.database_url])
            .output()
            .await
            .context("running servo-fleet keys create")?;
        if !out.status.success() {
            bail!("servo-fleet keys create failed");
        }
        let key = String::from_utf8_lossy(&out.stdout).trim().to_owned();

        let env = [
            ("FLEET_DATABASE_URL", config.database_url.as_str()),
            ("FLEET_REDIS_URL", config.redis_url.as_str()),
            ("FLEET_ALLOW_PRIVATE_NETWORK", "127.0.0.0/8"),
            ("RUST_LOG", "warn"),
            // The load test's hundreds of concurrent sessions are one tenant:
            // limits high enough never to refuse, but still counted in Redis on
            // every call, so the figures include what limits cost.
            ("FLEET_TENANT_REQUESTS_PER_SECOND", "1000000"),
            ("FLEET_TENANT_BURST", "1000000"),
            ("FLEET_TENANT_MAX_IN_FLIGHT", "1000000"),
        ];
        static FLEETS: AtomicU32 = AtomicU32::new(0);
        let id_prefix = format!(
            "bench-{}-{}",
            std::process::id(),
            FLEETS.fetch_add(1, Ordering::Relaxed)
        );
        let mut children = Vec::new();
        let mut worker_urls = Vec::new();
        for i in 0..workers {
            let listen = format!("127.0.0.1:{}", free_port()?);
            let child = Command::new(&config.binary)
                .args(["worker", "--listen", &listen, "--heartbeat-secs", "1"])
                .args(["--worker-id", &format!("{id_prefix}-{i}")])
                .args(["--capacity", &config.capacity.to_string()])
                .envs(env)
                .envs(config.extra_env.iter().map(|(k, v)| (k, v)))
                .stdout(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .context("starting a worker")?;
            worker_urls.push((format!("http://{listen}"), child.id().unwrap_or(0)));
            children.push(child);
        }
        let listen = format!("127.0.0.1:{}", free_port()?);
        children.push(
            Command::new(&config.binary)
                .args(["gateway", "--listen", &listen])
                .envs(env)
                .envs(config.extra_env.iter().map(|(k, v)| (k, v)))
                .stdout(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .context("starting the gateway")?,
        );
        let mut fleet = Fleet {
            gateway: format!("http://{listen}"),
            workers: worker_urls,
            key,
            redis,
            id_prefix,
            children,
        };
        // The first start on a machine compiles the engine with Cranelift; allow for it.
        let deadline = Instant::now() + Duration::from_secs(600);
        let http = reqwest::Client::new();
        let bases: Vec<String> = std::iter::once(fleet.gateway.clone())
            .chain(fleet.workers.iter().map(|w| w.0.clone()))
            .collect();
        for base in &bases {
            loop {
                let ready = http
                    .get(format!("{base}/readyz"))
                    .send()
                    .await
                    .is_ok_and(|r| r.status().is_success());
                if ready {
                    break;
                }
                // A process that exited (a bad flag, a port taken) will never
                // answer: say so now rather than after the deadline.
                if let Some(status) = fleet.exited() {
                    bail!(
                        "a fleet process exited with {status} before it was ready (its stderr is above)"
                    );
                }
                if Instant::now() > deadline {
                    bail!("{base} did not become ready within 600 s");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        fleet.wait_for_registry(deadline).await?;
        Ok(fleet)
    }

    /// The exit status of the first of the fleet's processes that has exited.
    fn exited(&mut self) -> Option<std::process::ExitStatus> {
        self.children
            .iter_mut()
            .find_map(|child| child.try_wait().ok().flatten())
    }

    async fn wait_for_registry(&self, deadline: Instant) -> anyhow::Result<()> {
        let mut redis = self.redis.clone();
        for i in 0..self.workers.len() {
            let key = format!("worker:{}-{i}", self.id_prefix);
            loop {
                let registered: bool = redis::cmd("EXISTS")
                    .arg(&key)
                    .query_async(&mut redis)
                    .await
                    .unwrap_or(false);
                if registered {
                    break;
                }
                if Instant::now() > deadline {
                    bail!("worker {i} did not register in Redis");
                }
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        Ok(())
    }

    /// The worker and epoch that own a session now.
    pub async fn route(&self, session: &str) -> anyhow::Result<(String, u64)> {
        let mut redis = self.redis.clone();
        let (worker, epoch): (Option<String>, Option<u64>) = redis::cmd("HMGET")
            .arg(format!("route:{session}"))
            .arg("worker")
            .arg("epoch")
            .query_async(&mut redis)
            .await?;
        Ok((worker.unwrap_or_default(), epoch.unwrap_or_default()))
    }

    /// Drops a session's route, so its next call restores it from its checkpoint
    /// under a new epoch (the old owner's copy is discarded).
    pub async fn forget_route(&self, session: &str) -> anyhow::Result<()> {
        let mut redis = self.redis.clone();
        let () = redis::cmd("DEL")
            .arg(format!("route:{session}"))
            .query_async(&mut redis)
            .await?;
        Ok(())
    }

    /// Process IDs of the workers.
    pub fn worker_pids(&self) -> Vec<u32> {
        self.workers.iter().map(|w| w.1).collect()
    }

    /// Stops every process: SIGTERM first, so each worker drains and takes
    /// itself out of the registry (a later fleet on the same Redis must not be
    /// routed to it), then SIGKILL for any still running after 10 s.
    pub async fn stop(mut self) {
        for child in &self.children {
            let pid = child
                .id()
                .and_then(|p| i32::try_from(p).ok())
                .and_then(rustix::process::Pid::from_raw);
            if let Some(pid) = pid {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::TERM);
            }
        }
        for child in &mut self.children {
            if tokio::time::timeout(Duration::from_secs(10), child.wait())
                .await
                .is_err()
            {
                let _ = child.start_kill();
                let _ = child.wait().await;
            }
        }
    }
}
