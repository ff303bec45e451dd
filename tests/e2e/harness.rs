//! Starts fleets for tests: a fresh Postgres database and Redis DB per fleet, the
//! gateway and worker processes, a fixture web server, and MCP clients. Missing
//! Postgres or Redis fails the test loudly; nothing is skipped.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

mod engine;
mod grpc;
mod mcp;
mod process;
pub use engine::{engine_host, engine_tab};
pub use grpc::grpc;
pub use mcp::{Client, act, call, eval, first, mcp};
pub use process::{Proc, run_cli, run_cli_env, sigterm, spawn};

pub const BIN: &str = env!("CARGO_BIN_EXE_servo-fleet");

fn admin_url() -> String {
    std::env::var("FLEET_TEST_DATABASE_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".into())
}

fn redis_base() -> String {
    std::env::var("FLEET_TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".into())
}

/// The engine compile cache shared by every process of the test run.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("FLEET_ENGINE_CACHE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| std::env::temp_dir().join("servo-fleet-test-engine-cache"))
}

/// A free loopback port for a process a test starts (outside the kernel's
/// ephemeral range, see `fleet_bench::fleet::free_port`).
pub fn free_port() -> u16 {
    fleet_bench::fleet::free_port().expect("a free loopback port")
}

/// Polls `check` until it returns Some or `deadline` passes.
pub async fn wait_for<T, F, Fut>(what: &str, deadline: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Option<T>>,
{
    let end = tokio::time::Instant::now() + deadline;
    loop {
        if let Some(v) = check().await {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < end,
            "timed out after {deadline:?} waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A process's `/metrics` text.
pub async fn metrics(base: &str) -> String {
    reqwest::get(format!("{base}/metrics"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

pub async fn http_ok(url: &str) -> bool {
    matches!(reqwest::get(url).await, Ok(r) if r.status().is_success())
}

/// A fresh, empty Postgres database; dropped when the value is dropped.
pub struct Database {
    pub url: String,
    name: String,
}

impl Database {
    pub async fn create() -> Self {
        let name = format!("fleet_e2e_{}", uuid::Uuid::new_v4().simple());
        let admin = admin_url();
        let mut conn = pg(&admin).await;
        sqlx::query(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("cannot create a test database through {admin}: {e}. Is PostgreSQL running? (`make services`)"));
        let base = admin.rsplit_once('/').map(|(b, _)| b.to_owned()).unwrap();
        Self {
            url: format!("{base}/{name}"),
            name,
        }
    }

    pub async fn connect(&self) -> sqlx::postgres::PgConnection {
        pg(&self.url).await
    }

    pub async fn query_count(&self, sql: &'static str) -> i64 {
        let mut conn = pg(&self.url).await;
        let row: (i64,) = sqlx::query_as(sql).fetch_one(&mut conn).await.unwrap();
        row.0
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let (admin, name) = (admin_url(), self.name.clone());
        // Best effort: a leftover database is harmless, so a failure is ignored.
        let _ = std::thread::spawn(move || {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            rt.block_on(async {
                use sqlx::Connection as _;
                if let Ok(mut c) = sqlx::postgres::PgConnection::connect(&admin).await {
                    let _ = sqlx::query(sqlx::AssertSqlSafe(format!(
                        "DROP DATABASE IF EXISTS {name} WITH (FORCE)"
                    )))
                    .execute(&mut c)
                    .await;
                }
            });
        })
        .join();
    }
}

async fn pg(url: &str) -> sqlx::postgres::PgConnection {
    use sqlx::Connection as _;
    sqlx::postgres::PgConnection::connect(url)
        .await
        .unwrap_or_else(|e| {
            panic!("cannot connect to PostgreSQL at {url}: {e}. Is it running? (`make services`)")
        })
}

/// Logical Redis databases the e2e fleets take turns on (0 is left alone, 15 is
/// the store crate's); a fleet holds one for its lifetime.
static FREE_DBS: std::sync::Mutex<Vec<u32>> = std::sync::Mutex::new(Vec::new());
static DBS_INIT: std::sync::Once = std::sync::Once::new();

/// A Redis database held by one fleet; handed back when dropped.
pub struct RedisDb(u32);

impl Drop for RedisDb {
    fn drop(&mut self) {
        FREE_DBS
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(self.0);
    }
}

/// A Redis logical database of its own, flushed at the start.
pub async fn fresh_redis() -> (String, redis::aio::MultiplexedConnection, RedisDb) {
    DBS_INIT.call_once(|| FREE_DBS.lock().unwrap().extend(1..15));
    let db = wait_for(
        "a free Redis database",
        Duration::from_secs(600),
        || async { FREE_DBS.lock().unwrap_or_else(|p| p.into_inner()).pop() },
    )
    .await;
    let guard = RedisDb(db);
    let url = format!("{}/{db}", redis_base());
    let client = redis::Client::open(url.as_str()).unwrap();
    let mut conn = client
        .get_multiplexed_async_connection()
        .await
        .unwrap_or_else(|e| {
            panic!("cannot connect to Redis at {url}: {e}. Is it running? (`make services`)")
        });
    let _: () = redis::cmd("FLUSHDB").query_async(&mut conn).await.unwrap();
    (url, conn, guard)
}

/// A gateway, workers, and the stores behind them.
pub struct Fleet {
    // Fields drop in this order: the processes first (each waits for its
    // exit), then the Postgres database, then the Redis database, so no
    // process of this fleet still uses either when it is dropped or handed on.
    /// Each worker's listen address and process.
    pub workers: Vec<(String, Proc)>,
    _gateway: Proc,
    pub db: Database,
    pub redis: redis::aio::MultiplexedConnection,
    pub redis_url: String,
    pub gateway: String,
    _redis_db: RedisDb,
}

impl Fleet {
    /// Starts a gateway and `n` workers that may reach loopback fixtures.
    pub async fn start(n: usize) -> Fleet {
        Self::start_with(n, &[]).await
    }

    /// As [`Fleet::start`], with extra environment for the workers.
    pub async fn start_with(n: usize, worker_env: &[(&str, &str)]) -> Fleet {
        Self::start_inner(n, worker_env, &[], None).await
    }

    /// As [`Fleet::start`], with extra environment for every process.
    pub async fn start_env(n: usize, env: &[(&str, &str)]) -> Fleet {
        Self::start_inner(n, env, env, None).await
    }

    /// As [`Fleet::start`], with the fleet's processes reaching Postgres and Redis
    /// only through the given proxy ports (the test reaches them directly) and the
    /// gateway given `env`.
    pub async fn start_through(n: usize, pg: u16, redis: u16, env: &[(&str, &str)]) -> Fleet {
        Self::start_inner(n, &[], env, Some((pg, redis))).await
    }

    async fn start_inner(
        n: usize,
        worker_env: &[(&str, &str)],
        gateway_env: &[(&str, &str)],
        through: Option<(u16, u16)>,
    ) -> Fleet {
        let db = Database::create().await;
        let (redis_url, redis, redis_db) = fresh_redis().await;
        let (ok, out, err) = run_cli(&["migrate", "--database-url", &db.url]).await;
        assert!(ok, "migrate failed: {out}{err}");
        let (db_url, fleet_redis_url) = match through {
            None => (db.url.clone(), redis_url.clone()),
            Some((pg, rd)) => (
                crate::proxy::with_port(&db.url, pg),
                crate::proxy::with_port(&redis_url, rd),
            ),
        };
        let workers = (0..n)
            .map(|i| {
                start_worker(
                    &db_url,
                    &fleet_redis_url,
                    &format!("worker-{i}"),
                    worker_env,
                )
            })
            .collect();
        let (base, gateway) = start_gateway_with(&db_url, &fleet_redis_url, gateway_env).await;
        wait_for_workers(&redis, n).await;
        wait_for_gateway_workers(&base, n).await;
        Fleet {
            db,
            redis,
            redis_url,
            gateway: base,
            workers,
            _gateway: gateway,
            _redis_db: redis_db,
        }
    }

    /// An MCP client with a fresh key of `tenant`.
    pub async fn client(&self, tenant: &str) -> Client {
        let key = self.key(tenant).await;
        mcp(&self.gateway, Some(&key)).await
    }

    pub async fn key(&self, tenant: &str) -> String {
        let (ok, out, err) = run_cli(&[
            "keys",
            "create",
            "--tenant",
            tenant,
            "--database-url",
            &self.db.url,
        ])
        .await;
        assert!(ok, "keys create failed: {err}");
        out.trim().to_owned()
    }

    /// Asks the gateway process to shut down, as Kubernetes does (SIGTERM).
    pub async fn stop_gateway(&self) {
        sigterm(&self._gateway).await;
    }

    /// Deletes a session's route, as a Redis flush would: its next call must
    /// restore it from the last checkpoint.
    pub async fn forget_route(&self, session: &str) {
        let mut conn = self.redis.clone();
        let _: () = redis::cmd("DEL")
            .arg(format!("route:{session}"))
            .query_async(&mut conn)
            .await
            .unwrap();
    }

    /// The worker that owns a session now, and its epoch.
    pub async fn route(&self, session: &str) -> (String, u64) {
        let mut conn = self.redis.clone();
        let (w, e): (Option<String>, Option<u64>) = redis::cmd("HMGET")
            .arg(format!("route:{session}"))
            .arg("worker")
            .arg("epoch")
            .query_async(&mut conn)
            .await
            .unwrap();
        (w.unwrap_or_default(), e.unwrap_or_default())
    }
}

/// The admin Postgres URL and the Redis base URL the tests use.
pub fn store_urls() -> (String, String) {
    (admin_url(), redis_base())
}

/// Starts a worker process named `id` on the given stores; returns its listen
/// address and process (it registers itself shortly after).
pub fn start_worker(
    database_url: &str,
    redis_url: &str,
    id: &str,
    extra_env: &[(&str, &str)],
) -> (String, Proc) {
    let listen = format!("127.0.0.1:{}", free_port());
    // Sessions get 256 MiB unless a test asks for another cap, or for the
    // worker's own default (`FLEET_SESSION_MEMORY_MB=default`: left unset).
    let memory = extra_env
        .iter()
        .find(|(k, _)| *k == "FLEET_SESSION_MEMORY_MB")
        .map_or("256", |(_, v)| v);
    let mut env = vec![
        ("FLEET_DATABASE_URL", database_url),
        ("FLEET_REDIS_URL", redis_url),
        ("FLEET_ALLOW_PRIVATE_NETWORK", "127.0.0.0/8"),
    ];
    if memory != "default" {
        env.push(("FLEET_SESSION_MEMORY_MB", memory));
    }
    env.extend(
        extra_env
            .iter()
            .filter(|(k, _)| *k != "FLEET_SESSION_MEMORY_MB"),
    );
    let args = [
        "worker",
        "--listen",
        &listen,
        "--worker-id",
        id,
        "--heartbeat-secs",
        "1",
    ];
    let p = spawn(id, &args, &env);
    (listen, p)
}

/// Starts a gateway on the given stores and waits until it is ready (a worker
/// has registered).
pub async fn start_gateway(database_url: &str, redis_url: &str) -> (String, Proc) {
    start_gateway_with(database_url, redis_url, &[]).await
}

/// As [`start_gateway`], with extra environment.
pub async fn start_gateway_with(
    database_url: &str,
    redis_url: &str,
    extra_env: &[(&str, &str)],
) -> (String, Proc) {
    let listen = format!("127.0.0.1:{}", free_port());
    let env = [
        &[
            ("FLEET_DATABASE_URL", database_url),
            ("FLEET_REDIS_URL", redis_url),
            ("FLEET_ALLOW_PRIVATE_NETWORK", "127.0.0.0/8"),
            // Expired sessions are swept within a second, so tests can watch it.
            ("FLEET_EXPIRY_SWEEP_SECS", "1"),
        ],
        extra_env,
    ]
    .concat();
    let gateway = spawn("gateway", &["gateway", "--listen", &listen], &env);
    let base = format!("http://{listen}");
    let ready = format!("{base}/readyz");
    // Ready means a worker is registered, and the first worker compiles the
    // engine (once per machine).
    wait_for(
        "the gateway to be ready",
        Duration::from_secs(600),
        || async { http_ok(&ready).await.then_some(()) },
    )
    .await;
    (base, gateway)
}

/// Waits until the gateway places sessions on `n` workers: its registry read
/// serves calls for a while, so one made before the last worker registered
/// would send every new session to the others.
pub async fn wait_for_gateway_workers(base: &str, n: usize) {
    let ready = format!("{base}/readyz");
    let plural = if n == 1 { "" } else { "s" };
    let expected = format!("ready: {n} worker{plural}");
    wait_for(
        "the gateway to see every worker",
        Duration::from_secs(30),
        || async {
            let body = reqwest::get(&ready).await.ok()?.text().await.ok()?;
            body.starts_with(&expected).then_some(())
        },
    )
    .await;
}

/// Waits until `n` workers are in the registry.
pub async fn wait_for_workers(redis: &redis::aio::MultiplexedConnection, n: usize) {
    // The first worker compiles the engine (once per machine); allow for it.
    wait_for("every worker to register", Duration::from_secs(600), || {
        let mut conn = redis.clone();
        async move {
            let n_live: usize = redis::cmd("ZCOUNT")
                .arg("workers")
                .arg(fleet_now_ms())
                .arg("+inf")
                .query_async(&mut conn)
                .await
                .ok()?;
            (n_live == n).then_some(())
        }
    })
    .await;
}

fn fleet_now_ms() -> i64 {
    i64::try_from(
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_millis(),
    )
    .unwrap()
}

/// A loopback web server with the test pages; returns its base URL.
pub async fn fixtures() -> String {
    use axum::response::Html;
    use axum::routing::get;
    let app = axum::Router::new()
        .route(
            "/",
            get(|| async {
                Html(
                    r#"<!doctype html><html><head><title>Fixture Home</title>
<style>body{font-family:sans-serif;margin:20px} h1{font-size:40px;color:#111} .box{display:flex;gap:10px}</style></head>
<body><h1>Hello from the fixture</h1>
<p>Plain   text    with
   collapsed whitespace.</p>
<div style="display:none">secret hidden text</div>
<div class="box"><a href="/about">About us</a> <a href="https://example.com/x">Elsewhere</a></div>
<script>document.title = document.title + " (scripted)";</script>
</body></html>"#,
                )
            }),
        )
        .route("/about", get(|| async { Html("<html><head><title>About</title></head><body><p>About page</p></body></html>") }))
        .route(
            "/login",
            get(|| async {
                (
                    axum::response::AppendHeaders([("set-cookie", "sid=s3cret; HttpOnly; Path=/")]),
                    Html("<title>Logged in</title><p>welcome</p>"),
                )
            }),
        )
        .route(
            "/login-as",
            get(|q: axum::extract::Query<std::collections::HashMap<String, String>>| async move {
                let v = q.get("v").cloned().unwrap_or_default();
                (
                    axum::response::AppendHeaders([(
                        "set-cookie",
                        format!("sid={v}; HttpOnly; Path=/; Max-Age=86400"),
                    )]),
                    Html("<title>Logged in</title><p>welcome</p>"),
                )
            }),
        )
        .route(
            "/app",
            get(|h: axum::http::HeaderMap| async move {
                // Echoes the cookies the request carried, so a reload shows the jar.
                let c = h.get("cookie").and_then(|v| v.to_str().ok()).unwrap_or("").to_owned();
                Html(format!(
                    "<!doctype html><title>app</title><p id=cookie>{c}</p>\
                     <form><input id=field name=field><input id=pw type=password></form>\
                     <div style='height:4000px'>tall</div>"
                ))
            }),
        )
        .route(
            "/whoami",
            get(|h: axum::http::HeaderMap| async move {
                let c = h.get("cookie").and_then(|v| v.to_str().ok()).unwrap_or("none").to_owned();
                Html(format!("<title>whoami</title><p>cookie: {c}</p>"))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr: SocketAddr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}")
}

/// Opens one tab per title (inline pages) in one call; returns their session IDs.
pub async fn open_tabs(client: &Client, titles: &[&str]) -> Vec<String> {
    let actions: Vec<Value> = titles
        .iter()
        .map(|t| json!({"html": format!("<title>{t}</title><p>{t}</p>")}))
        .collect();
    let (out, _) = call(client, "servo_navigate", json!({"actions": actions})).await;
    assert_eq!(out["metadata"]["successfulCount"], titles.len(), "{out:#}");
    (0..titles.len())
        .map(|i| {
            out["responses"][i]["sessionID"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect()
}

/// Opens a tab at `url`, which must load; returns its session ID and the
/// navigate response entry.
pub async fn open(client: &Client, url: &str) -> (String, Value) {
    let (out, _) = call(client, "servo_navigate", json!({"actions": [{"url": url}]})).await;
    let r = first(&out).clone();
    assert_eq!(r["ok"], true, "{out:#}");
    (r["sessionID"].as_str().unwrap().to_owned(), r)
}
