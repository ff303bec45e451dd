//! The agent's side of the benchmark: an MCP client over Streamable HTTP (rmcp),
//! the same path a real agent takes into the fleet.

use anyhow::{Context as _, bail};
use rmcp::ServiceExt as _;
use rmcp::model::CallToolRequestParams;
use rmcp::service::RunningService;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use serde_json::Value;

/// Why the handshake with `url` failed, in the user's terms: when nothing
/// answers there, the operating system's reason (connection refused, no route)
/// instead of the transport's nested types; otherwise rmcp's error as it is.
fn handshake_error(e: rmcp::service::ClientInitializeError, url: &str) -> anyhow::Error {
    // rmcp does not chain the transport's error as a source: reach it here.
    let transport = match &e {
        rmcp::service::ClientInitializeError::TransportError { error, .. } => {
            error
                .error
                .downcast_ref::<StreamableHttpError<reqwest::Error>>()
        }
        _ => None,
    };
    if let Some(StreamableHttpError::Client(r)) = transport
        && (r.is_connect() || r.is_timeout())
    {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(r);
        let mut why = String::from("no connection");
        while let Some(c) = cause {
            if let Some(io) = c.downcast_ref::<std::io::Error>() {
                why = io.to_string();
            }
            cause = c.source();
        }
        return anyhow::anyhow!("nothing answers at {url}: {why}");
    }
    anyhow::Error::new(e).context("the MCP handshake failed")
}

/// One MCP client connection.
pub struct Mcp {
    client: RunningService<rmcp::RoleClient, ()>,
}

impl Mcp {
    /// Connects to `base`/mcp with a bearer key (none when `key` is empty:
    /// a one-process fleet on loopback takes calls without one).
    pub async fn connect(base: &str, key: &str) -> anyhow::Result<Mcp> {
        let url = format!("{base}/mcp");
        let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
        if !key.is_empty() {
            config = config.auth_header(key.to_owned());
        }
        let client =
            ().serve(StreamableHttpClientTransport::from_config(config))
                .await
                .map_err(|e| handshake_error(e, &url))?;
        Ok(Mcp { client })
    }

    /// Calls a tool with `{"actions": [action]}` and returns the first
    /// response's `response` object; an action error is an error.
    pub async fn act(&self, tool: &str, action: Value) -> anyhow::Result<(String, Value)> {
        let args = serde_json::json!({ "actions": [action] });
        let out = self.call(tool, args).await?;
        let first = &out["responses"][0];
        if first["ok"] != true {
            bail!("{tool} failed: {} ({})", first["error"], first["code"]);
        }
        let id = first["sessionID"].as_str().unwrap_or_default().to_owned();
        Ok((id, first["response"].clone()))
    }

    /// A screenshot of session `id`'s viewport: the PNG bytes of the result's
    /// image block.
    pub async fn screenshot(&self, id: &str) -> anyhow::Result<Vec<u8>> {
        use base64::Engine as _;
        let args = serde_json::json!({ "actions": [{ "sessionID": id }] });
        let Value::Object(args) = args else {
            bail!("tool arguments must be an object");
        };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new("servo_screenshot").with_arguments(args))
            .await
            .context("servo_screenshot failed at the protocol level")?;
        let data = result
            .content
            .iter()
            .find_map(|c| c.as_image().map(|i| i.data.clone()))
            .context("servo_screenshot returned no image")?;
        base64::engine::general_purpose::STANDARD
            .decode(data)
            .context("decoding the screenshot's base64")
    }

    /// Calls a tool and returns its structured content.
    pub async fn call(&self, tool: &str, args: Value) -> anyhow::Result<Value> {
        Ok(self.call_with_images(tool, args).await?.0)
    }

    /// Calls a tool and returns its structured content and the bytes of its
    /// image blocks, in order (screenshots).
    pub async fn call_with_images(
        &self,
        tool: &str,
        args: Value,
    ) -> anyhow::Result<(Value, Vec<Vec<u8>>)> {
        use base64::Engine as _;
        let Value::Object(args) = args else {
            bail!("tool arguments must be an object");
        };
        let result = self
            .client
            .call_tool(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
            .await
            .with_context(|| format!("{tool} failed at the protocol level"))?;
        let images = result
            .content
            .iter()
            .filter_map(|c| c.as_image())
            .map(|i| {
                base64::engine::general_purpose::STANDARD
                    .decode(&i.data)
                    .context("decoding an image block's base64")
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        Ok((result.structured_content.unwrap_or(Value::Null), images))
    }
}
