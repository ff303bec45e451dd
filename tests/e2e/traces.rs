//! Traces across processes: the real gateway and worker export spans with OTLP
//! to a receiver in this test; one call's spans form one trace from the
//! client's `traceparent` to the engine, with the right parents and a service
//! name per process. An MCP request's `params._meta.traceparent` wins over the
//! HTTP header.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};
use opentelemetry_proto::tonic::common::v1::any_value;
use serde_json::{Value, json};

use crate::harness::Fleet;

/// A span as received: its process's service name, name, IDs (hex).
#[derive(Debug, Clone)]
struct Got {
    service: String,
    name: String,
    trace: String,
    id: String,
    parent: String,
}

#[derive(Clone, Default)]
struct Receiver {
    spans: Arc<Mutex<Vec<Got>>>,
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[tonic::async_trait]
impl TraceService for Receiver {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let mut spans = self.spans.lock().unwrap();
        for rs in request.into_inner().resource_spans {
            let service = rs
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|a| a.key == "service.name")
                .and_then(|a| match a.value.as_ref()?.value.as_ref()? {
                    any_value::Value::StringValue(s) => Some(s.clone()),
                    _ => None,
                })
                .unwrap_or_default();
            for span in rs.scope_spans.into_iter().flat_map(|s| s.spans) {
                spans.push(Got {
                    service: service.clone(),
                    name: span.name,
                    trace: hex(&span.trace_id),
                    id: hex(&span.span_id),
                    parent: hex(&span.parent_span_id),
                });
            }
        }
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

async fn receiver() -> (String, Receiver) {
    let r = Receiver::default();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let service = TraceServiceServer::new(r.clone());
    tokio::spawn(async move {
        tonic::transport::Server::builder()
            .add_service(service)
            .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
            .await
            .unwrap();
    });
    (format!("http://{addr}"), r)
}

/// Calls `servo_navigate` over raw MCP HTTP with the given trace context.
async fn navigate(gateway: &str, key: &str, header: Option<&str>, meta: Option<&str>) {
    let mut params = json!({"name": "servo_navigate", "arguments": {"actions": [{"html": "<title>traced</title>"}]}});
    if let Some(m) = meta {
        params["_meta"] = json!({"traceparent": m});
    }
    let mut req = reqwest::Client::new()
        .post(format!("{gateway}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .header("authorization", format!("Bearer {key}"))
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": params}));
    if let Some(h) = header {
        req = req.header("traceparent", h);
    }
    let resp = req.send().await.unwrap();
    assert_eq!(resp.status(), 200);
    let body: Value = resp.json().await.unwrap();
    assert_eq!(
        body["result"]["structuredContent"]["metadata"]["successfulCount"], 1,
        "{body:#}"
    );
}

/// Waits until the trace holds spans with all of `names`; returns them by name.
async fn trace(r: &Receiver, trace: &str, names: &[&str]) -> HashMap<String, Got> {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    loop {
        {
            let spans = r.spans.lock().unwrap();
            let mine: HashMap<String, Got> = spans
                .iter()
                .filter(|s| s.trace == trace)
                .map(|s| (s.name.clone(), s.clone()))
                .collect();
            if names.iter().all(|n| mine.contains_key(*n)) {
                return mine;
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "trace {trace} lacks some of {names:?} after 60 s; received: {spans:#?}"
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn one_trace_runs_from_the_client_through_gateway_and_worker_to_the_engine() {
    let (endpoint, r) = receiver().await;
    let fleet = Fleet::start_env(
        1,
        &[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", &endpoint),
            ("OTEL_BSP_SCHEDULE_DELAY", "100"),
        ],
    )
    .await;
    let key = fleet.key("traced").await;

    // The HTTP header alone: every span of the call is in the client's trace.
    let (t1, client_span) = ("0af7651916cd43dd8448eb211c80319c", "b7ad6b7169203331");
    navigate(
        &fleet.gateway,
        &key,
        Some(&format!("00-{t1}-{client_span}-01")),
        None,
    )
    .await;
    let all = [
        "request",
        "auth",
        "mcp.tool",
        "action",
        "routing",
        "worker.call",
        "worker.run",
        "restore",
        "engine.action",
        "checkpoint",
    ];
    let spans = trace(&r, t1, &all).await;
    let parent_of = |child: &str, parent: &str| {
        assert_eq!(
            spans[child].parent, spans[parent].id,
            "{child}'s parent is {parent}: {spans:#?}"
        );
    };
    assert_eq!(spans["request"].parent, client_span);
    parent_of("auth", "request");
    parent_of("action", "mcp.tool");
    parent_of("routing", "action");
    parent_of("worker.call", "action");
    parent_of("worker.run", "worker.call");
    parent_of("engine.action", "worker.run");
    parent_of("checkpoint", "worker.run");
    for name in ["request", "auth", "mcp.tool", "worker.call"] {
        assert_eq!(spans[name].service, "servo-fleet-gateway", "{name}");
    }
    for name in ["worker.run", "engine.action", "checkpoint"] {
        assert_eq!(spans[name].service, "servo-fleet-worker", "{name}");
    }

    // `params._meta.traceparent` wins over the header for the tool's spans.
    let (header_trace, meta_trace) = (
        "11111111111111111111111111111111",
        "22222222222222222222222222222222",
    );
    navigate(
        &fleet.gateway,
        &key,
        Some(&format!("00-{header_trace}-1111111111111111-01")),
        Some(&format!("00-{meta_trace}-2222222222222222-01")),
    )
    .await;
    let spans = trace(
        &r,
        meta_trace,
        &["mcp.tool", "worker.call", "worker.run", "engine.action"],
    )
    .await;
    assert_eq!(spans["mcp.tool"].parent, "2222222222222222");
    let header_spans: Vec<String> = r
        .spans
        .lock()
        .unwrap()
        .iter()
        .filter(|s| s.trace == header_trace)
        .map(|s| s.name.clone())
        .collect();
    assert!(
        !header_spans
            .iter()
            .any(|n| n == "mcp.tool" || n == "engine.action"),
        "the tool's spans follow _meta, not the header: {header_spans:?}"
    );
}
