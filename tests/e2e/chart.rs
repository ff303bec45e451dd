//! The Helm chart (charts/servo-fleet) without a cluster: every CI values file
//! rendered by the real `helm`, the CRD kinds checked field by field, the objects
//! checked against each other, and the real binary started with what the chart
//! renders. `scripts/k8s-check.sh` runs the external validators on the same
//! renderings; `scripts/k8s-tools.sh` installs helm (make test runs both first).

mod compose;
mod contract;
mod crds;
mod cross;
mod pod_env;
mod recordings;

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

/// The repository's root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn chart_dir() -> PathBuf {
    root().join("charts/servo-fleet")
}

/// The pinned helm that scripts/k8s-tools.sh installed.
fn helm() -> PathBuf {
    let path = std::env::var_os("FLEET_HELM")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            let tools = std::env::var_os("FLEET_K8S_TOOLS")
                .map(PathBuf::from)
                .unwrap_or_else(|| {
                    PathBuf::from(std::env::var_os("HOME").expect("HOME is set"))
                        .join(".cache/servo-fleet/k8s-tools")
                });
            tools.join("bin/helm")
        });
    assert!(
        path.exists(),
        "helm is not installed at {}: run scripts/k8s-tools.sh (make test does), or set FLEET_HELM",
        path.display()
    );
    path
}

/// The Prometheus Operator's kinds, announced as a cluster with its CRDs would, so
/// the ServiceMonitors and the PrometheusRule render (KEDA and Gateway API objects
/// render whenever their values enable them), as in scripts/k8s-check.sh.
const API_VERSIONS: &[&str] = &[
    "monitoring.coreos.com/v1/ServiceMonitor",
    "monitoring.coreos.com/v1/PrometheusRule",
];

/// The CI values files, by name (`defaults` for `ci/defaults-values.yaml`).
pub fn ci_files() -> Vec<(String, PathBuf)> {
    let mut files: Vec<(String, PathBuf)> = std::fs::read_dir(chart_dir().join("ci"))
        .expect("charts/servo-fleet/ci")
        .map(|e| e.unwrap().path())
        .filter_map(|p| {
            let name = p
                .file_name()?
                .to_str()?
                .strip_suffix("-values.yaml")?
                .to_owned();
            Some((name, p))
        })
        .collect();
    files.sort();
    assert!(
        files.len() >= 5,
        "expected the CI values files, found {files:?}"
    );
    files
}

/// One rendering of the chart: every object it produced, in order.
pub struct Rendering {
    pub name: String,
    pub objects: Vec<Value>,
}

/// Runs `helm template` (release `fleet` in namespace `fleet`) with a values
/// file and `--set` overrides; the error is helm's stderr.
pub fn try_render(values: &Path, sets: &[String]) -> Result<Rendering, String> {
    let mut cmd = Command::new(helm());
    cmd.args(["template", "fleet"])
        .arg(chart_dir())
        .args(["--namespace", "fleet", "-f"])
        .arg(values);
    for api in API_VERSIONS {
        cmd.args(["--api-versions", api]);
    }
    for s in sets {
        cmd.args(["--set", s]);
    }
    let out = cmd.output().expect("running helm");
    if !out.status.success() {
        return Err(String::from_utf8_lossy(&out.stderr).into_owned());
    }
    let text = String::from_utf8(out.stdout).expect("helm prints UTF-8");
    let objects: Vec<Value> =
        serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("helm's YAML: {e}"));
    Ok(Rendering {
        name: values.display().to_string(),
        objects,
    })
}

pub fn render(values: &Path, sets: &[String]) -> Rendering {
    try_render(values, sets).unwrap_or_else(|e| panic!("helm template failed: {e}"))
}

pub fn ci_file(name: &str) -> PathBuf {
    chart_dir().join(format!("ci/{name}-values.yaml"))
}

impl Rendering {
    /// Objects of a kind.
    pub fn all(&self, kind: &str) -> Vec<&Value> {
        self.objects.iter().filter(|o| o["kind"] == kind).collect()
    }

    /// The one object of `kind` whose name ends with `suffix`.
    pub fn one(&self, kind: &str, suffix: &str) -> &Value {
        let found: Vec<&Value> = self
            .all(kind)
            .into_iter()
            .filter(|o| name(o).ends_with(suffix))
            .collect();
        assert_eq!(
            found.len(),
            1,
            "{}: expected one {kind} named *{suffix}, found {:?}",
            self.name,
            self.all(kind).iter().map(|o| name(o)).collect::<Vec<_>>()
        );
        found[0]
    }

    /// The pod template (or pod spec) of every workload, with its owner's name.
    pub fn pod_specs(&self) -> Vec<(String, &Value)> {
        self.objects
            .iter()
            .filter_map(|o| match o["kind"].as_str()? {
                "Deployment" => Some((name(o).to_owned(), &o["spec"]["template"]["spec"])),
                "Pod" => Some((name(o).to_owned(), &o["spec"])),
                _ => None,
            })
            .collect()
    }
}

pub fn name(o: &Value) -> &str {
    o["metadata"]["name"].as_str().unwrap_or_default()
}

/// The containers of a pod spec, init containers first.
pub fn containers(spec: &Value) -> Vec<&Value> {
    ["initContainers", "containers"]
        .iter()
        .flat_map(|k| spec[*k].as_array().into_iter().flatten())
        .collect()
}

/// The container called `name` in a pod spec.
pub fn container<'a>(spec: &'a Value, name: &str) -> &'a Value {
    containers(spec)
        .into_iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no container {name} in {spec:#}"))
}

/// The `FLEET_*` variables a subcommand of the real binary reads (from its --help).
pub fn env_flags(subcommand: &str) -> std::collections::BTreeSet<String> {
    let out = Command::new(crate::harness::BIN)
        .args([subcommand, "--help"])
        .output()
        .expect("running servo-fleet --help");
    assert!(
        out.status.success(),
        "servo-fleet {subcommand} --help failed"
    );
    let help = String::from_utf8_lossy(&out.stdout).into_owned();
    help.split("[env: ")
        .skip(1)
        .filter_map(|rest| rest.split(['=', ']']).next())
        .map(str::to_owned)
        .collect()
}

/// Whether `labels` has every entry of `selector` (a matchLabels map).
pub fn selects(selector: &Value, labels: &Value) -> bool {
    let Some(sel) = selector.as_object() else {
        return false;
    };
    !sel.is_empty() && sel.iter().all(|(k, v)| labels.get(k) == Some(v))
}
