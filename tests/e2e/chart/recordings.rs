//! The chart's recordings values: the object store's settings and Secret
//! reach gateways and workers, recordings stay off without a store, and the
//! egress they open never reaches private ranges.

use super::cross::network_policy;
use super::{ci_file, container, containers, render, try_render};

#[test]
fn recordings_reach_gateways_and_workers_with_their_secret_and_stay_off_by_default() {
    let set = render(&ci_file("existing-secret"), &[]);
    for component in ["gateway", "worker"] {
        let d = set.one("Deployment", component);
        let spec = &d["spec"]["template"]["spec"];
        let env = container(spec, component)["env"].as_array().unwrap();
        let var = |n: &str| env.iter().find(|e| e["name"] == n).cloned();
        assert_eq!(
            var("FLEET_OBJECT_STORE").unwrap()["value"],
            "s3://fleet-recordings"
        );
        assert_eq!(var("FLEET_S3_ALLOW_HTTP").unwrap()["value"], "true");
        let key = var("FLEET_URL_SIGNING_KEY").unwrap();
        assert_eq!(
            key["valueFrom"]["secretKeyRef"]["name"], "fleet-recordings",
            "{component}: {key:#}"
        );
    }
    let defaults = render(&ci_file("defaults"), &[]);
    for (owner, spec) in defaults.pod_specs() {
        for c in containers(spec) {
            let env = c["env"].as_array().into_iter().flatten();
            assert!(
                env.clone().all(|e| e["name"] != "FLEET_OBJECT_STORE"),
                "{owner}: recordings are on without an object store"
            );
        }
    }
    let bad = try_render(
        &ci_file("defaults"),
        &["recordings.objectStore=file:///data".into()],
    );
    assert!(bad.is_err(), "a local folder is no store for a cluster");
}

#[test]
fn without_named_peers_gateways_reach_the_object_store_on_public_addresses_only() {
    let aws = render(
        &ci_file("defaults"),
        &["recordings.objectStore=s3://fleet-rec".into()],
    );
    let np = aws.one("NetworkPolicy", "gateway");
    let public = np["spec"]["egress"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["to"][0]["ipBlock"]["cidr"] == "0.0.0.0/0")
        .expect("a public egress rule for the object store");
    assert!(
        public["ports"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["port"] == 443)
    );
    let except = public["to"][0]["ipBlock"]["except"].as_array().unwrap();
    assert!(except.iter().any(|c| c == "10.0.0.0/8"), "{except:?}");
    // Every cross-object check of network policies still holds.
    let mut problems = Vec::new();
    network_policy(&aws, &mut problems);
    assert!(problems.is_empty(), "{problems:#?}");
    // Without recordings there is no such rule.
    let off = render(&ci_file("defaults"), &[]);
    let gateway = off.one("NetworkPolicy", "gateway");
    assert!(
        gateway["spec"]["egress"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["to"][0]["ipBlock"]["cidr"] != "0.0.0.0/0")
    );
}
