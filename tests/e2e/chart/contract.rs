//! The chart-to-binary contract: the real `servo-fleet` started exactly as the
//! chart's pods would start it — each container's args and env (secretKeyRefs
//! read from the rendered Secret, fieldRefs from the downward API's values, emptyDir
//! mounts mapped to local directories) and nothing else from this process's
//! environment — against the local Postgres and Redis. Every probe path must
//! answer, the helm test pod and the NOTES key command must work, KEDA's URL must
//! serve the value it reads, the deletion cost must reach a (fake) API server, and
//! SIGTERM must drain within the rendered grace period.

use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::AsyncBufReadExt as _;
use tokio::process::{Child, Command};

use super::pod_env::{Pod, UserSecrets, resolve_env};
use super::{ci_file, container, name, render};
use crate::harness::{BIN, Database, call, first, free_port, fresh_redis, mcp, wait_for};

const GATEWAY_POD: &str = "fleet-servo-fleet-gateway-7c9d8f6b4-x2x4k";
const WORKER_POD: &str = "fleet-servo-fleet-worker-5f6b7d9c8-q8w2z";

/// A process started as a container; its stderr is kept for failure messages.
struct Running {
    child: Child,
    log: Arc<Mutex<String>>,
    readers: Vec<tokio::task::JoinHandle<()>>,
    started: Instant,
}

impl Running {
    fn log(&self) -> String {
        let log = self.log.lock().unwrap();
        log.lines()
            .rev()
            .take(30)
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect::<Vec<_>>()
            .join("\n")
    }
}

fn start(c: &Value, env: &[(String, String)], extra: &[(&str, &str)]) -> Running {
    let args: Vec<&str> = c["args"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a.as_str().unwrap())
        .collect();
    let mut cmd = Command::new(BIN);
    cmd.args(&args)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .envs(env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
        .envs(extra.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let mut child = cmd.spawn().unwrap();
    let log = Arc::new(Mutex::new(String::new()));
    let mut readers = Vec::new();
    let streams: [Option<Box<dyn tokio::io::AsyncRead + Send + Unpin>>; 2] = [
        child.stderr.take().map(|s| Box::new(s) as _),
        child.stdout.take().map(|s| Box::new(s) as _),
    ];
    for stream in streams.into_iter().flatten() {
        let log = log.clone();
        readers.push(tokio::spawn(async move {
            let mut lines = tokio::io::BufReader::new(stream).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let mut l = log.lock().unwrap();
                l.push_str(&line);
                l.push('\n');
            }
        }));
    }
    Running {
        child,
        log,
        readers,
        started: Instant::now(),
    }
}

async fn run_to_end(c: &Value, env: &[(String, String)], extra: &[&str]) -> (bool, String) {
    let mut spec = c.clone();
    let args = spec["args"].as_array_mut().unwrap();
    args.extend(extra.iter().map(|a| json!(a)));
    let mut p = start(&spec, env, &[]);
    let status = tokio::time::timeout(Duration::from_secs(120), p.child.wait())
        .await
        .expect("a one-shot command hung")
        .unwrap();
    // The readers end at the pipes' end of file, after the last line.
    for reader in p.readers.drain(..) {
        reader.await.unwrap();
    }
    let log = p.log.lock().unwrap().clone();
    (status.success(), log)
}

/// Every HTTP probe of container `c`, as (kind, port, path, time budget).
fn probes(c: &Value) -> Vec<(String, u16, String, Duration)> {
    let ports = c["ports"].as_array().unwrap();
    ["startupProbe", "readinessProbe", "livenessProbe"]
        .iter()
        .map(|kind| {
            let probe = &c[*kind];
            let get = &probe["httpGet"];
            let port = ports
                .iter()
                .find(|p| p["name"] == get["port"] || p["containerPort"] == get["port"])
                .and_then(|p| p["containerPort"].as_u64())
                .unwrap_or_else(|| panic!("{kind} names no container port"));
            let period = probe["periodSeconds"].as_u64().unwrap_or(10);
            let failures = probe["failureThreshold"].as_u64().unwrap_or(3);
            (
                (*kind).to_owned(),
                u16::try_from(port).unwrap(),
                get["path"].as_str().unwrap().to_owned(),
                Duration::from_secs(period * failures),
            )
        })
        .collect()
}

async fn status_of(url: &str) -> Option<u16> {
    reqwest::get(url).await.ok().map(|r| r.status().as_u16())
}

/// Checks each probe answers 200: the startup probe within its budget from the
/// process start, the others at once.
async fn check_probes(what: &str, c: &Value, p: &Running) {
    for (kind, port, path, budget) in probes(c) {
        let url = format!("http://127.0.0.1:{port}{path}");
        if kind == "startupProbe" {
            let left = budget.saturating_sub(p.started.elapsed());
            let ok = tokio::time::timeout(left, async {
                while status_of(&url).await != Some(200) {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            })
            .await;
            assert!(
                ok.is_ok(),
                "{what}: {kind} {url} did not answer within {budget:?}:\n{}",
                p.log()
            );
        } else {
            assert_eq!(
                status_of(&url).await,
                Some(200),
                "{what}: {kind} {url}:\n{}",
                p.log()
            );
        }
    }
}

/// The patches a fake Kubernetes API server received for pods, as (pod, cost).
type Patches = Arc<Mutex<Vec<(String, String)>>>;

/// A fake API server for the deletion-cost updater and a kubeconfig naming it
/// (what the in-cluster service account is to a real pod).
async fn fake_kube_api() -> (Patches, std::path::PathBuf) {
    use axum::extract::{Path, State};
    let patches: Patches = Arc::default();
    let meta = |ns: &str, pod: &str| {
        axum::Json(
            json!({"apiVersion": "meta.k8s.io/v1", "kind": "PartialObjectMetadata", "metadata": {"name": pod, "namespace": ns}}),
        )
    };
    let app = axum::Router::new()
        .route(
            "/api/v1/namespaces/{ns}/pods/{pod}",
            axum::routing::get(move |Path((ns, pod)): Path<(String, String)>| async move {
                meta(&ns, &pod)
            })
            .patch(
                move |State(p): State<Patches>,
                      Path((ns, pod)): Path<(String, String)>,
                      body: String| async move {
                    let v: Value = serde_json::from_str(&body).unwrap_or_default();
                    let cost =
                        v["metadata"]["annotations"]["controller.kubernetes.io/pod-deletion-cost"]
                            .as_str()
                            .unwrap_or("?")
                            .to_owned();
                    p.lock().unwrap().push((format!("{ns}/{pod}"), cost));
                    meta(&ns, &pod)
                },
            ),
        )
        .with_state(patches.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    let kubeconfig =
        std::env::temp_dir().join(format!("fleet-kubeconfig-{}", uuid::Uuid::new_v4()));
    std::fs::write(
        &kubeconfig,
        format!(
            "apiVersion: v1\nkind: Config\ncurrent-context: fake\nclusters:\n- name: fake\n  cluster:\n    server: http://{addr}\n\
             contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: fake\n    namespace: fleet\nusers:\n- name: fake\n  user:\n    token: not-a-real-token\n"
        ),
    )
    .unwrap();
    (patches, kubeconfig)
}

async fn sigterm(p: &mut Running, bound: Duration) -> Duration {
    let pid = p.child.id().unwrap();
    let sent = Instant::now();
    let ok = Command::new("kill")
        .args(["-TERM", &pid.to_string()])
        .status()
        .await
        .unwrap();
    assert!(ok.success());
    let status = tokio::time::timeout(bound, p.child.wait())
        .await
        .unwrap_or_else(|_| panic!("did not exit within {bound:?} of SIGTERM:\n{}", p.log()))
        .unwrap();
    assert!(
        status.success(),
        "exited with {status} after SIGTERM:\n{}",
        p.log()
    );
    sent.elapsed()
}

/// Seconds the kubelet leaves for the process after SIGTERM: the grace period
/// counts from the start of preStop.
fn drain_bound(spec: &Value, c: &Value) -> Duration {
    let grace = spec["terminationGracePeriodSeconds"].as_u64().unwrap();
    let pre_stop = c["lifecycle"]["preStop"]["sleep"]["seconds"]
        .as_u64()
        .unwrap();
    Duration::from_secs(grace - pre_stop)
}

async fn scaling(base: &str) -> Value {
    reqwest::get(format!("{base}/scaling"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_binary_started_as_the_chart_renders_it_serves_every_probe_and_drains_in_its_grace_period()
 {
    let db = Database::create().await;
    let (redis_url, redis, _redis_db) = fresh_redis().await;
    let (gw_port, w_port, m_port) = (free_port(), free_port(), free_port());
    let r = render(
        &ci_file("defaults"),
        &[
            format!("gateway.port={gw_port}"),
            format!("worker.port={w_port}"),
            format!("worker.metricsPort={m_port}"),
            format!("database.url={}", db.url),
            format!("redis.url={redis_url}"),
            // So the test sees the deletion cost follow a session within seconds.
            "worker.deletionCost.intervalSeconds=1".into(),
            "worker.autoscaling.mode=keda".into(),
        ],
    );
    let gw_spec = &r.one("Deployment", "-gateway")["spec"]["template"]["spec"];
    let w_spec = &r.one("Deployment", "-worker")["spec"]["template"]["spec"];
    let gw_pod = Pod {
        name: GATEWAY_POD,
        spec: gw_spec,
    };
    let w_pod = Pod {
        name: WORKER_POD,
        spec: w_spec,
    };
    let mut user = UserSecrets::new();

    // Migrations: the init container, three gateways' worth at once.
    let migrate = container(gw_spec, "migrate");
    let migrate_env = resolve_env(&r, &gw_pod, migrate, &user);
    let (a, b, c) = tokio::join!(
        run_to_end(migrate, &migrate_env, &[]),
        run_to_end(migrate, &migrate_env, &[]),
        run_to_end(migrate, &migrate_env, &[])
    );
    for (ok, log) in [a, b, c] {
        assert!(ok, "a concurrent migrate failed:\n{log}");
    }
    let files = std::fs::read_dir(super::root().join("migrations"))
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "sql")
        })
        .count();
    assert_eq!(
        db.query_count("SELECT count(*) FROM _sqlx_migrations")
            .await,
        i64::try_from(files).unwrap()
    );

    // The worker, then the gateway: it is ready only once a worker registered.
    let (patches, kubeconfig) = fake_kube_api().await;
    let wc = container(w_spec, "worker");
    let w_env = resolve_env(&r, &w_pod, wc, &user);
    let mut worker = start(wc, &w_env, &[("KUBECONFIG", kubeconfig.to_str().unwrap())]);
    let gc = container(gw_spec, "gateway");
    let g_env = resolve_env(&r, &gw_pod, gc, &user);
    let mut gateway = start(gc, &g_env, &[]);
    check_probes("worker", wc, &worker).await;
    crate::harness::wait_for_workers(&redis, 1).await;
    check_probes("gateway", gc, &gateway).await;
    let entry: String = redis::cmd("GET")
        .arg(format!("worker:{WORKER_POD}"))
        .query_async(&mut redis.clone())
        .await
        .unwrap();
    let entry: Value = serde_json::from_str(&entry).unwrap();
    assert_eq!(
        entry["address"],
        format!("http://127.0.0.1:{w_port}"),
        "the registry names the pod and dials its IP"
    );

    // NOTES.txt's first step: a key, made with the gateway container's environment.
    let mut keys = gc.clone();
    keys["args"] = json!(["keys", "create", "--tenant", "my-team"]);
    let (ok, out) = run_to_end(&keys, &g_env, &[]).await;
    assert!(ok, "{out}");
    let key = out
        .lines()
        .find(|l| l.starts_with("sfk_"))
        .unwrap_or_else(|| panic!("no key in {out}"))
        .to_owned();

    // The helm test pod, with the key in the Secret NOTES.txt names.
    let test_pod = r.one("Pod", "-test-mcp");
    let smoke = container(&test_pod["spec"], "smoke");
    let secret = smoke["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "FLEET_API_KEY")
        .unwrap()["valueFrom"]["secretKeyRef"]
        .clone();
    user.insert(
        (
            secret["name"].as_str().unwrap().into(),
            secret["key"].as_str().unwrap().into(),
        ),
        key.clone(),
    );
    let mut smoke_env = resolve_env(
        &r,
        &Pod {
            name: name(test_pod),
            spec: &test_pod["spec"],
        },
        smoke,
        &user,
    );
    let gateway_service = name(r.one("Service", "-gateway"));
    for (k, v) in &mut smoke_env {
        if k == "FLEET_GATEWAY_URL" {
            assert_eq!(
                *v,
                format!("http://{gateway_service}.fleet.svc:{gw_port}"),
                "the test pod calls the gateway Service"
            );
            *v = format!("http://127.0.0.1:{gw_port}");
        }
    }
    let (ok, out) = run_to_end(smoke, &smoke_env, &[]).await;
    assert!(
        ok && out.contains("the fleet answers end to end"),
        "helm test failed:\n{out}\n{}",
        gateway.log()
    );

    // A live session: KEDA's value and the pod's deletion cost follow it. (The
    // smoke test's closed session stays in the worker's memory until it idles.)
    let base = format!("http://127.0.0.1:{gw_port}");
    let before = scaling(&base).await["sessions"].as_u64().unwrap();
    let client = mcp(&base, Some(&key)).await;
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<title>held</title>"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let session = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let so = r.one("ScaledObject", "-worker");
    let trigger = &so["spec"]["triggers"][0]["metadata"];
    let url = reqwest::Url::parse(trigger["url"].as_str().unwrap()).unwrap();
    assert_eq!(
        (url.host_str(), url.port()),
        (
            Some(format!("{gateway_service}.fleet.svc").as_str()),
            Some(gw_port)
        )
    );
    let location = trigger["valueLocation"].as_str().unwrap().to_owned();
    let capacity: u64 = super::cross::env(wc, "FLEET_CAPACITY")
        .unwrap()
        .parse()
        .unwrap();
    let scaling_url = format!("{base}{}", url.path());
    let report = wait_for(
        "/scaling to count the session",
        Duration::from_secs(20),
        || {
            let (scaling_url, location) = (scaling_url.clone(), location.clone());
            async move {
                let s = reqwest::get(scaling_url)
                    .await
                    .ok()?
                    .json::<Value>()
                    .await
                    .ok()?;
                (s[&location].as_u64() == Some(before + 1)).then_some(s)
            }
        },
    )
    .await;
    let live = report["liveSessions"].as_u64().unwrap();
    assert_eq!(
        (
            live,
            report["pendingSessions"].as_u64(),
            report["workers"].as_u64(),
            report["capacityPerWorker"].as_u64()
        ),
        (before + 1, Some(0), Some(1), Some(capacity)),
        "{report}"
    );
    let target: u64 = trigger["targetValue"].as_str().unwrap().parse().unwrap();
    assert_eq!(target, capacity * 75 / 100);
    wait_for(
        "the pod's deletion cost to follow its live sessions",
        Duration::from_secs(20),
        || async {
            patches
                .lock()
                .unwrap()
                .iter()
                .any(|(pod, cost)| {
                    pod == &format!("fleet/{WORKER_POD}") && *cost == live.to_string()
                })
                .then_some(())
        },
    )
    .await;

    // The metrics the ServiceMonitors scrape, with every metric the alerts read.
    let mut exported = String::new();
    for sm in r.all("ServiceMonitor") {
        let port = if name(sm).ends_with("-worker") {
            m_port
        } else {
            gw_port
        };
        let text = reqwest::get(format!("http://127.0.0.1:{port}/metrics"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        exported.push_str(&text);
    }
    for metric in super::crds::alert_metrics(&r) {
        assert!(
            exported.contains(&metric),
            "the alerts read {metric}, which no /metrics exports"
        );
    }

    // SIGTERM, as the kubelet sends it after preStop: the worker drains in time
    // and releases the session's route.
    let took = sigterm(&mut worker, drain_bound(w_spec, wc)).await;
    let (owner, _): (Option<String>, Option<u64>) = redis::cmd("HMGET")
        .arg(format!("route:{session}"))
        .arg("worker")
        .arg("epoch")
        .query_async(&mut redis.clone())
        .await
        .unwrap();
    assert_eq!(
        owner.as_deref(),
        Some(""),
        "the drained worker kept the route (drained in {took:?})"
    );

    // With no worker left, demand shows as pending: what brings KEDA back from zero.
    let (out, _) = call(
        &client,
        "servo_evaluate",
        json!({"actions": [{"sessionID": session, "script": "1"}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "UNAVAILABLE", "{out}");
    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<p>new</p>"}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "UNAVAILABLE", "{out}");
    // The gateway reads the worker registry at most once a second, so the
    // drained worker may still be counted for a moment.
    let s = wait_for(
        "/scaling to count no worker",
        Duration::from_secs(10),
        || {
            let base = base.clone();
            async move {
                let s = scaling(&base).await;
                (s["workers"].as_u64() == Some(0)).then_some(s)
            }
        },
    )
    .await;
    assert_eq!(
        (
            s["workers"].as_u64(),
            s["pendingSessions"].as_u64(),
            s[&location].as_u64()
        ),
        (Some(0), Some(2), Some(2)),
        "{s}"
    );

    sigterm(&mut gateway, drain_bound(gw_spec, gc)).await;
    let _ = std::fs::remove_file(kubeconfig);
}
