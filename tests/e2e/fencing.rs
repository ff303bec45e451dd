//! Epoch fencing, the fleet's core safety property, on the real stores: a
//! worker runs a session only at the epoch its route names, Postgres refuses a
//! checkpoint from an older epoch even when writers race, and a call still
//! running on an old owner cannot save once a new owner has taken the session
//! over — so no acknowledged call is overwritten behind the agent's back.

use fleet_proto::v1::{self as pb, worker_client::WorkerClient};
use fleet_store::{Part, SessionStore as _, SqlStore, StoreError};
use serde_json::json;

use crate::harness::{Database, Fleet, eval, open};
use crate::held::Held;

/// Sends one evaluate straight to a worker, as a gateway would.
async fn run(
    worker: &str,
    session: &str,
    epoch: u64,
    script: &str,
) -> Result<pb::RunResponse, tonic::Status> {
    let mut client = WorkerClient::connect(format!("http://{worker}"))
        .await
        .unwrap();
    client
        .run(pb::RunRequest {
            session_id: session.to_owned(),
            tenant_id: "fencing".into(),
            epoch,
            create: false,
            viewport: None,
            action: Some(pb::Action {
                kind: Some(pb::action::Kind::Evaluate(pb::Evaluate {
                    script: script.to_owned(),
                })),
                max_duration_ms: 15_000,
            }),
        })
        .await
        .map(tonic::Response::into_inner)
}

/// Asserts that a worker refused a call without running it.
fn assert_refused(result: Result<pb::RunResponse, tonic::Status>, what: &str) {
    let status = result.expect_err(what);
    assert_eq!(status.code(), tonic::Code::Unavailable, "{what}: {status}");
    assert_eq!(
        status
            .metadata()
            .get(fleet_proto::REFUSED_MARKER)
            .map(|v| v.to_str().unwrap()),
        Some("1"),
        "{what}: a refusal carries the marker that nothing ran ({status})"
    );
}

async fn stored_epoch(db: &Database, session: &str) -> i64 {
    let mut conn = db.connect().await;
    sqlx::query_scalar("SELECT epoch FROM sessions WHERE id = $1")
        .bind(session)
        .fetch_one(&mut conn)
        .await
        .unwrap()
}

fn worker_index(id: &str) -> usize {
    id.trim_start_matches("worker-").parse().unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_refuses_a_stale_epoch_and_a_session_it_does_not_own_and_nothing_runs() {
    let held = Held::start().await;
    let fleet = Fleet::start(2).await;
    let client = fleet.client("fencing").await;
    let (id, _) = open(&client, &held.page("fenced")).await;
    eval(&client, &id, "localStorage.setItem('k', 'v1'); 1").await;
    let (_, first_epoch) = fleet.route(&id).await;
    // A lost route makes the next call restore under a new epoch.
    fleet.forget_route(&id).await;
    assert_eq!(eval(&client, &id, "localStorage.getItem('k')").await, "v1");
    let (owner, epoch) = fleet.route(&id).await;
    assert!(epoch > first_epoch, "{first_epoch} → {epoch}");
    let other = &fleet.workers[1 - worker_index(&owner)].0;
    let owner = &fleet.workers[worker_index(&owner)].0;

    // Each call would leave a mark and a request to the fixture if it ran.
    let mark = |tag: &str| {
        format!(
            "localStorage.setItem('k', '{tag}'); const x = new XMLHttpRequest(); \
             x.open('GET', '{}', false); x.send(); 1",
            held.page(tag)
        )
    };
    assert_refused(
        run(owner, &id, first_epoch, &mark("stale")).await,
        "the owner at an older epoch",
    );
    assert_refused(
        run(owner, &id, epoch + 1, &mark("future")).await,
        "the owner at an epoch no claim made",
    );
    assert_refused(
        run(other, &id, epoch, &mark("elsewhere")).await,
        "another worker at the current epoch",
    );
    for tag in ["stale", "future", "elsewhere"] {
        assert_eq!(held.hits(tag), 0, "the {tag} call ran");
    }
    assert_eq!(
        stored_epoch(&fleet.db, &id).await,
        i64::try_from(epoch).unwrap()
    );
    assert_eq!(fleet.route(&id).await.1, epoch, "a refusal moved the route");
    assert_eq!(eval(&client, &id, "localStorage.getItem('k')").await, "v1");
    // The control: the same call at the route's epoch runs.
    let ok = run(owner, &id, epoch, &mark("owner")).await.unwrap();
    assert!(
        matches!(ok.outcome, Some(pb::run_response::Outcome::Output(_))),
        "{ok:?}"
    );
    assert_eq!(held.hits("owner"), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_call_still_running_on_the_old_owner_cannot_save_after_a_new_owner_took_over() {
    let held = Held::start().await;
    let fleet = Fleet::start(2).await;
    let client = fleet.client("fencing").await;
    let (id, _) = open(&client, &held.page("start")).await;
    eval(&client, &id, "localStorage.setItem('k', 'v0'); 1").await;
    let (old_owner, old_epoch) = fleet.route(&id).await;
    let a = worker_index(&old_owner);
    let (old_addr, new_addr) = (fleet.workers[a].0.clone(), fleet.workers[1 - a].0.clone());
    let wait_then = |name: &str, then: &str| {
        format!(
            "const x = new XMLHttpRequest(); x.open('GET', '{}', false); x.send(); {then}",
            held.hold(name)
        )
    };

    // The old owner passes its route check and waits inside the page.
    let on_old = tokio::spawn({
        let (id, script) = (
            id.clone(),
            wait_then("old", "localStorage.setItem('k', 'from-old'); 'old'"),
        );
        async move { run(&old_addr, &id, old_epoch, &script).await }
    });
    held.arrived("old").await;

    // Meanwhile a gateway that took the old owner for gone gives the session
    // to the other worker, which restores it and waits inside the page too.
    let routing = fleet_store::RedisRouting::connect(&fleet.redis_url, "")
        .await
        .unwrap();
    let new_owner = format!("worker-{}", 1 - a);
    let new_epoch = fleet_store::Routing::claim(&routing, &id, &new_owner, 0)
        .await
        .unwrap()
        .epoch;
    assert!(new_epoch > old_epoch);
    let on_new = tokio::spawn({
        let (id, script) = (
            id.clone(),
            wait_then(
                "new",
                "const seen = localStorage.getItem('k'); localStorage.setItem('k', 'from-new'); seen",
            ),
        );
        async move { run(&new_addr, &id, new_epoch, &script).await }
    });
    held.arrived("new").await;

    // The old owner's call finishes first: its checkpoint must be refused, or
    // it would be acknowledged and then overwritten by the new owner's.
    held.release("old");
    let old = on_old.await.unwrap().unwrap();
    let Some(pb::run_response::Outcome::Error(error)) = &old.outcome else {
        panic!("the old owner's call was acknowledged after the takeover: {old:?}");
    };
    assert_eq!(error.code, pb::ErrorCode::Unavailable as i32, "{error:?}");
    assert!(error.message.contains("moved"), "{error:?}");

    held.release("new");
    let new = on_new.await.unwrap().unwrap();
    let Some(pb::run_response::Outcome::Output(pb::ActionOutput {
        kind: Some(pb::action_output::Kind::Evaluate(value)),
    })) = &new.outcome
    else {
        panic!("the new owner's call failed: {new:?}");
    };
    assert_eq!(
        value.value_json, "\"v0\"",
        "the new owner restored {value:?}"
    );
    assert_eq!(fleet.route(&id).await, (new_owner, new_epoch));
    assert_eq!(
        stored_epoch(&fleet.db, &id).await,
        i64::try_from(new_epoch).unwrap()
    );
    assert_eq!(
        eval(&client, &id, "localStorage.getItem('k')").await,
        json!("from-new")
    );
    assert_eq!((held.hits("old"), held.hits("new")), (1, 1));
}

async fn postgres_store() -> (Database, SqlStore, String) {
    let db = Database::create().await;
    let store = SqlStore::connect(&db.url).await.unwrap();
    store.migrate().await.unwrap();
    let tenant = store.ensure_tenant("fencing").await.unwrap();
    let id = uuid::Uuid::new_v4().to_string();
    store
        .create_session(&id, &tenant.id, 800, 600, 60_000)
        .await
        .unwrap();
    (db, store, id)
}

/// Three parts, each filled with the epoch's byte; one spans several chunks.
fn parts_of(epoch: u8) -> Vec<(String, Vec<u8>)> {
    vec![
        ("cookies".into(), vec![epoch; 10]),
        ("engine".into(), vec![epoch; 600 * 1024]),
        ("fonts".into(), vec![epoch; 3]),
    ]
}

fn refs(parts: &[(String, Vec<u8>)]) -> Vec<Part<'_>> {
    parts.iter().map(|(n, d)| Part::new(n.clone(), d)).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checkpoints_racing_on_postgres_leave_the_newest_epochs_parts_whole() {
    let (_db, store, id) = postgres_store().await;
    // Newest first, so that without the fence the oldest writer, which tends
    // to arrive last, would win.
    let writers: Vec<_> = (1..=12u8)
        .rev()
        .map(|epoch| {
            let (store, id) = (store.clone(), id.clone());
            tokio::spawn(async move {
                let parts = parts_of(epoch);
                let result = store
                    .save_checkpoint(&id, u64::from(epoch), &refs(&parts), "u", "t", 60_000)
                    .await;
                (epoch, result)
            })
        })
        .collect();
    for writer in writers {
        let (epoch, result) = writer.await.unwrap();
        match result {
            Ok(_) => {}
            Err(StoreError::StaleEpoch { given, current }) => {
                assert_eq!(given, u64::from(epoch));
                assert!(current > given, "refused {given} for {current}");
            }
            Err(e) => panic!("epoch {epoch}: {e}"),
        }
        if epoch == 12 {
            // The newest can never be refused.
            assert!(result.is_ok(), "{result:?}");
        }
    }
    let stored = store.load_checkpoint(&id).await.unwrap().unwrap();
    assert_eq!(stored.epoch, 12);
    assert_eq!(stored.parts, parts_of(12), "parts of several writers mixed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_takeover_on_postgres_refuses_later_saves_from_older_owners() {
    let (_db, store, id) = postgres_store().await;
    store
        .save_checkpoint(&id, 3, &refs(&parts_of(3)), "u", "t", 60_000)
        .await
        .unwrap();
    let taken = store.take_over(&id, 5).await.unwrap().unwrap();
    assert_eq!((taken.epoch, taken.parts), (3, parts_of(3)));
    let late = store
        .save_checkpoint(&id, 4, &refs(&parts_of(4)), "u", "t", 60_000)
        .await;
    assert_stale(&late, 4, 5, "a save by an owner older than the takeover");
    let older = store.take_over(&id, 4).await;
    assert_stale(&older, 4, 5, "a takeover older than the last");
    store
        .save_checkpoint(&id, 5, &refs(&parts_of(5)), "u", "t", 60_000)
        .await
        .unwrap();
    assert_eq!(
        store.load_checkpoint(&id).await.unwrap().unwrap().parts,
        parts_of(5)
    );
    assert!(matches!(
        store.take_over("no-such-session", 1).await,
        Err(StoreError::NotFound)
    ));
}

/// Asserts that `result` refused epoch `given` because `current` is stored.
fn assert_stale<T: std::fmt::Debug>(
    result: &Result<T, StoreError>,
    given: u64,
    current: u64,
    what: &str,
) {
    assert!(
        matches!(result, Err(StoreError::StaleEpoch { given: g, current: c }) if (*g, *c) == (given, current)),
        "{what}: {result:?}"
    );
}

/// Parts named and filled as given.
fn named(list: &[(&str, u8, usize)]) -> Vec<(String, Vec<u8>)> {
    list.iter()
        .map(|(name, byte, len)| ((*name).to_owned(), vec![*byte; *len]))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn checkpoints_again_at_one_epoch_store_exactly_the_new_parts_and_stay_fenced() {
    let (db, store, id) = postgres_store().await;
    store
        .save_checkpoint(&id, 3, &refs(&parts_of(3)), "u", "t", 60_000)
        .await
        .unwrap();
    // The same owner again: one part unchanged, one shrunk from three chunks
    // to one, one dropped, one new.
    let second = named(&[("cookies", 3, 10), ("engine", 7, 10), ("page", 7, 5)]);
    let cost = store
        .save_checkpoint(&id, 3, &refs(&second), "u2", "t2", 60_000)
        .await
        .unwrap();
    assert_eq!((cost.parts_written, cost.parts_unchanged), (2, 1));
    let stored = store.load_checkpoint(&id).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (3, second.clone()));
    let row = store.session(&id).await.unwrap().unwrap();
    assert_eq!((row.url.as_str(), row.title.as_str()), ("u2", "t2"));

    // Another process's store takes the session at a newer epoch.
    let newer = SqlStore::connect(&db.url).await.unwrap();
    newer
        .save_checkpoint(&id, 4, &refs(&parts_of(4)), "u4", "t4", 60_000)
        .await
        .unwrap();
    for _ in 0..2 {
        let late = store
            .save_checkpoint(&id, 3, &refs(&second), "u3", "t3", 60_000)
            .await;
        let what = "an owner that wrote last at its epoch saved over a newer one";
        assert_stale(&late, 3, 4, what);
    }
    let stored = store.load_checkpoint(&id).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (4, parts_of(4)));

    // The newer owner again: a part grows to five chunks, then to more than
    // one statement carries.
    for chunks in [5, 20] {
        let grown = named(&[
            ("cookies", 4, 10),
            ("engine", 9, 256 * 1024 * chunks - 1),
            ("fonts", 4, 3),
        ]);
        newer
            .save_checkpoint(&id, 4, &refs(&grown), "u4", "t4", 60_000)
            .await
            .unwrap();
        let stored = newer.load_checkpoint(&id).await.unwrap().unwrap();
        assert_eq!((stored.epoch, stored.parts), (4, grown), "{chunks} chunks");
    }
    let row = store.session(&id).await.unwrap().unwrap();
    assert_eq!((row.url.as_str(), row.title.as_str()), ("u4", "t4"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_new_sessions_first_checkpoint_is_one_statement_and_still_fenced() {
    let (db, store, id) = postgres_store().await;
    // The worker that created the session says so: the first save needs no
    // transaction, and a later one goes over it as usual.
    store.created(&id);
    let first = store
        .save_checkpoint(&id, 2, &refs(&parts_of(2)), "u", "t", 60_000)
        .await
        .unwrap();
    assert!(first.one_statement, "{first:?}");
    assert_eq!((first.parts_written, first.parts_unchanged), (3, 0));
    let stored = store.load_checkpoint(&id).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (2, parts_of(2)));
    let row = store.session(&id).await.unwrap().unwrap();
    assert_eq!((row.epoch, row.url.as_str()), (2, "u"));

    // Told a session is new after another owner saved it: the fence on the
    // unsaved row does not hold, so an older epoch is still refused and a
    // newer one replaces exactly what that owner stored (its parts this save
    // does not have are dropped, not kept as if nothing were stored).
    let tenant = store.ensure_tenant("fencing").await.unwrap();
    let other = uuid::Uuid::new_v4().to_string();
    store
        .create_session(&other, &tenant.id, 800, 600, 60_000)
        .await
        .unwrap();
    let newer = SqlStore::connect(&db.url).await.unwrap();
    newer
        .save_checkpoint(&other, 3, &refs(&parts_of(3)), "u3", "t3", 60_000)
        .await
        .unwrap();
    store.created(&other);
    let late = store
        .save_checkpoint(&other, 2, &refs(&parts_of(2)), "u2", "t2", 60_000)
        .await;
    assert_stale(&late, 2, 3, "a first save older than the stored owner's");
    let stored = store.load_checkpoint(&other).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (3, parts_of(3)));
    store.created(&other);
    let only_page = named(&[("page", 4, 5)]);
    let took = store
        .save_checkpoint(&other, 4, &refs(&only_page), "u4", "t4", 60_000)
        .await
        .unwrap();
    assert!(!took.one_statement, "{took:?}");
    let stored = store.load_checkpoint(&other).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (4, only_page));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_checkpoint_that_repeats_the_last_write_is_not_sent_and_cannot_change_a_newer_owners() {
    let (db, store, id) = postgres_store().await;
    let parts = parts_of(3);
    let first = store
        .save_checkpoint(&id, 3, &refs(&parts), "u", "t", 60_000)
        .await
        .unwrap();
    assert!(!first.unsent);
    // Marks the row, so a write that reaches Postgres shows.
    let mut pg = db.connect().await;
    let mark = "UPDATE sessions SET updated_at = 7 WHERE id = $1";
    sqlx::query(mark).bind(&id).execute(&mut pg).await.unwrap();
    let again = store
        .save_checkpoint(&id, 3, &refs(&parts), "u", "t", 60_000)
        .await
        .unwrap();
    assert!(again.unsent, "{again:?}");
    assert_eq!((again.parts_written, again.parts_unchanged), (0, 3));
    assert_eq!(store.session(&id).await.unwrap().unwrap().updated_at, 7);

    // A new title is a change: it is written, and over the one statement.
    let retitled = store
        .save_checkpoint(&id, 3, &refs(&parts), "u", "t2", 60_000)
        .await
        .unwrap();
    assert!(!retitled.unsent);
    let row = store.session(&id).await.unwrap().unwrap();
    assert!(row.updated_at > 7, "{row:?}");
    assert_eq!(row.title, "t2");

    // Another process's store takes the session over. A repeat from the old
    // owner within seconds is not sent, so it writes nothing (its read
    // answers as it would have just before the takeover); its next save that
    // changes anything is refused.
    let newer = SqlStore::connect(&db.url).await.unwrap();
    newer
        .save_checkpoint(&id, 4, &refs(&parts_of(4)), "u4", "t4", 60_000)
        .await
        .unwrap();
    let repeat = store
        .save_checkpoint(&id, 3, &refs(&parts), "u", "t2", 60_000)
        .await
        .unwrap();
    assert!(repeat.unsent, "{repeat:?}");
    let late = store
        .save_checkpoint(&id, 3, &refs(&parts_of(5)), "u", "t2", 60_000)
        .await;
    assert_stale(&late, 3, 4, "a change by the old owner after the takeover");
    let stored = store.load_checkpoint(&id).await.unwrap().unwrap();
    assert_eq!((stored.epoch, stored.parts), (4, parts_of(4)));
    let row = store.session(&id).await.unwrap().unwrap();
    assert_eq!((row.url.as_str(), row.title.as_str()), ("u4", "t4"));
}
