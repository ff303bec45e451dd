//! Session management across the fleet: listing and closing (tenant-scoped),
//! Redis loss, two gateways on the same stores, and a snapshot that cannot be
//! restored.

use std::time::Duration;

use serde_json::json;

use crate::harness::{
    Fleet, act, call, first, fixtures, mcp, open_tabs, start_gateway, wait_for, wait_for_workers,
};
use crate::state::Stateful;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_are_listed_per_tenant_and_closing_deletes_everything() {
    let fleet = Fleet::start(1).await;
    let (ka, kb) = (fleet.key("a").await, fleet.key("b").await);
    let (a, b) = (
        mcp(&fleet.gateway, Some(&ka)).await,
        mcp(&fleet.gateway, Some(&kb)).await,
    );
    let (out, _) = call(
        &a,
        "servo_navigate",
        json!({"actions": [{"html": "<title>one</title>"}, {"html": "<title>two</title>"}]}),
    )
    .await;
    let ids: Vec<String> = (0..2)
        .map(|i| {
            out["responses"][i]["sessionID"]
                .as_str()
                .unwrap()
                .to_owned()
        })
        .collect();

    let (list, _) = call(&a, "servo_session_list", json!({})).await;
    let mut titles: Vec<&str> = list["sessions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["title"].as_str().unwrap())
        .collect();
    titles.sort_unstable();
    assert_eq!(titles, ["one", "two"], "{list:#}");
    let (list_b, _) = call(&b, "servo_session_list", json!({})).await;
    assert_eq!(list_b["sessions"], json!([]), "tenant b sees a's sessions");

    // Another tenant cannot close it.
    let (out, _) = call(
        &b,
        "servo_session_close",
        json!({"actions": [{"sessionID": ids[0]}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "SESSION_NOT_FOUND");
    let (out, _) = call(
        &a,
        "servo_session_close",
        json!({"actions": [{"sessionID": ids[0]}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["closed"], true, "{out:#}");
    let (out, _) = call(
        &a,
        "servo_inspect",
        json!({"actions": [{"sessionID": ids[0]}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "SESSION_NOT_FOUND");
    assert_eq!(
        fleet.route(&ids[0]).await.0,
        "",
        "the route outlived the session"
    );
    let left = fleet
        .db
        .query_count("SELECT COUNT(*) FROM session_part_chunks")
        .await;
    let other = fleet
        .db
        .query_count("SELECT COUNT(DISTINCT session_id) FROM session_parts")
        .await;
    assert!(
        left >= 1 && other == 1,
        "only the open session keeps a snapshot"
    );
    let (list, _) = call(&a, "servo_session_list", json!({"limit": 10})).await;
    assert_eq!(list["sessions"].as_array().unwrap().len(), 1);
    let (bad, raw) = call(&a, "servo_session_list", json!({"limit": 501})).await;
    assert_eq!(raw.is_error, Some(true));
    assert!(
        bad["error"].as_str().unwrap().contains("1 to 500"),
        "{bad:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn sessions_survive_a_redis_flush_with_every_value() {
    let site = fixtures().await;
    let fleet = Fleet::start(2).await;
    let client = fleet.client("acme").await;
    let mut sessions = Vec::new();
    for value in ["flush-a", "flush-b", "flush-c"] {
        sessions.push(Stateful::open(&client, &site, value).await);
    }
    let mut conn = fleet.redis.clone();
    let _: () = redis::cmd("FLUSHDB").query_async(&mut conn).await.unwrap();
    // Heartbeats rebuild the registry; routes come back lazily, one restore each.
    wait_for_workers(&fleet.redis, 2).await;
    for s in &sessions {
        s.check(&client, "after FLUSHDB").await;
        assert!(
            !fleet.route(&s.id).await.0.is_empty(),
            "the route was not rebuilt"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_gateways_on_the_same_stores_serve_the_same_sessions() {
    let site = fixtures().await;
    let fleet = Fleet::start(2).await;
    let key = fleet.key("acme").await;
    let (second, _proc) = start_gateway(&fleet.db.url, &fleet.redis_url).await;
    let (one, two) = (
        mcp(&fleet.gateway, Some(&key)).await,
        mcp(&second, Some(&key)).await,
    );
    // Sessions opened through each gateway at once, then read through the other.
    let (a, b) = tokio::join!(
        Stateful::open(&one, &site, "via-one"),
        Stateful::open(&two, &site, "via-two"),
    );
    a.check(&two, "read through the second gateway").await;
    b.check(&one, "read through the first gateway").await;
    // Concurrent calls to one session through both gateways meet one owner.
    let (x, y) = tokio::join!(a.read(&one), a.read(&two));
    assert_eq!((x, y), (a.expected(), a.expected()));
    assert_eq!(
        fleet.route(&a.id).await.1,
        1,
        "a gateway claimed the session again"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_session_closed_through_one_gateway_is_gone_through_another_that_just_used_it() {
    let fleet = Fleet::start(1).await;
    let key = fleet.key("acme").await;
    let (second, _proc) = start_gateway(&fleet.db.url, &fleet.redis_url).await;
    let (one, two) = (
        mcp(&fleet.gateway, Some(&key)).await,
        mcp(&second, Some(&key)).await,
    );
    let ids = open_tabs(&one, &["closing"]).await;
    let id = &ids[0];
    // The second gateway reads the row now, and would reuse it for a while.
    let r = act(&two, "servo_inspect", id, json!({})).await;
    assert_eq!(r["response"]["page"]["title"], "closing", "{r:#}");
    let r = act(&one, "servo_session_close", id, json!({})).await;
    assert_eq!(r["response"]["closed"], true, "{r:#}");
    for (tool, fields) in [
        ("servo_inspect", json!({})),
        ("servo_evaluate", json!({"script": "1"})),
    ] {
        let r = act(&two, tool, id, fields).await;
        assert_eq!(r["code"], "SESSION_NOT_FOUND", "{tool}: {r:#}");
    }
    assert_eq!(
        fleet.route(id).await.0,
        "",
        "the second gateway claimed the closed session again"
    );
    let mut pg = fleet.db.connect().await;
    let (rows,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM sessions WHERE id = $1")
        .bind(id)
        .fetch_one(&mut pg)
        .await
        .unwrap();
    assert_eq!(rows, 0, "the closed session came back");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_snapshot_that_cannot_be_restored_fails_the_session_not_the_worker() {
    let mut fleet = Fleet::start(1).await;
    let client = fleet.client("acme").await;
    let ids = open_tabs(&client, &["doomed", "fine"]).await;
    let (doomed, fine) = (ids[0].clone(), ids[1].clone());

    let mut pg = fleet.db.connect().await;
    // The page part is what the engine reads first; garbage there cannot apply.
    sqlx::query(
        "UPDATE session_part_chunks SET data = $2 WHERE session_id = $1 AND part = 'engine/page'",
    )
    .bind(&doomed)
    .bind(b"\x00not a snapshot".to_vec())
    .execute(&mut pg)
    .await
    .unwrap();
    fleet.forget_route(&doomed).await;

    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": doomed}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "ENGINE_FAILED", "{out:#}");
    assert!(
        first(&out)["error"]
            .as_str()
            .unwrap()
            .contains("could not be restored"),
        "{out:#}"
    );
    let (out, _) = call(
        &client,
        "servo_session_status",
        json!({"actions": [{"sessionID": doomed}]}),
    )
    .await;
    let status = &first(&out)["response"];
    assert_eq!(status["status"], "failed", "{out:#}");
    assert_eq!(status["resumable"], false);
    assert!(
        status["failure"]
            .as_str()
            .unwrap()
            .contains("could not be restored")
    );
    assert!(
        fleet.workers[0].1.child.try_wait().unwrap().is_none(),
        "the worker died"
    );
    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": fine}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["page"]["title"], "fine", "{out:#}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_expired_session_is_not_found_and_the_sweep_deletes_everything_stored_for_it() {
    // The test ages a row in the database, which in use only time does; a
    // gateway reusing the row it read would run the session until its own
    // copy expired, so this one reads the row on every call.
    let fleet = Fleet::start_env(1, &[("FLEET_SESSION_CACHE_SECS", "0")]).await;
    let client = fleet.client("acme").await;
    let ids = open_tabs(&client, &["old", "fresh"]).await;
    let (old, fresh) = (ids[0].clone(), ids[1].clone());
    let mut pg = fleet.db.connect().await;
    sqlx::query("UPDATE sessions SET expires_at = 0 WHERE id = $1")
        .bind(&old)
        .execute(&mut pg)
        .await
        .unwrap();
    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": old}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "SESSION_NOT_FOUND", "{out:#}");
    wait_for(
        "the expiry sweep to delete the session and its parts",
        Duration::from_secs(20),
        || async {
            let mut pg = fleet.db.connect().await;
            let (rows,): (i64,) = sqlx::query_as(
                "SELECT (SELECT COUNT(*) FROM sessions WHERE id = $1) \
                 + (SELECT COUNT(*) FROM session_parts WHERE session_id = $1) \
                 + (SELECT COUNT(*) FROM session_part_chunks WHERE session_id = $1)",
            )
            .bind(&old)
            .fetch_one(&mut pg)
            .await
            .unwrap();
            (rows == 0).then_some(())
        },
    )
    .await;
    let (out, _) = call(
        &client,
        "servo_inspect",
        json!({"actions": [{"sessionID": fresh}]}),
    )
    .await;
    assert_eq!(first(&out)["response"]["page"]["title"], "fresh", "{out:#}");
}
