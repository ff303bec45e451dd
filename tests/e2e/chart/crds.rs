//! The chart's custom-resource kinds, which kubernetes-validate only warns about:
//! each is read into a struct with exactly the fields the chart may emit (named
//! as in the KEDA, Prometheus Operator and Gateway API CRDs), refusing any other
//! field, and checked against the objects it points at.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::{Rendering, ci_file, ci_files, name, render};

type Labels = BTreeMap<String, String>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Meta {
    name: String,
    namespace: String,
    labels: Labels,
    #[serde(default)]
    annotations: Labels,
}

/// An object of a custom kind: apiVersion, kind, metadata and a typed spec.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Object<S> {
    api_version: String,
    kind: String,
    metadata: Meta,
    spec: S,
}

// KEDA keda.sh/v1alpha1 ScaledObject.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScaledObjectSpec {
    scale_target_ref: TargetRef,
    min_replica_count: u32,
    max_replica_count: u32,
    polling_interval: u32,
    cooldown_period: u32,
    fallback: Fallback,
    advanced: Advanced,
    triggers: Vec<Trigger>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct TargetRef {
    api_version: String,
    kind: String,
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Fallback {
    failure_threshold: u32,
    replicas: u32,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Advanced {
    horizontal_pod_autoscaler_config: HpaConfig,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HpaConfig {
    behavior: Behavior,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Behavior {
    scale_down: ScalingRules,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScalingRules {
    stabilization_window_seconds: u32,
    policies: Vec<ScalingPolicy>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ScalingPolicy {
    #[serde(rename = "type")]
    kind: PolicyKind,
    value: u32,
    period_seconds: u32,
}

#[derive(Debug, Deserialize, PartialEq)]
enum PolicyKind {
    Pods,
    Percent,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Trigger {
    #[serde(rename = "type")]
    kind: String,
    metric_type: MetricType,
    /// KEDA's trigger metadata is a map of strings; a number would be refused.
    metadata: MetricsApi,
}

#[derive(Debug, Deserialize, PartialEq)]
enum MetricType {
    AverageValue,
    Value,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MetricsApi {
    url: String,
    value_location: String,
    target_value: String,
}

// Prometheus Operator monitoring.coreos.com/v1 ServiceMonitor and PrometheusRule.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ServiceMonitorSpec {
    selector: MatchLabels,
    namespace_selector: MatchNames,
    endpoints: Vec<Endpoint>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MatchLabels {
    match_labels: Labels,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct MatchNames {
    match_names: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Endpoint {
    port: String,
    path: String,
    interval: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PrometheusRuleSpec {
    groups: Vec<RuleGroup>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleGroup {
    name: String,
    rules: Vec<Rule>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    alert: String,
    expr: String,
    #[serde(rename = "for")]
    for_: String,
    labels: Labels,
    annotations: Labels,
}

// Gateway API gateway.networking.k8s.io/v1 HTTPRoute and GRPCRoute.

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct RouteSpec<R> {
    parent_refs: Vec<ParentRef>,
    #[serde(default)]
    hostnames: Vec<String>,
    rules: Vec<R>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ParentRef {
    name: String,
    namespace: Option<String>,
    section_name: Option<String>,
    port: Option<u16>,
    group: Option<String>,
    kind: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct HttpRule {
    matches: Vec<HttpMatch>,
    backend_refs: Vec<BackendRef>,
    timeouts: Timeouts,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct HttpMatch {
    path: PathMatch,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct PathMatch {
    #[serde(rename = "type")]
    kind: String,
    value: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Timeouts {
    request: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct GrpcRule {
    matches: Vec<GrpcMatch>,
    backend_refs: Vec<BackendRef>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GrpcMatch {
    method: MethodMatch,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MethodMatch {
    #[serde(rename = "type")]
    kind: String,
    service: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct BackendRef {
    name: String,
    port: u16,
}

/// Reads `o` as `Object<S>`, refusing unknown fields.
fn parse<S: DeserializeOwned>(o: &Value) -> Result<Object<S>, serde_json::Error> {
    serde_json::from_value(o.clone())
}

/// As [`parse`], naming the rendering and object on failure; checks the labels
/// every object carries.
fn strict<S: DeserializeOwned>(r: &Rendering, o: &Value) -> Object<S> {
    let object: Object<S> = parse(o).unwrap_or_else(|e| {
        panic!(
            "{}: {} {} has a field the CRD does not define or lacks one it needs: {e}",
            r.name,
            o["kind"],
            name(o)
        )
    });
    let labels = &object.metadata.labels;
    assert_eq!(
        labels.get("app.kubernetes.io/part-of").map(String::as_str),
        Some("servo-fleet")
    );
    assert_eq!(
        labels.get("app.kubernetes.io/instance").map(String::as_str),
        Some("fleet")
    );
    assert!(object.metadata.annotations.values().all(|v| !v.is_empty()));
    object
}

/// The Service named `service` and the port number of its port `port_name`.
fn service_port(r: &Rendering, service: &str, port_name: &str) -> u16 {
    let svc = r.one("Service", service);
    svc["spec"]["ports"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == port_name)
        .and_then(|p| p["port"].as_u64())
        .and_then(|p| u16::try_from(p).ok())
        .unwrap_or_else(|| panic!("{}: Service {service} has no port {port_name}", r.name))
}

fn check_scaled_object(r: &Rendering, o: &Value, values: &Value) {
    let so: Object<ScaledObjectSpec> = strict(r, o);
    assert_eq!(
        (so.api_version.as_str(), so.kind.as_str()),
        ("keda.sh/v1alpha1", "ScaledObject")
    );
    assert_eq!(so.metadata.namespace, "fleet");
    let target = &so.spec.scale_target_ref;
    assert_eq!(
        (target.api_version.as_str(), target.kind.as_str()),
        ("apps/v1", "Deployment")
    );
    let worker = r.one("Deployment", "-worker");
    assert_eq!(
        target.name,
        name(worker),
        "the ScaledObject scales the worker Deployment"
    );
    assert!(so.spec.min_replica_count <= so.spec.max_replica_count);
    assert!(so.spec.polling_interval > 0 && so.spec.cooldown_period > 0);
    assert!(so.spec.fallback.failure_threshold > 0 && so.spec.fallback.replicas > 0);
    let rules = &so
        .spec
        .advanced
        .horizontal_pod_autoscaler_config
        .behavior
        .scale_down;
    assert!(rules.stabilization_window_seconds <= 3600);
    assert!(rules.policies.iter().all(|p| p.kind == PolicyKind::Pods
        && p.value > 0
        && (1..=1800).contains(&p.period_seconds)));
    assert_eq!(so.spec.triggers.len(), 1);
    let t = &so.spec.triggers[0];
    assert_eq!(t.kind, "metrics-api");
    // Fallback replicas apply only to AverageValue triggers.
    assert_eq!(t.metric_type, MetricType::AverageValue);
    let url = reqwest::Url::parse(&t.metadata.url).expect("the trigger URL parses");
    let gateway = name(r.one("Service", "-gateway")).to_owned();
    assert_eq!(
        url.host_str(),
        Some(format!("{gateway}.fleet.svc").as_str())
    );
    assert_eq!(url.port(), Some(service_port(r, &gateway, "http")));
    assert_eq!(url.path(), "/scaling");
    assert_eq!(t.metadata.value_location, "sessions");
    let capacity = values["worker"]["capacity"].as_u64().unwrap();
    let percent = values["worker"]["autoscaling"]["keda"]["targetUtilizationPercent"]
        .as_u64()
        .unwrap();
    let target: u64 = t
        .metadata
        .target_value
        .parse()
        .expect("targetValue is a number");
    assert_eq!(
        target,
        (capacity * percent / 100).max(1),
        "sessions per worker"
    );
    // The worker Deployment's replicas belong to KEDA now.
    assert!(
        worker["spec"].get("replicas").is_none(),
        "{}: replicas set beside KEDA",
        r.name
    );
}

fn check_service_monitor(r: &Rendering, o: &Value) {
    let sm: Object<ServiceMonitorSpec> = strict(r, o);
    assert_eq!(sm.api_version, "monitoring.coreos.com/v1");
    assert_eq!(sm.spec.namespace_selector.match_names, ["fleet"]);
    let selector = serde_json::to_value(&sm.spec.selector.match_labels).unwrap();
    let services: Vec<&Value> = r
        .all("Service")
        .into_iter()
        .filter(|s| super::selects(&selector, &s["metadata"]["labels"]))
        .collect();
    assert_eq!(
        services.len(),
        1,
        "{}: ServiceMonitor {} selects {} Services",
        r.name,
        sm.metadata.name,
        services.len()
    );
    for e in &sm.spec.endpoints {
        assert_eq!(e.path, "/metrics");
        assert!(e.interval.ends_with('s') || e.interval.ends_with('m'));
        service_port(r, name(services[0]), &e.port);
    }
}

fn check_prometheus_rule(r: &Rendering, o: &Value) {
    let pr: Object<PrometheusRuleSpec> = strict(r, o);
    assert_eq!(pr.api_version, "monitoring.coreos.com/v1");
    for g in &pr.spec.groups {
        assert!(!g.name.is_empty() && !g.rules.is_empty());
        for rule in &g.rules {
            assert!(rule.alert.starts_with("ServoFleet"), "{}", rule.alert);
            assert!(
                rule.expr.contains("namespace=\"fleet\""),
                "{}: {}",
                rule.alert,
                rule.expr
            );
            assert!(rule.for_.ends_with('m'));
            assert!(
                rule.labels.contains_key("severity") && rule.annotations.contains_key("summary")
            );
        }
    }
}

/// The metric names the alerts read (checked against the real /metrics in the
/// contract test).
pub fn alert_metrics(r: &Rendering) -> Vec<String> {
    let pr: Object<PrometheusRuleSpec> = strict(r, r.one("PrometheusRule", ""));
    let mut names: Vec<String> = pr
        .spec
        .groups
        .iter()
        .flat_map(|g| &g.rules)
        .flat_map(|rule| {
            rule.expr
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .filter(|w| w.starts_with("fleet_"))
                .map(str::to_owned)
                .collect::<Vec<_>>()
        })
        .collect();
    names.sort();
    names.dedup();
    names
}

fn check_http_route(r: &Rendering, o: &Value, values: &Value) {
    let route: Object<RouteSpec<HttpRule>> = strict(r, o);
    assert_eq!(route.api_version, "gateway.networking.k8s.io/v1");
    assert!(
        !route.spec.parent_refs.is_empty()
            && route.spec.parent_refs.iter().all(|p| !p.name.is_empty())
    );
    let set = |f: &Option<String>| f.as_deref().is_none_or(|v| !v.is_empty());
    assert!(route.spec.parent_refs.iter().all(|p| set(&p.namespace)
        && set(&p.section_name)
        && set(&p.group)
        && set(&p.kind)
        && p.port.is_none_or(|p| p > 0)));
    assert!(!route.spec.hostnames.is_empty());
    let rule = &route.spec.rules[0];
    assert_eq!(
        (
            rule.matches[0].path.kind.as_str(),
            rule.matches[0].path.value.as_str()
        ),
        ("PathPrefix", "/mcp")
    );
    let backend = &rule.backend_refs[0];
    assert_eq!(backend.port, service_port(r, &backend.name, "http"));
    let timeout: u64 = rule.timeouts.request.trim_end_matches('s').parse().unwrap();
    let request_timeout = values["gateway"]["requestTimeoutSeconds"].as_u64().unwrap();
    assert!(
        timeout > request_timeout,
        "the route would cut calls the gateway still runs"
    );
}

fn check_grpc_route(r: &Rendering, o: &Value) {
    let route: Object<RouteSpec<GrpcRule>> = strict(r, o);
    assert_eq!(route.api_version, "gateway.networking.k8s.io/v1");
    let rule = &route.spec.rules[0];
    let m = &rule.matches[0].method;
    assert_eq!(m.kind, "Exact");
    // The service the route names is the one the gateway serves.
    let proto =
        std::fs::read_to_string(super::root().join("proto/fleet/v1/browser.proto")).unwrap();
    let (package, service) = m.service.rsplit_once('.').unwrap();
    assert!(
        proto.contains(&format!("package {package};")),
        "{}",
        m.service
    );
    assert!(
        proto.contains(&format!("service {service} {{")),
        "{}",
        m.service
    );
    let backend = &rule.backend_refs[0];
    assert_eq!(backend.port, service_port(r, &backend.name, "http"));
}

/// The values a rendering used: the chart's defaults under the CI file.
fn values_of(file: &std::path::Path) -> Value {
    let defaults: Value = serde_saphyr::from_str(
        &std::fs::read_to_string(super::chart_dir().join("values.yaml")).unwrap(),
    )
    .unwrap();
    let over: Value = serde_saphyr::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    merge(defaults, over)
}

fn merge(mut base: Value, over: Value) -> Value {
    match (base.as_object_mut(), over) {
        (Some(b), Value::Object(o)) => {
            for (k, v) in o {
                let merged = merge(b.remove(&k).unwrap_or(Value::Null), v);
                b.insert(k, merged);
            }
            base
        }
        (_, over) => over,
    }
}

#[test]
fn every_custom_resource_the_chart_renders_has_only_fields_its_crd_defines() {
    let mut seen = BTreeMap::<String, usize>::new();
    for (ci, file) in ci_files() {
        let r = render(&file, &[]);
        let values = values_of(&file);
        for o in &r.objects {
            let kind = o["kind"].as_str().unwrap_or_default();
            match kind {
                "ScaledObject" => check_scaled_object(&r, o, &values),
                "ServiceMonitor" => check_service_monitor(&r, o),
                "PrometheusRule" => check_prometheus_rule(&r, o),
                "HTTPRoute" => check_http_route(&r, o, &values),
                "GRPCRoute" => check_grpc_route(&r, o),
                _ => continue,
            }
            *seen.entry(format!("{ci}:{kind}")).or_default() += 1;
        }
    }
    // Each custom kind was rendered and checked at least once.
    for kind in [
        "ScaledObject",
        "ServiceMonitor",
        "PrometheusRule",
        "HTTPRoute",
        "GRPCRoute",
    ] {
        assert!(
            seen.keys().any(|k| k.ends_with(&format!(":{kind}"))),
            "no {kind} rendered: {seen:?}"
        );
    }
    assert_eq!(seen.get("keda:ScaledObject"), Some(&1));
    assert_eq!(seen.get("defaults:ServiceMonitor"), Some(&2));
}

#[test]
fn a_field_the_crd_does_not_define_is_refused() {
    let r = render(&ci_file("keda"), &[]);
    let rendered = r.one("ScaledObject", "-worker");
    assert!(parse::<ScaledObjectSpec>(rendered).is_ok());
    let mut so = rendered.clone();
    so["spec"]["minReplicas"] = serde_json::json!(1);
    let e = parse::<ScaledObjectSpec>(&so).unwrap_err().to_string();
    assert!(e.contains("unknown field `minReplicas`"), "{e}");
    let mut so = rendered.clone();
    so["spec"]["triggers"][0]["metadata"]["targetValue"] = serde_json::json!(24);
    assert!(
        parse::<ScaledObjectSpec>(&so).is_err(),
        "a number in KEDA's string map was accepted"
    );
    let r = render(&ci_file("keda"), &[]);
    let mut route = r.one("HTTPRoute", "-mcp").clone();
    route["spec"]["rules"][0]["filters"] = serde_json::json!([]);
    assert!(parse::<RouteSpec<HttpRule>>(&route).is_err());
}
