//! The command-line client of a running fleet: `servo-fleet call <tool>`
//! calls one MCP tool with JSON arguments and prints its JSON result (or a
//! short table), writing screenshots to files; `servo-fleet sessions
//! list|close` lists or closes the caller's sessions. Both speak MCP to the
//! gateway (`--gateway`, `FLEET_GATEWAY_URL`) with an API key (`--api-key`,
//! `FLEET_API_KEY`), as an agent does.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use fleet_bench::mcp::Mcp;
use fleet_telemetry::outln;
use serde_json::{Value, json};

/// The tools that take their arguments at the top level rather than as
/// `{"actions": [...]}`.
const TOP_LEVEL_TOOLS: [&str; 2] = ["servo_session_list", "servo_web_search"];

// Which gateway to call, with which key (a plain comment: a doc comment here
// would change the subcommands' help).
#[derive(Debug, clap::Args)]
pub(crate) struct GatewayArgs {
    /// Base URL of the gateway, e.g. http://127.0.0.1:8788 (its /mcp is called).
    #[arg(
        long = "gateway",
        alias = "gateway-url",
        env = "FLEET_GATEWAY_URL",
        default_value = "http://127.0.0.1:8788"
    )]
    gateway: String,
    /// The API key to call with (`servo-fleet keys create` prints one); a
    /// one-process fleet on loopback needs none.
    #[arg(
        long = "api-key",
        env = "FLEET_API_KEY",
        hide_env_values = true,
        default_value = ""
    )]
    api_key: String,
    /// How to print the result: the tool's JSON, or a short table.
    #[arg(long, env = "FLEET_OUTPUT", value_enum, default_value_t = Output::Json)]
    output: Output,
}

/// How results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Output {
    Json,
    Table,
}

// `servo-fleet call`'s arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct CallArgs {
    /// The tool to call, e.g. servo_navigate (`tools/list` names them all).
    tool: String,
    /// The tool's arguments as JSON. An object without `actions` is one
    /// action of an actions tool (`{"url": "https://example.com/"}`).
    #[arg(long, env = "FLEET_JSON", default_value = "{}")]
    json: String,
    /// Where screenshots are written, as screenshot-<session>-<n>.png.
    #[arg(long = "out-dir", env = "FLEET_OUT_DIR", default_value = ".")]
    out_dir: PathBuf,
    #[command(flatten)]
    gateway: GatewayArgs,
}

/// `servo-fleet sessions`: the caller's sessions.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum SessionsCommand {
    /// List the caller's sessions, the most recently used first.
    List {
        /// Most sessions listed, 1–500.
        #[arg(long, env = "FLEET_LIMIT", default_value_t = 100)]
        limit: u32,
        #[command(flatten)]
        gateway: GatewayArgs,
    },
    /// Close sessions (and delete their stored state).
    Close {
        /// The sessions' IDs.
        #[arg(required = true)]
        ids: Vec<String>,
        #[command(flatten)]
        gateway: GatewayArgs,
    },
}

async fn connect(gateway: &GatewayArgs) -> anyhow::Result<Mcp> {
    let base = gateway.gateway.trim_end_matches('/');
    Mcp::connect(base, &gateway.api_key)
        .await
        .with_context(|| format!("connecting to {base}/mcp (is the gateway up, the key valid?)"))
}

/// The arguments `--json` gives `tool`.
fn arguments(tool: &str, json: &str) -> anyhow::Result<Value> {
    let args: Value =
        serde_json::from_str(json).with_context(|| format!("--json is not valid JSON: {json}"))?;
    let Value::Object(object) = args else {
        bail!("--json must be a JSON object (the tool's arguments), not {json}");
    };
    if TOP_LEVEL_TOOLS.contains(&tool) || object.contains_key("actions") {
        return Ok(Value::Object(object));
    }
    Ok(json!({ "actions": [object] }))
}

/// `servo-fleet call`: prints the result; fails when any action failed.
pub(crate) async fn call(args: &CallArgs) -> anyhow::Result<()> {
    let arguments = arguments(&args.tool, &args.json)?;
    let mcp = connect(&args.gateway).await?;
    let (mut result, images) = mcp.call_with_images(&args.tool, arguments).await?;
    write_images(&mut result, &images, &args.out_dir)?;
    print(&result, args.gateway.output)?;
    fail_on_errors(&args.tool, &result)
}

/// An error when the call was refused as a whole or any action failed.
fn fail_on_errors(tool: &str, result: &Value) -> anyhow::Result<()> {
    if let Some(error) = result["error"].as_str() {
        bail!("{tool} was refused: {error} ({})", text(&result["code"]));
    }
    let failed = result["metadata"]["failedCount"].as_u64().unwrap_or(0);
    if failed > 0 {
        bail!("{failed} of the call's actions failed (see the responses above)");
    }
    Ok(())
}

/// Writes each image block to a file and records its path in the response
/// whose `imageIndex` names it.
fn write_images(
    result: &mut Value,
    images: &[Vec<u8>],
    dir: &std::path::Path,
) -> anyhow::Result<()> {
    if images.is_empty() {
        return Ok(());
    }
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let Some(responses) = result["responses"].as_array_mut() else {
        return Ok(());
    };
    for r in responses {
        let Some(index) = r["response"]["imageIndex"].as_u64() else {
            continue;
        };
        let Some(png) = usize::try_from(index).ok().and_then(|i| images.get(i)) else {
            continue;
        };
        let session = r["sessionID"].as_str().unwrap_or("page");
        let path = dir.join(format!("screenshot-{session}-{index}.png"));
        std::fs::write(&path, png).with_context(|| format!("writing {}", path.display()))?;
        r["response"]["file"] = json!(path.display().to_string());
    }
    Ok(())
}

/// Prints a result as JSON, or as one line per response (or session).
fn print(result: &Value, output: Output) -> anyhow::Result<()> {
    if output == Output::Json {
        outln!("{}", serde_json::to_string_pretty(result)?)?;
        return Ok(());
    }
    if let Some(sessions) = result["sessions"].as_array() {
        outln!("{:<36}  {:<8}  {:<40}  TITLE", "SESSION", "STATUS", "URL")?;
        for s in sessions {
            outln!(
                "{:<36}  {:<8}  {:<40}  {}",
                text(&s["sessionID"]),
                text(&s["status"]),
                text(&s["url"]),
                text(&s["title"])
            )?;
        }
        return Ok(());
    }
    let Some(responses) = result["responses"].as_array() else {
        // Web search and anything else without responses: its JSON.
        outln!("{}", serde_json::to_string_pretty(result)?)?;
        return Ok(());
    };
    outln!("{:<3}  {:<36}  {:<5}  WHAT", "#", "SESSION", "OK")?;
    for r in responses {
        let what = if r["ok"] == true {
            summary(&r["response"])
        } else {
            format!("{} {}", text(&r["code"]), text(&r["error"]))
        };
        outln!(
            "{:<3}  {:<36}  {:<5}  {what}",
            r["actionIndex"].as_u64().unwrap_or(0),
            text(&r["sessionID"]),
            r["ok"] == true
        )?;
    }
    Ok(())
}

/// One line about a response: the file a screenshot went to, a session's
/// downloads or the bytes a read returned, the value of an evaluation, or the
/// page's URL and title.
fn summary(response: &Value) -> String {
    if let Some(file) = response["file"].as_str() {
        return file.to_owned();
    }
    if let Some(files) = response["downloads"].as_array() {
        let names: Vec<String> = files
            .iter()
            .map(|f| {
                format!(
                    "{} ({} B, {})",
                    text(&f["filename"]),
                    f["sizeBytes"],
                    text(&f["status"])
                )
            })
            .collect();
        return format!("{} files: {}", files.len(), names.join(", "));
    }
    if response["encoding"].is_string() && response.get("content").is_some() {
        return format!(
            "bytes {}+{} of {} as {}",
            response["offset"],
            response["length"],
            response["totalBytes"],
            text(&response["encoding"])
        );
    }
    if let Some(value) = response.get("value") {
        return value.to_string();
    }
    let page = &response["page"];
    if page.is_object() {
        return format!("{}  {}", text(&page["url"]), text(&page["title"]));
    }
    response.to_string()
}

fn text(v: &Value) -> &str {
    v.as_str().unwrap_or("")
}

/// `servo-fleet sessions`.
pub(crate) async fn sessions(command: &SessionsCommand) -> anyhow::Result<()> {
    match command {
        SessionsCommand::List { limit, gateway } => {
            let mcp = connect(gateway).await?;
            let result = mcp
                .call("servo_session_list", json!({ "limit": limit }))
                .await?;
            print(&result, gateway.output)?;
            fail_on_errors("servo_session_list", &result)
        }
        SessionsCommand::Close { ids, gateway } => {
            let mcp = connect(gateway).await?;
            let actions: Vec<Value> = ids.iter().map(|id| json!({ "sessionID": id })).collect();
            let result = mcp
                .call("servo_session_close", json!({ "actions": actions }))
                .await?;
            print(&result, gateway.output)?;
            fail_on_errors("servo_session_close", &result)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_action_is_wrapped_and_whole_arguments_are_kept() {
        assert_eq!(
            arguments("servo_navigate", r#"{"url": "https://example.com/"}"#).unwrap(),
            json!({"actions": [{"url": "https://example.com/"}]})
        );
        let whole = json!({"actions": [{"sessionID": "s"}, {"sessionID": "t"}]});
        assert_eq!(
            arguments("servo_inspect", &whole.to_string()).unwrap(),
            whole
        );
        assert_eq!(
            arguments("servo_web_search", r#"{"query": "servo"}"#).unwrap(),
            json!({"query": "servo"})
        );
    }

    #[test]
    fn arguments_must_be_a_json_object() {
        let e = arguments("servo_navigate", "{url:").unwrap_err();
        assert!(e.to_string().contains("--json is not valid JSON"), "{e:#}");
        let e = arguments("servo_navigate", "[1]").unwrap_err();
        assert!(e.to_string().contains("must be a JSON object"), "{e:#}");
    }
}
