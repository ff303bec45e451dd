//! MCP clients of a test fleet (rmcp over Streamable HTTP) and the calls
//! tests make with them: a tool call, one action, an evaluation.

use rmcp::ServiceExt as _;
use rmcp::model::{CallToolRequestParams, CallToolResult};
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use serde_json::{Value, json};

pub type Client = RunningService<rmcp::RoleClient, ()>;

/// An rmcp client on `base`/mcp, with a bearer key if given.
pub async fn mcp(base: &str, key: Option<&str>) -> Client {
    let mut config = StreamableHttpClientTransportConfig::with_uri(format!("{base}/mcp"));
    if let Some(k) = key {
        config = config.auth_header(k.to_owned());
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    ().serve(transport)
        .await
        .expect("MCP client could not connect")
}

/// Calls a tool; returns the structured content and the raw result.
pub async fn call(client: &Client, tool: &str, args: Value) -> (Value, CallToolResult) {
    let params = CallToolRequestParams::new(tool.to_owned())
        .with_arguments(args.as_object().cloned().unwrap());
    let result = client
        .call_tool(params)
        .await
        .unwrap_or_else(|e| panic!("{tool} failed at the protocol level: {e}"));
    (
        result.structured_content.clone().unwrap_or(json!(null)),
        result,
    )
}

/// One action of `tool` on session `id`; returns its response entry, or the
/// call's error when the gateway refused the call as a whole.
pub async fn act(client: &Client, tool: &str, id: &str, fields: Value) -> Value {
    let mut action = fields;
    action["sessionID"] = json!(id);
    let (out, _) = call(client, tool, json!({"actions": [action]})).await;
    if out.get("responses").is_some() {
        first(&out).clone()
    } else {
        out
    }
}

/// Evaluates `script` in session `id`, which must succeed; returns its value.
pub async fn eval(client: &Client, id: &str, script: &str) -> Value {
    let r = act(client, "servo_evaluate", id, json!({"script": script})).await;
    assert_eq!(r["ok"], true, "{script}: {r:#}");
    r["response"]["value"].clone()
}

/// The first response entry of a call.
pub fn first(v: &Value) -> &Value {
    &v["responses"][0]
}
