//! deploy/compose.yaml, the fleet on one host without Kubernetes: no Docker
//! daemon runs here, so it is checked against the binary instead — every
//! variable is a flag of its service's subcommand, the workers are distinct and
//! dial-able by their service names, the stores are the compose services, and
//! the containers run as the image's non-root user on a read-only root.

use std::collections::BTreeSet;

use serde_json::Value;

use super::{env_flags, root};

fn compose() -> Value {
    let text = std::fs::read_to_string(root().join("deploy/compose.yaml")).unwrap();
    serde_saphyr::from_str(&text).expect("deploy/compose.yaml parses")
}

fn seconds(v: &Value) -> u64 {
    v.as_str()
        .and_then(|s| s.strip_suffix('s'))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

#[test]
fn the_compose_file_runs_one_gateway_and_two_workers_on_its_own_postgres_and_redis() {
    let c = compose();
    let services = c["services"].as_object().unwrap();
    let names: BTreeSet<&str> = services.keys().map(String::as_str).collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "gateway", "migrate", "postgres", "redis", "worker-1", "worker-2"
        ])
    );
    let pg = &services["postgres"]["environment"];
    let database_url = format!(
        "postgres://{}:{}@postgres:5432/{}",
        pg["POSTGRES_USER"].as_str().unwrap(),
        pg["POSTGRES_PASSWORD"].as_str().unwrap(),
        pg["POSTGRES_DB"].as_str().unwrap()
    );
    let mut images = BTreeSet::new();
    let mut worker_ids = BTreeSet::new();
    for (service, s) in services
        .iter()
        .filter(|(n, _)| !["postgres", "redis"].contains(&n.as_str()))
    {
        images.insert(s["image"].as_str().unwrap().to_owned());
        let sub = s["command"][0].as_str().unwrap();
        let flags = env_flags(sub);
        let env = s["environment"].as_object().unwrap();
        for var in env.keys() {
            assert!(
                flags.contains(var),
                "{service} sets {var}, which `servo-fleet {sub}` does not read"
            );
        }
        assert_eq!(
            env["FLEET_DATABASE_URL"],
            database_url.as_str(),
            "{service}"
        );
        if sub != "migrate" {
            assert_eq!(env["FLEET_REDIS_URL"], "redis://redis:6379", "{service}");
            assert_eq!(
                s["depends_on"]["migrate"]["condition"], "service_completed_successfully",
                "{service}"
            );
        }
        assert_eq!(s["read_only"], true, "{service}");
        assert_eq!(s["user"], "10001:10001", "{service}: the image's user");
        assert_eq!(s["cap_drop"], serde_json::json!(["ALL"]), "{service}");
        if sub == "worker" {
            let listen_port = env["FLEET_LISTEN"]
                .as_str()
                .unwrap()
                .rsplit(':')
                .next()
                .unwrap();
            assert_eq!(
                env["FLEET_ADVERTISE"],
                format!("http://{service}:{listen_port}").as_str(),
                "{service} must be dialled by its service name"
            );
            assert!(
                worker_ids.insert(env["FLEET_WORKER_ID"].as_str().unwrap().to_owned()),
                "{service}: duplicate worker id"
            );
            let cache = env["FLEET_ENGINE_CACHE_DIR"].as_str().unwrap();
            assert!(
                s["volumes"].as_array().unwrap().iter().any(|v| v
                    .as_str()
                    .is_some_and(|v| v.ends_with(&format!(":{cache}")))),
                "{service}: the engine cache is not on a volume (the root filesystem is read-only)"
            );
            // The default drain is 25 s.
            assert!(
                seconds(&s["stop_grace_period"]) > 25,
                "{service}: stop_grace_period shorter than the drain"
            );
        }
        if sub == "gateway" {
            assert!(
                seconds(&s["stop_grace_period"]) > 60,
                "the gateway's stop_grace_period is shorter than its request timeout"
            );
        }
    }
    assert_eq!(
        images.len(),
        1,
        "one image for every fleet service: {images:?}"
    );
    assert_eq!(worker_ids.len(), 2);
}
