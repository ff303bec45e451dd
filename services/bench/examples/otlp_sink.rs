//! An OTLP/gRPC trace receiver that counts what it gets and drops it: the far
//! end of `servo-fleet bench --load --fleet-env OTEL_EXPORTER_OTLP_ENDPOINT=…`
//! when measuring what tracing costs a call.
//!
//! `cargo run -p fleet-bench --example otlp_sink -- 127.0.0.1:4317`

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use opentelemetry_proto::tonic::collector::trace::v1::trace_service_server::{
    TraceService, TraceServiceServer,
};
use opentelemetry_proto::tonic::collector::trace::v1::{
    ExportTraceServiceRequest, ExportTraceServiceResponse,
};

#[derive(Default, Clone)]
struct Sink {
    spans: Arc<AtomicU64>,
}

#[tonic::async_trait]
impl TraceService for Sink {
    async fn export(
        &self,
        request: tonic::Request<ExportTraceServiceRequest>,
    ) -> Result<tonic::Response<ExportTraceServiceResponse>, tonic::Status> {
        let n: usize = request
            .into_inner()
            .resource_spans
            .iter()
            .flat_map(|r| &r.scope_spans)
            .map(|s| s.spans.len())
            .sum();
        self.spans
            .fetch_add(u64::try_from(n).unwrap_or(0), Ordering::Relaxed);
        Ok(tonic::Response::new(ExportTraceServiceResponse {
            partial_success: None,
        }))
    }
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:4317".into());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    let sink = Sink::default();
    let spans = sink.spans.clone();
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            eprintln!("otlp_sink: {} spans", spans.load(Ordering::Relaxed));
        }
    });
    eprintln!("otlp_sink: listening on {addr}");
    tonic::transport::Server::builder()
        .add_service(TraceServiceServer::new(sink))
        .serve_with_incoming(tokio_stream::wrappers::TcpListenerStream::new(listener))
        .await?;
    Ok(())
}
