//! Checks across the objects of each rendering, which no schema sees: selectors
//! select the pods they are meant for, ports name real container ports, drains
//! fit their grace periods, autoscaled workloads leave replicas alone, the
//! NetworkPolicy refuses private ranges, pods pass Pod Security "restricted",
//! only the worker mounts a token, and every FLEET_* variable is a real flag.
//! Each check returns the problems it found, so a test can break the chart and
//! watch the check name what broke.

use std::net::IpAddr;

use serde_json::Value;

use super::{
    Rendering, ci_file, ci_files, container, containers, env_flags, name, render, selects,
    try_render,
};

/// Every problem of a rendering.
pub fn problems(r: &Rendering) -> Vec<String> {
    let mut p = Vec::new();
    selectors(r, &mut p);
    services(r, &mut p);
    scaling(r, &mut p);
    grace(r, &mut p);
    network_policy(r, &mut p);
    pod_security(r, &mut p);
    tokens(r, &mut p);
    probes_and_resources(r, &mut p);
    p
}

fn labels_of_pods(r: &Rendering) -> Vec<(String, &Value)> {
    r.all("Deployment")
        .into_iter()
        .map(|d| {
            (
                name(d).to_owned(),
                &d["spec"]["template"]["metadata"]["labels"],
            )
        })
        .chain(
            r.all("Pod")
                .into_iter()
                .map(|p| (name(p).to_owned(), &p["metadata"]["labels"])),
        )
        .collect()
}

/// The workloads whose pods `selector` (matchLabels) selects.
fn selected(r: &Rendering, selector: &Value) -> Vec<String> {
    labels_of_pods(r)
        .into_iter()
        .filter(|(_, labels)| selects(selector, labels))
        .map(|(n, _)| n)
        .collect()
}

fn one_deployment(
    r: &Rendering,
    what: &str,
    selector: &Value,
    p: &mut Vec<String>,
) -> Option<String> {
    let found = selected(r, selector);
    if found.len() == 1 && r.all("Deployment").iter().any(|d| name(d) == found[0]) {
        Some(found[0].clone())
    } else {
        p.push(format!(
            "{what} selects {found:?}, not exactly one Deployment's pods"
        ));
        None
    }
}

fn selectors(r: &Rendering, p: &mut Vec<String>) {
    for d in r.all("Deployment") {
        let sel = &d["spec"]["selector"]["matchLabels"];
        if !selects(sel, &d["spec"]["template"]["metadata"]["labels"]) {
            p.push(format!(
                "Deployment {}: its selector does not match its pods",
                name(d)
            ));
        }
        for c in d["spec"]["template"]["spec"]["topologySpreadConstraints"]
            .as_array()
            .into_iter()
            .flatten()
        {
            if !selects(
                &c["labelSelector"]["matchLabels"],
                &d["spec"]["template"]["metadata"]["labels"],
            ) {
                p.push(format!(
                    "Deployment {}: a spread constraint does not select its pods",
                    name(d)
                ));
            }
        }
    }
    for pdb in r.all("PodDisruptionBudget") {
        one_deployment(
            r,
            &format!("PDB {}", name(pdb)),
            &pdb["spec"]["selector"]["matchLabels"],
            p,
        );
    }
}

fn deployment<'a>(r: &'a Rendering, n: &str) -> &'a Value {
    r.all("Deployment")
        .into_iter()
        .find(|d| name(d) == n)
        .unwrap()
}

fn services(r: &Rendering, p: &mut Vec<String>) {
    for svc in r.all("Service") {
        let what = format!("Service {}", name(svc));
        let Some(target) = one_deployment(r, &what, &svc["spec"]["selector"], p) else {
            continue;
        };
        let spec = &deployment(r, &target)["spec"]["template"]["spec"];
        let ports: Vec<&Value> = spec["containers"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| c["ports"].as_array().into_iter().flatten())
            .collect();
        for port in svc["spec"]["ports"].as_array().unwrap() {
            let t = &port["targetPort"];
            if !ports
                .iter()
                .any(|cp| cp["name"] == *t || cp["containerPort"] == *t)
            {
                p.push(format!(
                    "{what}: targetPort {t} is no container port of {target}"
                ));
            }
        }
    }
}

/// The autoscalers (HPA, ScaledObject) targeting each Deployment.
fn scalers_of<'a>(r: &'a Rendering, deployment: &str) -> Vec<&'a Value> {
    r.all("HorizontalPodAutoscaler")
        .into_iter()
        .chain(r.all("ScaledObject"))
        .filter(|s| s["spec"]["scaleTargetRef"]["name"] == deployment)
        .collect()
}

fn scaling(r: &Rendering, p: &mut Vec<String>) {
    for s in r
        .all("HorizontalPodAutoscaler")
        .into_iter()
        .chain(r.all("ScaledObject"))
    {
        let t = s["spec"]["scaleTargetRef"]["name"]
            .as_str()
            .unwrap_or_default();
        if !r.all("Deployment").iter().any(|d| name(d) == t) {
            p.push(format!(
                "{} {} scales {t}, which is not rendered",
                s["kind"],
                name(s)
            ));
        }
    }
    for d in r.all("Deployment") {
        let scalers = scalers_of(r, name(d));
        let replicas = d["spec"].get("replicas").is_some();
        match (scalers.len(), replicas) {
            (0, false) => p.push(format!(
                "Deployment {} has neither replicas nor an autoscaler",
                name(d)
            )),
            (1.., true) => p.push(format!(
                "Deployment {} sets replicas although it is autoscaled",
                name(d)
            )),
            (2.., _) => p.push(format!(
                "Deployment {} has {} autoscalers (HPA and KEDA both)",
                name(d),
                scalers.len()
            )),
            _ => {}
        }
    }
}

/// The value of an env var set literally on a container.
pub fn env<'a>(c: &'a Value, var: &str) -> Option<&'a str> {
    c["env"].as_array()?.iter().find(|e| e["name"] == var)?["value"].as_str()
}

fn cname(c: &Value) -> &str {
    c["name"].as_str().unwrap_or_default()
}

fn seconds(v: &Value) -> u64 {
    v.as_u64().unwrap_or_default()
}

fn grace(r: &Rendering, p: &mut Vec<String>) {
    for (component, drain_var) in [
        ("worker", "FLEET_DRAIN_SECS"),
        ("gateway", "FLEET_REQUEST_TIMEOUT_SECS"),
    ] {
        let d = r.one("Deployment", &format!("-{component}"));
        let spec = &d["spec"]["template"]["spec"];
        let c = container(spec, component);
        let grace = seconds(&spec["terminationGracePeriodSeconds"]);
        let pre_stop = seconds(&c["lifecycle"]["preStop"]["sleep"]["seconds"]);
        let drain: u64 = env(c, drain_var)
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX / 2);
        if grace <= pre_stop + drain {
            p.push(format!(
                "{component}: terminationGracePeriodSeconds {grace} is not above preStop {pre_stop} + {drain_var} {drain}"
            ));
        }
    }
}

/// Whether network `outer` contains network `inner` (both CIDR).
fn contains(outer: &str, inner: &str) -> bool {
    let parse = |c: &str| -> Option<(IpAddr, u32)> {
        let (ip, len) = c.split_once('/')?;
        Some((ip.parse().ok()?, len.parse().ok()?))
    };
    let (Some((o, ol)), Some((i, il))) = (parse(outer), parse(inner)) else {
        return false;
    };
    let bits = |ip: IpAddr| -> (u128, u32) {
        match ip {
            IpAddr::V4(v) => (u128::from(u32::from(v)), 32),
            IpAddr::V6(v) => (u128::from(v), 128),
        }
    };
    let ((ob, ow), (ib, iw)) = (bits(o), bits(i));
    if ow != iw || ol > il || ol > ow {
        return false;
    }
    let shift = ow - ol;
    shift >= 128 || (ob >> shift) == (ib >> shift)
}

/// Ranges a worker must never reach on its public-internet rule.
const MUST_DENY: &[&str] = &[
    "10.0.0.0/8",
    "172.16.0.0/12",
    "192.168.0.0/16",
    "169.254.0.0/16",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "fc00::/7",
    "fe80::/10",
    "::1/128",
];

pub(super) fn network_policy(r: &Rendering, p: &mut Vec<String>) {
    let policies = r.all("NetworkPolicy");
    if policies.is_empty() {
        return;
    }
    let worker = r.one("Deployment", "-worker");
    let worker_labels = &worker["spec"]["template"]["metadata"]["labels"];
    let grpc = container(&worker["spec"]["template"]["spec"], "worker")["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|port| port["name"] == "grpc")
        .map(|port| port["containerPort"].clone())
        .unwrap();
    // Every pod the chart runs is covered by a policy.
    for (pod, labels) in labels_of_pods(r) {
        if !policies
            .iter()
            .any(|np| selects(&np["spec"]["podSelector"]["matchLabels"], labels))
        {
            p.push(format!("no NetworkPolicy selects the pods of {pod}"));
        }
    }
    for np in policies {
        if !selects(&np["spec"]["podSelector"]["matchLabels"], worker_labels) {
            continue;
        }
        let what = format!("NetworkPolicy {}", name(np));
        // Ingress to the gRPC port: gateway pods only.
        for rule in np["spec"]["ingress"].as_array().into_iter().flatten() {
            let ports: Vec<&Value> = rule["ports"].as_array().into_iter().flatten().collect();
            if !ports.is_empty() && !ports.iter().any(|port| port["port"] == grpc) {
                continue;
            }
            let from: Vec<&Value> = rule["from"].as_array().into_iter().flatten().collect();
            if from.is_empty() {
                p.push(format!("{what}: anyone may reach the workers' gRPC port"));
            }
            for peer in from {
                let pods = selected(r, &peer["podSelector"]["matchLabels"]);
                if peer.get("ipBlock").is_some()
                    || peer.get("namespaceSelector").is_some()
                    || pods.len() != 1
                    || !pods[0].ends_with("-gateway")
                {
                    p.push(format!("{what}: {peer} may reach the workers' gRPC port"));
                }
            }
        }
        for rule in np["spec"]["egress"].as_array().into_iter().flatten() {
            let to: Vec<&Value> = rule["to"].as_array().into_iter().flatten().collect();
            let ports: Vec<u64> = rule["ports"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|x| x["port"].as_u64())
                .collect();
            if to.is_empty()
                && (ports.is_empty() || ports.iter().any(|x| ![53, 5432, 6379].contains(x)))
            {
                p.push(format!(
                    "{what}: an egress rule allows any address on ports {ports:?}"
                ));
            }
            for peer in to {
                let Some(cidr) = peer["ipBlock"]["cidr"].as_str() else {
                    continue;
                };
                let except: Vec<&str> = peer["ipBlock"]["except"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(Value::as_str)
                    .collect();
                for private in MUST_DENY {
                    if contains(cidr, private) && !except.iter().any(|e| contains(e, private)) {
                        p.push(format!("{what}: egress to {cidr} leaves {private} open"));
                    }
                }
            }
        }
    }
}

fn pod_security(r: &Rendering, p: &mut Vec<String>) {
    let allowed_volumes = [
        "emptyDir",
        "projected",
        "secret",
        "configMap",
        "downwardAPI",
    ];
    for (owner, spec) in r.pod_specs() {
        let psc = &spec["securityContext"];
        if psc["runAsNonRoot"] != true || psc["seccompProfile"]["type"] != "RuntimeDefault" {
            p.push(format!(
                "{owner}: the pod is not runAsNonRoot with seccomp RuntimeDefault"
            ));
        }
        for host in ["hostNetwork", "hostPID", "hostIPC"] {
            if spec[host] == true {
                p.push(format!("{owner}: {host}"));
            }
        }
        for v in spec["volumes"].as_array().into_iter().flatten() {
            let kind = v
                .as_object()
                .unwrap()
                .keys()
                .find(|k| *k != "name")
                .cloned()
                .unwrap_or_default();
            if !allowed_volumes.contains(&kind.as_str()) {
                p.push(format!("{owner}: volume {} is {kind}", v["name"]));
            }
        }
        for c in containers(spec) {
            let sc = &c["securityContext"];
            let drops_all = sc["capabilities"]["drop"]
                .as_array()
                .is_some_and(|d| d.iter().any(|x| x == "ALL"));
            if sc["allowPrivilegeEscalation"] != false
                || sc["readOnlyRootFilesystem"] != true
                || sc["runAsNonRoot"] != true
                || sc["privileged"] == true
                || !drops_all
                || sc["capabilities"].get("add").is_some()
            {
                p.push(format!("{owner}/{}: not restricted: {sc}", cname(c)));
            }
        }
    }
}

fn tokens(r: &Rendering, p: &mut Vec<String>) {
    let worker = r.one("Deployment", "-worker");
    let deletion_cost = container(&worker["spec"]["template"]["spec"], "worker")["env"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|e| e["name"] == "FLEET_POD_NAME");
    for (owner, spec) in r.pod_specs() {
        if spec["automountServiceAccountToken"] != false {
            p.push(format!(
                "{owner}: mounts the service account token automatically"
            ));
        }
        let projects_token = spec["volumes"].as_array().into_iter().flatten().any(|v| {
            v["projected"]["sources"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|s| s.get("serviceAccountToken").is_some())
        });
        let wants = owner.ends_with("-worker") && deletion_cost;
        if projects_token != wants {
            p.push(format!(
                "{owner}: token mounted = {projects_token}, needed = {wants}"
            ));
        }
    }
    let roles = r.all("Role");
    if !deletion_cost {
        if !roles.is_empty() {
            p.push("a Role without the deletion-cost updater".into());
        }
        return;
    }
    let expected =
        serde_json::json!([{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "patch"]}]);
    if roles.len() != 1 || roles[0]["rules"] != expected {
        p.push(format!(
            "the worker's Role is not exactly get/patch on pods: {roles:?}"
        ));
    }
    let worker_sa = worker["spec"]["template"]["spec"]["serviceAccountName"].clone();
    let bound = r.all("RoleBinding").iter().any(|b| {
        roles
            .first()
            .is_some_and(|role| b["roleRef"]["name"] == name(role))
            && b["subjects"][0]["name"] == worker_sa
    });
    if !bound {
        p.push("no RoleBinding gives the worker's service account the Role".into());
    }
}

fn probes_and_resources(r: &Rendering, p: &mut Vec<String>) {
    for d in r.all("Deployment") {
        let spec = &d["spec"]["template"]["spec"];
        for c in spec["containers"].as_array().unwrap() {
            let ports: Vec<&Value> = c["ports"].as_array().into_iter().flatten().collect();
            for probe in ["startupProbe", "readinessProbe", "livenessProbe"] {
                let get = &c[probe]["httpGet"];
                let port_ok = ports
                    .iter()
                    .any(|cp| cp["name"] == get["port"] || cp["containerPort"] == get["port"]);
                let path_ok = get["path"] == "/healthz" || get["path"] == "/readyz";
                if !port_ok || !path_ok {
                    p.push(format!(
                        "{}/{}: {probe} is not an HTTP probe on a container port: {}",
                        name(d),
                        cname(c),
                        c[probe]
                    ));
                }
            }
        }
    }
    for (owner, spec) in r.pod_specs() {
        for c in containers(spec) {
            let res = &c["resources"];
            if res["requests"]["cpu"].is_null()
                || res["requests"]["memory"].is_null()
                || res["limits"]["memory"].is_null()
            {
                p.push(format!(
                    "{owner}/{}: resources lack requests or a memory limit",
                    cname(c)
                ));
            }
        }
    }
}

#[test]
fn every_ci_rendering_passes_the_cross_object_checks() {
    for (ci, file) in ci_files() {
        let r = render(&file, &[]);
        let found = problems(&r);
        assert!(found.is_empty(), "{ci}:\n  {}", found.join("\n  "));
    }
}

#[test]
fn every_fleet_variable_the_chart_sets_is_a_flag_of_its_subcommand() {
    let mut checked = 0;
    for (ci, file) in ci_files() {
        let r = render(&file, &[]);
        for (owner, spec) in r.pod_specs() {
            for c in containers(spec) {
                let sub = c["args"][0]
                    .as_str()
                    .unwrap_or_else(|| panic!("{owner}: no subcommand"));
                let flags = env_flags(sub);
                for e in c["env"].as_array().into_iter().flatten() {
                    let var = e["name"].as_str().unwrap();
                    if var.starts_with("FLEET_") {
                        assert!(
                            flags.contains(var),
                            "{ci}: {owner}/{} sets {var}, which `servo-fleet {sub}` does not read",
                            cname(c)
                        );
                        checked += 1;
                    }
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} variables checked");
}

#[test]
fn a_grace_period_too_short_for_the_drain_is_refused() {
    let defaults = ci_file("defaults");
    // The defaults: preStop 2 s + drain 25 s for workers; 5 s + 60 s for gateways.
    let e = try_render(
        &defaults,
        &["worker.terminationGracePeriodSeconds=27".into()],
    )
    .err()
    .unwrap();
    assert!(
        e.contains("worker.terminationGracePeriodSeconds (27) must be larger than"),
        "{e}"
    );
    try_render(
        &defaults,
        &["worker.terminationGracePeriodSeconds=28".into()],
    )
    .unwrap();
    let e = try_render(&defaults, &["worker.drainSeconds=60".into()])
        .err()
        .unwrap();
    assert!(
        e.contains("the kubelet would kill workers before they drain"),
        "{e}"
    );
    let e = try_render(&defaults, &["gateway.requestTimeoutSeconds=90".into()])
        .err()
        .unwrap();
    assert!(
        e.contains("gateway.terminationGracePeriodSeconds (75) must be larger"),
        "{e}"
    );
}

#[test]
fn missing_store_urls_and_unknown_values_are_refused_by_name() {
    let empty = super::chart_dir().join("values.yaml");
    let e = try_render(&empty, &[]).err().unwrap();
    assert!(e.contains("set database.url"), "{e}");
    let e = try_render(&ci_file("defaults"), &["worker.capcity=10".into()])
        .err()
        .unwrap();
    assert!(
        e.contains("additional properties 'capcity' not allowed"),
        "{e}"
    );
    let e = try_render(
        &ci_file("defaults"),
        &["worker.autoscaling.mode=both".into()],
    )
    .err()
    .unwrap();
    assert!(e.contains("mode"), "{e}");
}

#[test]
fn each_autoscaling_mode_renders_exactly_one_way_of_setting_worker_replicas() {
    for (mode, hpa, keda) in [("none", 0, 0), ("hpa", 1, 0), ("keda", 0, 1)] {
        let r = render(
            &ci_file("defaults"),
            &[format!("worker.autoscaling.mode={mode}")],
        );
        let worker = name(r.one("Deployment", "-worker")).to_owned();
        let count = |kind: &str| {
            r.all(kind)
                .iter()
                .filter(|s| s["spec"]["scaleTargetRef"]["name"] == worker.as_str())
                .count()
        };
        assert_eq!(
            (count("HorizontalPodAutoscaler"), count("ScaledObject")),
            (hpa, keda),
            "{mode}"
        );
        assert_eq!(
            r.one("Deployment", "-worker")["spec"]
                .get("replicas")
                .is_some(),
            mode == "none",
            "{mode}"
        );
        assert!(problems(&r).is_empty(), "{mode}: {:?}", problems(&r));
    }
}

#[test]
fn the_checks_name_what_a_broken_chart_gets_wrong() {
    // A policy that forgets the private ranges.
    let r = render(
        &ci_file("defaults"),
        &["networkPolicy.worker.deniedRanges={169.254.0.0/16}".into()],
    );
    let found = problems(&r).join("\n");
    assert!(found.contains("leaves 10.0.0.0/8 open"), "{found}");
    assert!(found.contains("leaves 192.168.0.0/16 open"), "{found}");
    assert!(!found.contains("leaves 169.254.0.0/16 open"), "{found}");
    // A store rule that opens another port to every address.
    let r = render(
        &ci_file("defaults"),
        &["networkPolicy.database.ports={5432,443}".into()],
    );
    assert!(
        problems(&r)
            .join("\n")
            .contains("allows any address on ports [5432, 443]")
    );
    // A Deployment with replicas and an HPA.
    let mut r = render(&ci_file("hpa"), &[]);
    for o in &mut r.objects {
        if o["kind"] == "Deployment" && name(o).ends_with("-worker") {
            o["spec"]["replicas"] = serde_json::json!(3);
            o["spec"]["template"]["spec"]["containers"][0]["securityContext"]["readOnlyRootFilesystem"] =
                serde_json::json!(false);
        }
    }
    let found = problems(&r).join("\n");
    assert!(
        found.contains("sets replicas although it is autoscaled"),
        "{found}"
    );
    assert!(
        found.contains("fleet-servo-fleet-worker/worker: not restricted"),
        "{found}"
    );
    // A Service whose port names nothing.
    let mut r = render(&ci_file("defaults"), &[]);
    for o in &mut r.objects {
        if o["kind"] == "Service" && name(o).ends_with("-worker") {
            o["spec"]["ports"][1]["targetPort"] = serde_json::json!("metric");
        }
    }
    assert!(
        problems(&r)
            .join("\n")
            .contains("targetPort \"metric\" is no container port")
    );
}

#[test]
fn cidr_containment_covers_both_families_and_the_edges() {
    assert!(contains("0.0.0.0/0", "10.0.0.0/8"));
    assert!(contains("10.0.0.0/8", "10.1.2.0/24"));
    assert!(!contains("10.0.0.0/8", "11.0.0.0/8"));
    assert!(!contains("10.1.0.0/16", "10.0.0.0/8"));
    assert!(contains("::/0", "fc00::/7"));
    assert!(contains("fc00::/7", "fd12::/16"));
    assert!(!contains("0.0.0.0/0", "fc00::/7"));
}
