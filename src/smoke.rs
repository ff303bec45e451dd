//! `servo-fleet smoke`: one agent's round trip through a running fleet, as the
//! chart's `helm test` pod runs it — connect to the gateway's MCP endpoint with an
//! API key, open a session on an inline page, read the page back with a script,
//! close the session. Any failure exits non-zero and says which step failed.

use anyhow::{Context as _, ensure};
use fleet_bench::mcp::Mcp;
use fleet_telemetry::outln;
use serde_json::json;

// Where the smoke test calls, and with which key (a plain comment: a doc
// comment here would change the subcommand's help).
#[derive(Debug, clap::Args)]
pub(crate) struct SmokeArgs {
    /// Base URL of the gateway, e.g. http://servo-fleet-gateway.fleet.svc:8788 (its
    /// /mcp is called).
    #[arg(long = "gateway-url", env = "FLEET_GATEWAY_URL")]
    pub(crate) gateway_url: String,
    /// The API key to call with (`servo-fleet keys create` prints one).
    #[arg(long = "api-key", env = "FLEET_API_KEY", hide_env_values = true)]
    pub(crate) api_key: String,
}

/// The page the smoke test opens; its script proves the engine ran it.
const PAGE: &str = "<!doctype html><title>servo-fleet smoke</title>\
    <p id=probe>static</p><script>probe.textContent = 'scripted ' + (6 * 7)</script>";

/// Runs the round trip and prints one line per step.
pub async fn run(args: &SmokeArgs) -> anyhow::Result<()> {
    let base = args.gateway_url.trim_end_matches('/');
    let mcp = Mcp::connect(base, &args.api_key)
        .await
        .with_context(|| format!("connecting to {base}/mcp (is the key valid?)"))?;
    outln!("smoke: connected to {base}/mcp")?;
    let (id, page) = mcp
        .act("servo_navigate", json!({ "html": PAGE }))
        .await
        .context("opening a session")?;
    let title = page["page"]["title"].as_str().unwrap_or_default();
    ensure!(
        title == "servo-fleet smoke",
        "the new session's page has title {title:?}"
    );
    outln!("smoke: session {id} opened")?;
    let (_, value) = mcp
        .act(
            "servo_evaluate",
            json!({ "sessionID": id, "script": "document.getElementById('probe').textContent" }),
        )
        .await
        .context("evaluating a script in the session")?;
    ensure!(
        value["value"] == "scripted 42",
        "the page's script did not run: {}",
        value["value"]
    );
    outln!("smoke: the page's script ran")?;
    mcp.act("servo_session_close", json!({ "sessionID": id }))
        .await
        .context("closing the session")?;
    outln!("smoke: session closed; the fleet answers end to end")?;
    Ok(())
}
