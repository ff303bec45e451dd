//! One action's session: a new one is created on the least-loaded worker; an
//! existing one is looked up (another tenant's or an expired one is not found;
//! a row this gateway read lately stands in for reading it again while the
//! session's route stands, see [`crate::recent::Recent::live_row`]),
//! answered by the gateway for status and close, and otherwise run on the
//! worker its route names — or restored on another when that worker is gone.

use std::sync::Mutex;

use fleet_proto::v1::{
    self as pb, ActionError, ActionOutput, BrowserAction, ErrorCode, action::Kind, action_output,
};
use fleet_store::{SessionStatus, Tenant, WorkerInfo, now_millis};
use tracing::Instrument as _;

use super::answers::{fail, status, store_fail};
use super::{Caller, Dispatcher};
use crate::validate::DEFAULT_VIEWPORT;

impl Dispatcher {
    /// Runs one action on its session, creating the session when the action
    /// names none; either way the answer carries the session's ID.
    pub(super) async fn resolve_and_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        a: BrowserAction,
    ) -> Result<(String, ActionOutput), (String, ActionError)> {
        let action = a.action.unwrap_or_default();
        if a.session_id.is_empty() {
            let id = uuid::Uuid::new_v4().to_string();
            let out = self
                .create_and_run(tenant, workers, &id, a.viewport, action)
                .await;
            return out.map(|o| (id.clone(), o)).map_err(|e| (id, e));
        }
        // validate() proved the ID parses.
        let id = uuid::Uuid::parse_str(&a.session_id)
            .map(|u| u.to_string())
            .unwrap_or(a.session_id);
        let out = self
            .existing_run(tenant, workers, &id, action, Caller::Agent)
            .await;
        out.map(|o| (id.clone(), o)).map_err(|e| (id, e))
    }

    async fn create_and_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        id: &str,
        viewport: Option<pb::Viewport>,
        action: pb::Action,
    ) -> Result<ActionOutput, ActionError> {
        let Some(worker) = self.place(workers, None).await else {
            self.note_unplaced(id).await;
            return Err(fail(
                ErrorCode::Unavailable,
                "no worker has room for a new session; try again shortly",
            ));
        };
        let worker = &worker;
        let viewport = viewport.unwrap_or(DEFAULT_VIEWPORT);
        // A status on no session opens a blank tab (the worker creates it on
        // any action; inspecting a blank page is the cheapest) and reports it.
        let status_of_new = matches!(action.kind, Some(Kind::Status(_)));
        let action = if status_of_new {
            pb::Action {
                kind: Some(Kind::Inspect(pb::Inspect {})),
                ..action
            }
        } else {
            action
        };
        // The route and the row at once: a create waits for the slower store,
        // not for both. What one store wrote is taken back when the other
        // failed, so a failed create leaves neither.
        let route = async {
            let (route, created) = tokio::join!(
                self.routing.claim(id, &worker.id, 0),
                self.store.create_session(
                    id,
                    &tenant.id,
                    viewport.width,
                    viewport.height,
                    self.session_ttl_ms,
                )
            );
            match (route, created) {
                (Ok(route), Ok(row)) => {
                    self.recent.saw_session(row.clone());
                    Ok((route, row))
                }
                (Err(e), created) => {
                    if created.is_ok()
                        && let Err(undo) = self.store.delete_session(id, &tenant.id).await
                    {
                        tracing::warn!(error = %undo, session = %id, "could not take back the row of a session that was not routed");
                    }
                    Err(store_fail(e))
                }
                (Ok(_), Err(e)) => {
                    if let Err(forget) = self.routing.forget(id).await {
                        tracing::warn!(error = %forget, session = %id, "could not take back the route of a session that was not created");
                    }
                    Err(store_fail(e))
                }
            }
        }
        .instrument(tracing::info_span!("routing"))
        .await?;
        let (route, row) = route;
        self.recent.claimed(id, route.clone());
        let req = pb::RunRequest {
            session_id: id.to_owned(),
            tenant_id: tenant.id.clone(),
            epoch: route.epoch,
            create: true,
            viewport: Some(viewport),
            action: Some(action),
        };
        let out = self.send(workers, worker.clone(), 0, req).await?;
        if status_of_new {
            return Ok(status(&row, true));
        }
        Ok(out)
    }

    pub(super) async fn existing_run(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        id: &str,
        action: pb::Action,
        caller: Caller<'_>,
    ) -> Result<ActionOutput, ActionError> {
        // What the gateway answers itself, and closing, read the row as stored.
        let fresh = matches!(
            action.kind,
            Some(Kind::Status(_) | Kind::LiveView(_) | Kind::CdpEndpoint(_) | Kind::Close(_))
        );
        let reused = if fresh {
            None
        } else {
            self.recent.live_row(id, &tenant.id, now_millis())
        };
        let (row, route, controller) = async {
            let stored_row = || self.recent.session(id, self.store.session(id));
            let read_row = async {
                match &reused {
                    Some(row) => Ok(Some(row.clone())),
                    None => stored_row().await,
                }
            };
            // The route and its controller come from Redis in one round
            // trip; the row (when read) from Postgres at the same time: a call
            // waits for the slower store, not for their sum.
            let mut controller = None;
            let route_read = async {
                let (route, held) = self.routing.route_and_controller(id).await?;
                controller = held;
                Ok(route)
            };
            let (row, route) = tokio::join!(read_row, self.recent.route(id, route_read));
            // Control is a person's lease, not data: with Redis away (the
            // route remembered, or not), agents act as though no one held it.
            let route = route.map_err(store_fail)?;
            // Without a route the session may have been closed (by any
            // gateway), and a restore's claim needs the stored epoch.
            let row = match (&reused, &route) {
                (Some(_), None) => stored_row().await,
                _ => row,
            };
            Ok::<_, ActionError>((row.map_err(store_fail)?, route, controller))
        }
        .instrument(tracing::info_span!("routing"))
        .await?;
        let row = match row {
            // Another tenant's session, or an expired one not swept yet, is
            // indistinguishable from a missing one.
            Some(row) if row.tenant_id == tenant.id && !row.expired(now_millis()) => row,
            _ => {
                return Err(fail(
                    ErrorCode::SessionNotFound,
                    format!("session {id} was not found"),
                ));
            }
        };
        let registered = match &route {
            Some(r) => self.registered(workers, &r.worker).await,
            None => None,
        };
        match &action.kind {
            Some(Kind::Status(_)) => return Ok(status(&row, registered.is_some())),
            Some(Kind::LiveView(view)) => return self.live_link(id, view),
            Some(Kind::CdpEndpoint(_)) => return self.cdp_link(id),
            _ => {}
        }
        Self::check_control(id, controller.as_deref(), caller, action.kind.as_ref())?;
        if let Some(Kind::Close(_)) = action.kind {
            return self.close(tenant, id).await;
        }
        if row.status == SessionStatus::Failed {
            return Err(fail(
                ErrorCode::EngineFailed,
                format!("session {id} failed and cannot be used: {}", row.failure),
            ));
        }
        let live = registered.or_else(|| {
            route
                .as_ref()
                .and_then(|r| self.recent.worker_seen(&r.worker))
        });
        let (worker, epoch) = match (live, route) {
            (Some(w), Some(r)) => (w, r.epoch),
            _ => {
                // No owner, or the owner is gone: restore on the least-loaded worker.
                let Some(w) = self.place(workers, None).await else {
                    self.note_unplaced(id).await;
                    return Err(fail(
                        ErrorCode::Unavailable,
                        "no worker has room to restore the session; try again shortly",
                    ));
                };
                let r = self
                    .routing
                    .claim(id, &w.id, row.epoch)
                    .await
                    .map_err(store_fail)?;
                self.recent.claimed(id, r.clone());
                (w, r.epoch)
            }
        };
        let req = pb::RunRequest {
            session_id: id.to_owned(),
            tenant_id: tenant.id.clone(),
            epoch,
            create: false,
            viewport: None,
            action: Some(action),
        };
        let answer = self.send(workers, worker, row.epoch, req).await;
        if let Err(e) = &answer
            && reused.is_some()
            && matches!(
                e.code(),
                ErrorCode::EngineFailed | ErrorCode::SessionNotFound
            )
        {
            // The row may say so by now (a failed restore marks it): the
            // next call reads it.
            self.recent.forget_row(id);
        }
        answer
    }

    /// The worker `id` as the call's registry snapshot lists it. The snapshot
    /// may be a reused read ([`crate::recent::REGISTRY_REUSE`]) from before
    /// `id` registered: a worker missing from it is looked for in a fresh
    /// read before the session is taken from it.
    async fn registered(&self, workers: &Mutex<Vec<WorkerInfo>>, id: &str) -> Option<WorkerInfo> {
        let listed = |ws: &[WorkerInfo]| ws.iter().find(|w| w.id == id).cloned();
        if let Some(w) = listed(&workers.lock().unwrap_or_else(|p| p.into_inner())) {
            return Some(w);
        }
        let fresh = self
            .recent
            .read_workers(self.routing.workers())
            .await
            .ok()?;
        let found = listed(&fresh);
        if found.is_some() {
            *workers.lock().unwrap_or_else(|p| p.into_inner()) = fresh;
        }
        found
    }

    /// Deletes a session with everything stored for it. Its route goes too, so a
    /// worker still holding it is refused by fencing and drops it when idle.
    async fn close(&self, tenant: &Tenant, id: &str) -> Result<ActionOutput, ActionError> {
        if !self
            .store
            .delete_session(id, &tenant.id)
            .await
            .map_err(store_fail)?
        {
            return Err(fail(
                ErrorCode::SessionNotFound,
                format!("session {id} was not found"),
            ));
        }
        self.recent.closed(id);
        if let Some(recordings) = &self.recordings {
            recordings.session_closed(id).await;
        }
        self.routing.forget(id).await.map_err(store_fail)?;
        self.publish_closed(id).await;
        Ok(ActionOutput {
            kind: Some(action_output::Kind::Closed(pb::Closed { closed: true })),
        })
    }
}
