//! What the kubelet would give a chart's container: its env with `value`s
//! expanded, `fieldRef`s from the downward API's values, `secretKeyRef`s read from
//! the rendered Secrets (or those the user creates beside the chart), and paths on
//! emptyDir mounts mapped to local directories.

use std::collections::BTreeMap;

use serde_json::Value;

use super::{Rendering, name};

/// What the kubelet would know about one pod.
pub(super) struct Pod<'a> {
    pub(super) name: &'a str,
    pub(super) spec: &'a Value,
}

/// Secrets the user creates beside the chart (NOTES.txt tells how), by name and key.
pub(super) type UserSecrets = BTreeMap<(String, String), String>;

/// The environment the kubelet would give container `c` of `pod`.
pub(super) fn resolve_env(
    r: &Rendering,
    pod: &Pod,
    c: &Value,
    user: &UserSecrets,
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = Vec::new();
    for e in c["env"].as_array().into_iter().flatten() {
        let var = e["name"].as_str().unwrap().to_owned();
        let value = if let Some(v) = e["value"].as_str() {
            expand(v, &env)
        } else if let Some(field) = e["valueFrom"]["fieldRef"]["fieldPath"].as_str() {
            match field {
                "metadata.name" => pod.name.to_owned(),
                "metadata.namespace" => "fleet".to_owned(),
                "status.podIP" => "127.0.0.1".to_owned(),
                other => panic!("{var}: the test does not know fieldRef {other}"),
            }
        } else if let Some(sk) = e["valueFrom"]["secretKeyRef"].as_object() {
            let (secret, key) = (sk["name"].as_str().unwrap(), sk["key"].as_str().unwrap());
            secret_value(r, secret, key)
                .or_else(|| user.get(&(secret.to_owned(), key.to_owned())).cloned())
                .unwrap_or_else(|| panic!("{var}: Secret {secret} key {key} is neither rendered nor one the user creates"))
        } else {
            panic!("{var}: an env source the test does not know: {e}")
        };
        env.push((var, map_mounts(pod, c, &value)));
    }
    env
}

/// `$(VAR)` references to earlier variables, as the kubelet expands them.
fn expand(value: &str, env: &[(String, String)]) -> String {
    env.iter().fold(value.to_owned(), |v, (k, x)| {
        v.replace(&format!("$({k})"), x)
    })
}

fn secret_value(r: &Rendering, secret: &str, key: &str) -> Option<String> {
    let s = r.all("Secret").into_iter().find(|s| name(s) == secret)?;
    s["stringData"][key].as_str().map(str::to_owned)
}

/// A path inside an emptyDir mount becomes the same path in a local directory
/// (the engine cache maps to this test run's shared, already compiled one).
fn map_mounts(pod: &Pod, c: &Value, value: &str) -> String {
    for m in c["volumeMounts"].as_array().into_iter().flatten() {
        let path = m["mountPath"].as_str().unwrap();
        let Some(rest) = value.strip_prefix(path) else {
            continue;
        };
        let volume = pod.spec["volumes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|v| v["name"] == m["name"])
            .unwrap();
        assert!(
            volume.get("emptyDir").is_some(),
            "{value} is on volume {volume}, not an emptyDir"
        );
        assert_ne!(m["readOnly"], true, "{value} is on a read-only mount");
        let local = if m["name"] == "engine-cache" {
            crate::harness::cache_dir()
        } else {
            std::env::temp_dir().join(format!(
                "fleet-chart-{}-{}",
                m["name"].as_str().unwrap(),
                uuid::Uuid::new_v4()
            ))
        };
        return format!("{}{rest}", local.display());
    }
    value.to_owned()
}
