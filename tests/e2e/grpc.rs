//! The typed twin of the MCP tools: `fleet.v1.Browser` on the gateway's port, with
//! the same auth; gRPC health and reflection on the gateway and the workers.

use std::time::Duration;

use fleet_proto::v1::{self as pb, browser_client::BrowserClient};
use tonic::metadata::MetadataValue;

use crate::harness::{Fleet, http_ok, wait_for};

fn navigate(html: &str) -> pb::BrowserAction {
    pb::BrowserAction {
        session_id: String::new(),
        viewport: Some(pb::Viewport {
            width: 640,
            height: 480,
        }),
        action: Some(pb::Action {
            kind: Some(pb::action::Kind::Navigate(pb::Navigate {
                target: Some(pb::navigate::Target::Html(html.into())),
            })),
            max_duration_ms: 0,
        }),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_grpc_browser_api_needs_a_key_and_runs_actions() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("grpc").await;
    let channel = tonic::transport::Channel::from_shared(fleet.gateway.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();

    let mut anonymous = BrowserClient::new(channel.clone());
    let err = anonymous
        .execute(pb::ExecuteRequest {
            actions: vec![navigate("<title>x</title>")],
        })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::Unauthenticated, "{err}");

    let bearer: MetadataValue<_> = format!("Bearer {key}").parse().unwrap();
    let mut client = BrowserClient::with_interceptor(channel, move |mut req: tonic::Request<()>| {
        req.metadata_mut().insert("authorization", bearer.clone());
        Ok(req)
    });
    let resp = client
        .execute(pb::ExecuteRequest {
            actions: vec![navigate("<title>typed</title><p>over gRPC</p>")],
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(resp.metadata.unwrap().successful_count, 1);
    let Some(pb::action_response::Outcome::Output(out)) = &resp.responses[0].outcome else {
        panic!("no output: {resp:?}");
    };
    let Some(pb::action_output::Kind::Page(page)) = &out.kind else {
        panic!("no page: {out:?}")
    };
    assert_eq!(page.title, "typed");
    assert!(page.text.contains("over gRPC"));

    let err = client
        .execute(pb::ExecuteRequest { actions: vec![] })
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::InvalidArgument);
    assert!(err.message().contains("1 to 20"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn workers_and_the_gateway_answer_health_checks() {
    let fleet = Fleet::start(1).await;
    assert!(http_ok(&format!("{}/healthz", fleet.gateway)).await);
    assert!(http_ok(&format!("{}/readyz", fleet.gateway)).await);
    let worker = format!("http://{}", fleet.workers[0].0);
    let worker_url = worker.clone();
    assert!(http_ok(&format!("{worker}/healthz")).await);
    assert!(http_ok(&format!("{worker}/readyz")).await);
    let channel = tonic::transport::Channel::from_shared(worker)
        .unwrap()
        .connect()
        .await
        .unwrap();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel);
    let status = health
        .check(tonic_health::pb::HealthCheckRequest {
            service: "fleet.v1.Worker".into(),
        })
        .await
        .unwrap()
        .into_inner();
    // Prometheus metrics on both, with the call counted.
    let client = fleet.client("metrics").await;
    crate::harness::open_tabs(&client, &["measured"]).await;
    let gw = reqwest::get(format!("{}/metrics", fleet.gateway))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        gw.contains("fleet_gateway_actions_total{outcome=\"ok\"} 1"),
        "{gw}"
    );
    let wk = wait_for(
        "the worker to report its session",
        std::time::Duration::from_secs(10),
        || {
            let url = format!("{worker_url}/metrics");
            async move {
                let body = reqwest::get(url).await.ok()?.text().await.ok()?;
                body.contains("fleet_worker_live_sessions 1")
                    .then_some(body)
            }
        },
    )
    .await;
    assert!(
        wk.contains("fleet_worker_runs_total{outcome=\"ok\"} 1"),
        "{wk}"
    );
    assert_eq!(
        status.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_gateway_is_ready_only_once_a_worker_can_take_a_session() {
    use crate::harness::{
        Database, free_port, fresh_redis, run_cli, spawn, start_worker, wait_for_workers,
    };
    let db = Database::create().await;
    let (redis_url, redis, _redis_db) = fresh_redis().await;
    let (ok, out, err) = run_cli(&["migrate", "--database-url", &db.url]).await;
    assert!(ok, "{out}{err}");
    let listen = format!("127.0.0.1:{}", free_port());
    let _gateway = spawn(
        "gateway",
        &["gateway", "--listen", &listen],
        &[
            ("FLEET_DATABASE_URL", db.url.as_str()),
            ("FLEET_REDIS_URL", redis_url.as_str()),
        ],
    );
    let base = format!("http://{listen}");
    wait_for("the gateway to be live", Duration::from_secs(60), || {
        let url = format!("{base}/healthz");
        async move { http_ok(&url).await.then_some(()) }
    })
    .await;
    let ready = reqwest::get(format!("{base}/readyz")).await.unwrap();
    assert_eq!(ready.status(), 503);
    assert_eq!(
        ready.text().await.unwrap(),
        "not ready: no worker is registered"
    );
    let _worker = start_worker(&db.url, &redis_url, "worker-0", &[]);
    wait_for_workers(&redis, 1).await;
    wait_for("the gateway to be ready", Duration::from_secs(10), || {
        let url = format!("{base}/readyz");
        async move { http_ok(&url).await.then_some(()) }
    })
    .await;
}

/// Lists the services a process describes through gRPC reflection (v1).
async fn reflected_services(base: &str) -> Vec<String> {
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let channel = tonic::transport::Channel::from_shared(base.to_owned())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let request = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = ServerReflectionClient::new(channel)
        .server_reflection_info(tokio_stream::iter([request]))
        .await
        .unwrap()
        .into_inner();
    let answer = answers.message().await.unwrap().unwrap();
    let Some(MessageResponse::ListServicesResponse(list)) = answer.message_response else {
        panic!("not a service list: {answer:?}");
    };
    let mut names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reflection_and_health_describe_the_gateway_and_the_worker_without_a_key() {
    let fleet = Fleet::start(1).await;
    let gateway = reflected_services(&fleet.gateway).await;
    for service in [
        "fleet.v1.Browser",
        "fleet.v1.Worker",
        "grpc.health.v1.Health",
    ] {
        assert!(gateway.contains(&service.to_owned()), "{gateway:?}");
    }
    let worker = reflected_services(&format!("http://{}", fleet.workers[0].0)).await;
    assert!(worker.contains(&"fleet.v1.Worker".to_owned()), "{worker:?}");

    let channel = tonic::transport::Channel::from_shared(fleet.gateway.clone())
        .unwrap()
        .connect()
        .await
        .unwrap();
    let status = tonic_health::pb::health_client::HealthClient::new(channel)
        .check(tonic_health::pb::HealthCheckRequest {
            service: "fleet.v1.Browser".into(),
        })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        status.status,
        tonic_health::pb::health_check_response::ServingStatus::Serving as i32
    );
}
