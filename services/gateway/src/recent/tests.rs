//! The gateway's memory of its stores: reuse, outages and placement counts.

use super::*;

fn tenant() -> Tenant {
    Tenant {
        id: "t1".into(),
        name: "acme".into(),
    }
}

fn outage<T>() -> Result<T, StoreError> {
    Err(StoreError::Unavailable("postgres"))
}

#[tokio::test(start_paused = true)]
async fn a_verified_key_is_trusted_for_its_ttl_then_asked_again() {
    let recent = Recent::new(Grace {
        key_ttl: Duration::from_secs(60),
        session_reuse: Duration::from_secs(30),
        outage: Duration::from_secs(600),
    });
    let found = recent
        .tenant_for_key("sfk_a", async { Ok(Some(tenant())) })
        .await;
    assert_eq!(found.unwrap(), Some(tenant()));
    // Within the TTL the database is not asked (it would say "revoked").
    tokio::time::advance(Duration::from_secs(59)).await;
    let cached = recent.tenant_for_key("sfk_a", async { Ok(None) }).await;
    assert_eq!(cached.unwrap(), Some(tenant()));
    // Past it, a revocation is seen.
    tokio::time::advance(Duration::from_secs(2)).await;
    assert_eq!(
        recent
            .tenant_for_key("sfk_a", async { Ok(None) })
            .await
            .unwrap(),
        None
    );
    assert!(
        recent
            .tenant_for_key("sfk_a", async { outage() })
            .await
            .is_err(),
        "a key the database just refused is not served from memory"
    );
}

#[tokio::test(start_paused = true)]
async fn during_an_outage_a_key_seen_within_the_grace_still_works_and_an_unknown_one_does_not() {
    let recent = Recent::new(Grace::default());
    recent
        .tenant_for_key("sfk_a", async { Ok(Some(tenant())) })
        .await
        .unwrap();
    tokio::time::advance(Duration::from_secs(120)).await;
    assert_eq!(
        recent
            .tenant_for_key("sfk_a", async { outage() })
            .await
            .unwrap(),
        Some(tenant())
    );
    assert!(
        recent
            .tenant_for_key("sfk_b", async { outage() })
            .await
            .is_err()
    );
    tokio::time::advance(Duration::from_secs(15 * 60)).await;
    assert!(
        recent
            .tenant_for_key("sfk_a", async { outage() })
            .await
            .is_err(),
        "past the grace period nothing is served from memory"
    );
}

#[tokio::test(start_paused = true)]
async fn routes_answer_from_memory_only_during_an_outage() {
    let recent = Recent::new(Grace::default());
    let r = Route {
        worker: "w1".into(),
        epoch: 4,
    };
    recent.claimed("s1", r.clone());
    assert_eq!(
        recent.route("s1", async { outage() }).await.unwrap(),
        Some(r.clone())
    );
    // The store's answer wins whenever there is one.
    let moved = Route {
        worker: "w2".into(),
        epoch: 5,
    };
    let m = moved.clone();
    assert_eq!(
        recent.route("s1", async { Ok(Some(m)) }).await.unwrap(),
        Some(moved.clone())
    );
    assert_eq!(
        recent.route("s1", async { outage() }).await.unwrap(),
        Some(moved)
    );
    recent.closed("s1");
    assert!(recent.route("s1", async { outage() }).await.is_err());
    // A logical error is never papered over.
    let stale = recent
        .route("s2", async { Err(StoreError::Corrupt("bad".into())) })
        .await;
    assert!(matches!(stale, Err(StoreError::Corrupt(_))));
}

#[tokio::test(start_paused = true)]
async fn a_registry_read_serves_calls_for_a_second_and_an_empty_one_is_read_again() {
    let recent = Recent::new(Grace::default());
    let worker = |id: &str| WorkerInfo {
        id: id.into(),
        address: String::new(),
        capacity: 4,
        live_sessions: 0,
    };
    let empty = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
    assert!(empty.is_empty());
    let first = recent
        .workers(async { Ok(vec![worker("w1")]) })
        .await
        .unwrap();
    assert_eq!(first.len(), 1, "an empty registry is not reused");
    tokio::time::advance(REGISTRY_REUSE - Duration::from_millis(1)).await;
    let reused = recent
        .workers(async { Ok(vec![worker("w1"), worker("w2")]) })
        .await
        .unwrap();
    assert_eq!(reused.len(), 1, "within the reuse the store is not asked");
    let fresh = recent
        .read_workers(async { Ok(vec![worker("w1"), worker("w2")]) })
        .await
        .unwrap();
    assert_eq!(fresh.len(), 2, "a forced read asks the store");
    tokio::time::advance(REGISTRY_REUSE).await;
    let later = recent
        .workers(async { Ok(vec![worker("w2")]) })
        .await
        .unwrap();
    assert_eq!(later[0].id, "w2", "past the reuse the store answers");
}

fn worker(id: &str, live: u32) -> WorkerInfo {
    WorkerInfo {
        id: id.into(),
        address: String::new(),
        capacity: 1_000,
        live_sessions: live,
    }
}

/// Places one session on the least loaded of `snapshot`, as a call does.
fn place_one(recent: &Recent, snapshot: &mut [WorkerInfo]) -> String {
    recent
        .place(snapshot, |ws| {
            let w = ws.iter_mut().min_by_key(|w| w.live_sessions)?;
            w.live_sessions += 1;
            Some(w.clone())
        })
        .unwrap()
        .id
}

fn counts(ws: &[WorkerInfo]) -> Vec<(&str, u32)> {
    ws.iter()
        .map(|w| (w.id.as_str(), w.live_sessions))
        .collect()
}

#[tokio::test(start_paused = true)]
async fn a_reused_registry_read_counts_the_sessions_this_gateway_placed() {
    let recent = Recent::new(Grace::default());
    recent
        .workers(async { Ok(vec![worker("w1", 0), worker("w2", 2)]) })
        .await
        .unwrap();
    let mut snapshot = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
    assert_eq!(place_one(&recent, &mut snapshot), "w1");
    assert_eq!(place_one(&recent, &mut snapshot), "w1");
    let reused = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
    assert_eq!(counts(&reused), [("w1", 2), ("w2", 2)]);
    tokio::time::advance(REGISTRY_REUSE - Duration::from_millis(1)).await;
    assert!(
        recent
            .workers(async { Ok(Vec::new()) })
            .await
            .is_ok_and(|w| w.len() == 2),
        "counting a placement does not make the read younger"
    );
}

#[tokio::test(start_paused = true)]
async fn the_calls_of_a_burst_spread_over_the_workers_though_each_read_before_the_others_placed() {
    let recent = Recent::new(Grace::default());
    let read = || async { Ok(vec![worker("w1", 0), worker("w2", 0)]) };
    recent.workers(read()).await.unwrap();
    // Every call of the burst took its snapshot before any of them placed.
    let mut snapshots = Vec::new();
    for _ in 0..100 {
        snapshots.push(recent.workers(read()).await.unwrap());
    }
    let mut on_w1 = 0;
    for snapshot in &mut snapshots {
        if place_one(&recent, snapshot) == "w1" {
            on_w1 += 1;
        }
    }
    assert_eq!(on_w1, 50, "the burst went {on_w1} / {} ", 100 - on_w1);
}

#[tokio::test(start_paused = true)]
async fn the_calls_that_find_the_registry_read_too_old_share_one_read() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU32, Ordering};
    let recent = Arc::new(Recent::new(Grace::default()));
    let reads = Arc::new(AtomicU32::new(0));
    let calls: Vec<_> = (0..10)
        .map(|_| {
            let (recent, reads) = (recent.clone(), reads.clone());
            tokio::spawn(async move {
                recent
                    .workers(async move {
                        reads.fetch_add(1, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        Ok(vec![worker("w1", 0)])
                    })
                    .await
                    .unwrap()
            })
        })
        .collect();
    for call in calls {
        assert_eq!(call.await.unwrap().len(), 1);
    }
    assert_eq!(reads.load(Ordering::SeqCst), 1, "each call asked Redis");
}

#[tokio::test(start_paused = true)]
async fn a_fresh_read_behind_this_gateways_placements_keeps_them_until_the_workers_had_time_to_count_them()
 {
    let recent = Recent::new(Grace::default());
    recent
        .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 3)]) })
        .await
        .unwrap();
    let mut snapshot = recent.workers(async { Ok(Vec::new()) }).await.unwrap();
    for _ in 0..4 {
        place_one(&recent, &mut snapshot);
    }
    // The workers' heartbeats have not counted those sessions yet.
    let behind = recent
        .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 4)]) })
        .await
        .unwrap();
    assert_eq!(counts(&behind), [("w1", 5), ("w2", 5)]);
    // A second read still behind, within the window: still counted.
    tokio::time::advance(UNREPORTED_FOR - Duration::from_millis(1)).await;
    let still = recent
        .read_workers(async { Ok(vec![worker("w1", 3), worker("w2", 4)]) })
        .await
        .unwrap();
    assert_eq!(counts(&still), [("w1", 5), ("w2", 5)]);
    // w1 counted them now; w2 did too, but one of its sessions closed,
    // which shows only once the window is over.
    let caught_up = recent
        .read_workers(async { Ok(vec![worker("w1", 5), worker("w2", 4)]) })
        .await
        .unwrap();
    assert_eq!(counts(&caught_up), [("w1", 5), ("w2", 5)]);
    // Past the window a worker's own count wins, even a lower one.
    tokio::time::advance(UNREPORTED_FOR).await;
    let own = recent
        .read_workers(async { Ok(vec![worker("w1", 2), worker("w2", 4)]) })
        .await
        .unwrap();
    assert_eq!(counts(&own), [("w1", 2), ("w2", 4)]);
}

#[test]
fn a_full_memory_drops_its_oldest_entries_first() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    rt.block_on(async {
        let m: Memory<usize, usize> = Memory::new("test");
        for i in 0..MAX_REMEMBERED {
            m.put(i, i);
            if i == 0 {
                tokio::time::advance(Duration::from_millis(1)).await;
            }
        }
        tokio::time::advance(Duration::from_millis(1)).await;
        m.put(MAX_REMEMBERED, 0);
        let entries = m.lock();
        assert!(!entries.contains_key(&0), "the oldest entry went");
        assert!(entries.contains_key(&MAX_REMEMBERED));
        assert!(entries.len() <= MAX_REMEMBERED);
    });
}

fn row(id: &str, tenant: &str, expires_at: i64) -> SessionRow {
    SessionRow {
        id: id.into(),
        tenant_id: tenant.into(),
        status: fleet_store::SessionStatus::Active,
        width: 1280,
        height: 720,
        epoch: 3,
        url: String::new(),
        title: String::new(),
        created_at: 0,
        updated_at: 0,
        expires_at,
        failure: String::new(),
    }
}

#[tokio::test(start_paused = true)]
async fn a_read_row_stands_in_for_its_tenant_until_it_expires_or_its_reuse_ends() {
    let recent = Recent::new(Grace::default());
    recent
        .session("s1", async { Ok(Some(row("s1", "t1", 1_000))) })
        .await
        .unwrap();
    assert_eq!(recent.live_row("s1", "t1", 999).map(|r| r.epoch), Some(3));
    assert!(
        recent.live_row("s1", "t2", 999).is_none(),
        "another tenant's"
    );
    assert!(recent.live_row("s1", "t1", 1_000).is_none(), "expired");
    assert!(recent.live_row("s2", "t1", 0).is_none(), "never read");
    // Past the reuse period since it was read, it must be read again.
    tokio::time::advance(Duration::from_secs(29)).await;
    assert!(recent.live_row("s1", "t1", 0).is_some());
    tokio::time::advance(Duration::from_secs(2)).await;
    assert!(recent.live_row("s1", "t1", 0).is_none());
    // A failed row is never reused, nor a forgotten one.
    let mut failed = row("s3", "t1", 1_000);
    failed.status = fleet_store::SessionStatus::Failed;
    recent.saw_session(failed);
    assert!(recent.live_row("s3", "t1", 0).is_none(), "failed");
    recent.saw_session(row("s4", "t1", 1_000));
    recent.forget_row("s4");
    assert!(recent.live_row("s4", "t1", 0).is_none(), "forgotten");
    // The outage memory is unaffected by the reuse period.
    assert!(
        recent
            .session("s1", async { outage() })
            .await
            .unwrap()
            .is_some()
    );
}
