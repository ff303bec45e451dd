//! Logs and traces. Logs go to stderr, filtered by `RUST_LOG`. Spans are
//! exported with OTLP/gRPC when `OTEL_EXPORTER_OTLP_ENDPOINT` is set, with the
//! standard `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES` and
//! `OTEL_TRACES_SAMPLER`(`_ARG`); they carry W3C `traceparent` across
//! processes ([`traceparent`], [`set_parent`]). The spans exported are the
//! fleet's own (info level and above in its crates), whatever `RUST_LOG` says.

use std::collections::HashMap;

use anyhow::Context as _;
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::trace::{Sampler, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetrySpanExt as _;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::util::SubscriberInitExt as _;
use tracing_subscriber::{EnvFilter, Layer as _};

/// Which spans are exported: the fleet's own.
const EXPORTED: &str = "servo_fleet=info,fleet_gateway=info,fleet_worker=info,fleet_store=info";

/// Where and how spans are exported; the standard OpenTelemetry variables.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct TraceConfig {
    /// OTLP/gRPC endpoint spans are exported to, e.g. `http://otel-collector:4317`;
    /// unset: no export.
    #[arg(long = "otlp-endpoint", env = "OTEL_EXPORTER_OTLP_ENDPOINT")]
    pub otlp_endpoint: Option<String>,

    /// `service.name` of this process's spans; default `servo-fleet-gateway`,
    /// `servo-fleet-worker` or `servo-fleet` (serve). `OTEL_RESOURCE_ATTRIBUTES`
    /// adds attributes.
    #[arg(long = "otel-service-name", env = "OTEL_SERVICE_NAME")]
    pub service_name: Option<String>,

    /// Sampler: `parentbased_always_on` (default), `parentbased_always_off`,
    /// `parentbased_traceidratio`, `always_on`, `always_off`, `traceidratio`.
    #[arg(
        long = "otel-traces-sampler",
        env = "OTEL_TRACES_SAMPLER",
        default_value = "parentbased_always_on"
    )]
    pub sampler: String,

    /// The ratio of the `*traceidratio` samplers, 0 to 1.
    #[arg(long = "otel-traces-sampler-arg", env = "OTEL_TRACES_SAMPLER_ARG")]
    pub sampler_arg: Option<f64>,
}

impl TraceConfig {
    fn sampler(&self) -> anyhow::Result<Sampler> {
        let ratio = self.sampler_arg.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&ratio) {
            anyhow::bail!("OTEL_TRACES_SAMPLER_ARG must be 0 to 1; got {ratio}");
        }
        Ok(match self.sampler.as_str() {
            "always_on" => Sampler::AlwaysOn,
            "always_off" => Sampler::AlwaysOff,
            "traceidratio" => Sampler::TraceIdRatioBased(ratio),
            "parentbased_always_on" => Sampler::ParentBased(Box::new(Sampler::AlwaysOn)),
            "parentbased_always_off" => Sampler::ParentBased(Box::new(Sampler::AlwaysOff)),
            "parentbased_traceidratio" => {
                Sampler::ParentBased(Box::new(Sampler::TraceIdRatioBased(ratio)))
            }
            other => anyhow::bail!(
                "OTEL_TRACES_SAMPLER {other:?} is not one of always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio"
            ),
        })
    }
}

/// Flushes and stops the exporter when dropped (at the end of `main`), so the
/// spans of the last calls before a shutdown are not lost.
pub struct Tracing {
    provider: Option<SdkTracerProvider>,
}

impl Drop for Tracing {
    fn drop(&mut self) {
        if let Some(p) = self.provider.take()
            && let Err(e) = p.shutdown()
        {
            eprintln!("servo-fleet: flushing traces failed: {e}");
        }
    }
}

/// Installs logging to stderr and, when `config` names an endpoint, the span
/// exporter; `service` is the default `service.name`. A command that is not a
/// service passes no `config`.
pub fn init(config: Option<&TraceConfig>, service: &str) -> anyhow::Result<Tracing> {
    let filter = EnvFilter::try_from_default_env().unwrap_or_else(|_| {
        EnvFilter::new(if config.is_some() {
            // rmcp logs every stateless request's service start and stop at info.
            "info,rmcp=warn"
        } else {
            // A command (`call`, `sessions`, `bench`…) reports its own failures;
            // rmcp's client logs the same failure again, in its own terms.
            "info,rmcp=off"
        })
    });
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_filter(filter);
    let Some((config, endpoint)) =
        config.and_then(|c| Some((c, c.otlp_endpoint.clone().filter(|e| !e.is_empty())?)))
    else {
        tracing_subscriber::registry().with(fmt).init();
        return Ok(Tracing { provider: None });
    };
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_tonic()
        .with_endpoint(endpoint.clone())
        .build()
        .with_context(|| format!("the OTLP exporter for {endpoint}"))?;
    // The builder reads OTEL_RESOURCE_ATTRIBUTES; a `service.name` there wins
    // over the default, OTEL_SERVICE_NAME over both (as the spec orders them).
    let detected = opentelemetry_sdk::Resource::builder()
        .build()
        .get(&opentelemetry::Key::from_static_str("service.name"))
        .map(|v| v.to_string())
        .filter(|n| !n.starts_with("unknown_service"));
    let name = config
        .service_name
        .clone()
        .filter(|n| !n.is_empty())
        .or(detected)
        .unwrap_or_else(|| service.to_owned());
    let resource = opentelemetry_sdk::Resource::builder()
        .with_service_name(name)
        .build();
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_sampler(config.sampler()?)
        .with_resource(resource)
        .build();
    opentelemetry::global::set_text_map_propagator(
        opentelemetry_sdk::propagation::TraceContextPropagator::new(),
    );
    let spans = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer("servo-fleet"))
        .with_filter(EnvFilter::new(EXPORTED));
    tracing_subscriber::registry().with(fmt).with(spans).init();
    Ok(Tracing {
        provider: Some(provider),
    })
}

/// The W3C trace headers (`traceparent`, `tracestate`) that make a remote
/// span a child of `span`; empty when no trace is being recorded.
pub fn traceparent(span: &tracing::Span) -> Vec<(String, String)> {
    let cx = span.context();
    let mut carrier: HashMap<String, String> = HashMap::new();
    opentelemetry::global::get_text_map_propagator(|p| p.inject_context(&cx, &mut carrier));
    carrier.into_iter().collect()
}

/// Makes `span` a child of the remote span named by the W3C headers `header`
/// returns (`traceparent`, `tracestate`), if there is a valid `traceparent`.
pub fn set_parent(span: &tracing::Span, header: impl Fn(&str) -> Option<String>) {
    let Some(parent) = header("traceparent") else {
        return;
    };
    let mut carrier = HashMap::from([("traceparent".to_owned(), parent)]);
    if let Some(state) = header("tracestate") {
        carrier.insert("tracestate".to_owned(), state);
    }
    let cx = opentelemetry::global::get_text_map_propagator(|p| p.extract(&carrier));
    use opentelemetry::trace::TraceContextExt as _;
    if cx.span().span_context().is_valid() {
        let _ = span.set_parent(cx);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samplers_parse_by_their_standard_names_and_a_bad_one_is_named() {
        let config = |s: &str, arg: Option<f64>| TraceConfig {
            sampler: s.into(),
            sampler_arg: arg,
            ..TraceConfig::default()
        };
        assert!(matches!(
            config("always_off", None).sampler().unwrap(),
            Sampler::AlwaysOff
        ));
        assert!(matches!(
            config("traceidratio", Some(0.25)).sampler().unwrap(),
            Sampler::TraceIdRatioBased(r) if (r - 0.25).abs() < 1e-9
        ));
        assert!(
            config("sometimes", None)
                .sampler()
                .unwrap_err()
                .to_string()
                .contains("sometimes")
        );
        assert!(config("traceidratio", Some(2.0)).sampler().is_err());
    }
}
