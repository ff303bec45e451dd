//! `--read-only`: the tools that can reach outside the tab are neither listed
//! nor run, over MCP and gRPC; reading tools and safe HTTP methods still work.
//! Also HTTP requests as typed gRPC actions.

use fleet_proto::v1 as pb;
use rmcp::model::CallToolRequestParams;
use serde_json::{Value, json};

use crate::harness::{Fleet, call, first, grpc};

/// Tools a read-only gateway leaves out.
const OUTSIDE: [&str; 12] = [
    "servo_evaluate",
    "servo_frame_evaluate",
    "servo_click",
    "servo_type_text",
    "servo_press_key",
    "servo_select_option",
    "servo_http_request",
    "servo_http_post",
    "servo_http_put",
    "servo_http_patch",
    "servo_http_delete",
    "servo_cdp_endpoint",
];

fn http_action(url: &str, method: &str) -> pb::BrowserAction {
    pb::BrowserAction {
        session_id: String::new(),
        viewport: None,
        action: Some(pb::Action {
            kind: Some(pb::action::Kind::Http(pb::HttpRequest {
                url: url.into(),
                method: method.into(),
                ..Default::default()
            })),
            max_duration_ms: 0,
        }),
    }
}

/// A loopback server answering `hello` to any method.
async fn hello() -> String {
    let app = axum::Router::new().route("/", axum::routing::any(|| async { "hello" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

/// Calls `tool`, which a read-only gateway does not list, with one
/// `action`; the error it must answer with.
async fn unlisted(client: &crate::harness::Client, tool: &'static str, action: Value) -> String {
    client
        .call_tool(
            CallToolRequestParams::new(tool)
                .with_arguments(json!({"actions": [action]}).as_object().cloned().unwrap()),
        )
        .await
        .unwrap_err()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_read_only_gateway_offers_and_runs_only_tools_that_stay_in_the_tab() {
    let fleet = Fleet::start_env(1, &[("FLEET_READ_ONLY", "true")]).await;
    let client = fleet.client("acme").await;
    let url = hello().await;

    let tools = client.list_all_tools().await.unwrap();
    for name in OUTSIDE {
        assert!(!tools.iter().any(|t| t.name == name), "{name} is listed");
    }
    for name in [
        "servo_navigate",
        "servo_screenshot",
        "servo_http_get",
        "servo_session_list",
    ] {
        assert!(tools.iter().any(|t| t.name == name), "{name} is missing");
    }

    let (out, _) = call(
        &client,
        "servo_navigate",
        json!({"actions": [{"html": "<p>x</p>"}]}),
    )
    .await;
    assert_eq!(first(&out)["ok"], true, "{out:#}");
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let refused = unlisted(
        &client,
        "servo_evaluate",
        json!({"sessionID": id, "script": "1"}),
    )
    .await;
    assert!(refused.contains("read-only"), "{refused}");
    // A person may watch the session, not drive it.
    let (watch, _) = call(
        &client,
        "servo_live_view",
        json!({"actions": [{"sessionID": id, "mode": "view"}]}),
    )
    .await;
    assert_eq!(first(&watch)["ok"], true, "{watch:#}");
    let (drive, raw) = call(
        &client,
        "servo_live_view",
        json!({"actions": [{"sessionID": id, "mode": "control"}]}),
    )
    .await;
    assert_eq!(raw.is_error, Some(true), "{drive:#}");
    assert!(drive.to_string().contains("read-only"), "{drive:#}");
    // Nor through a DevTools client.
    let refused = unlisted(&client, "servo_cdp_endpoint", json!({"sessionID": id})).await;
    assert!(refused.contains("read-only"), "{refused}");
    let (out, _) = call(
        &client,
        "servo_http_get",
        json!({"actions": [{"url": url}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["body"], "hello", "{out:#}");

    // gRPC is held to the same rule, action by action.
    let key = fleet.key("acme").await;
    let mut browser = grpc(&fleet, &key).await;
    let err = browser
        .execute(pb::ExecuteRequest {
            actions: vec![http_action(&url, "DELETE")],
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(err.message().contains("read-only"), "{err}");
    let ok = browser
        .execute(pb::ExecuteRequest {
            actions: vec![http_action(&url, "HEAD")],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ok.metadata.unwrap().successful_count, 1, "{ok:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn http_requests_are_typed_grpc_actions_that_name_no_session() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("typed").await;
    let url = hello().await;
    let mut browser = grpc(&fleet, &key).await;
    let resp = browser
        .execute(pb::ExecuteRequest {
            actions: vec![http_action(&url, "POST")],
        })
        .await
        .unwrap()
        .into_inner();
    let r = &resp.responses[0];
    assert_eq!(r.session_id, "", "{resp:?}");
    let Some(pb::action_response::Outcome::Output(out)) = &r.outcome else {
        panic!("{resp:?}");
    };
    let Some(pb::action_output::Kind::Http(h)) = &out.kind else {
        panic!("{out:?}");
    };
    assert_eq!((h.status, h.method.as_str()), (200, "POST"));
    assert_eq!(h.body, b"hello");
    // It opened no session.
    let list = browser
        .list_sessions(pb::ListSessionsRequest::default())
        .await
        .unwrap()
        .into_inner();
    assert!(list.sessions.is_empty(), "{list:?}");
    // With a session ID it is refused, naming why.
    let mut with_session = http_action(&url, "GET");
    with_session.session_id = uuid::Uuid::new_v4().to_string();
    let err = browser
        .execute(pb::ExecuteRequest {
            actions: vec![with_session],
        })
        .await
        .unwrap_err();
    assert!(err.message().contains("belongs to no session"), "{err}");
}
