//! A long wait over `Browser.Watch` (`LongWait`): the watcher's stream of
//! events, checked against a condition on the page until it holds or the
//! wait's time passes, then one `waited` event, and the end.
//!
//! A page changes only inside actions, so the gateway checks the condition
//! with one `Wait` action (a short slice of page time, so the page's own
//! timers run) when the wait starts, soon after anyone else navigates or
//! changes the page (their events on the bus say so), and every few seconds
//! otherwise. The `changed` event each check itself causes is not passed on
//! and does not prompt another check.

use std::time::Duration;

use fleet_proto::v1::{
    self as pb, BrowserAction, ErrorCode, action, action_response::Outcome, session_event::Kind,
};
use fleet_proto::watch::{
    CHECK_PAGE_MS, DEFAULT_WAIT_MS, MAX_WAIT_MS, MIN_GAP_MS, MIN_WAIT_MS, RECHECK_MS,
};
use fleet_store::{Tenant, now_millis};
use futures::StreamExt as _;
use tokio::time::Instant;

use super::Dispatcher;
use super::watch::EventStream;
use crate::error::GatewayError;
use crate::validate::MAX_TARGET_CHARS;

/// Checks a wait's condition and time.
pub(super) fn validate(wait: &pb::LongWait) -> Result<(), GatewayError> {
    let invalid = |m: String| Err(GatewayError::Invalid(m));
    let field = match (&wait.selector, &wait.text) {
        (Some(s), None) => ("selector", s),
        (None, Some(t)) => ("text", t),
        (Some(_), Some(_)) => {
            return invalid("until needs exactly one of selector or text; got both".into());
        }
        (None, None) => {
            return invalid("until needs exactly one of selector or text; got neither".into());
        }
    };
    let chars = field.1.chars().count();
    if field.1.trim().is_empty() || chars > MAX_TARGET_CHARS {
        return invalid(format!(
            "until.{} must be 1 to {MAX_TARGET_CHARS} characters; got {chars}",
            field.0
        ));
    }
    if wait.timeout_ms != 0 && !(MIN_WAIT_MS..=MAX_WAIT_MS).contains(&wait.timeout_ms) {
        return invalid(format!(
            "until.timeoutMs must be {MIN_WAIT_MS} to {MAX_WAIT_MS} (10 minutes); got {}",
            wait.timeout_ms
        ));
    }
    Ok(())
}

/// What one check found.
enum Check {
    Met,
    NotYet,
    /// The wait cannot go on; the reason a client may read.
    Failed(String),
}

struct Waiting {
    dispatcher: Dispatcher,
    tenant: Tenant,
    id: String,
    until: pb::LongWait,
    events: EventStream,
    started: Instant,
    deadline: Instant,
    next_check: Instant,
    last_check: Instant,
    checks: u32,
    /// `changed` events the checks caused that have not arrived yet.
    own_changes: u32,
}

impl Dispatcher {
    /// `events`, waiting on `until` in session `id` of `tenant` as well.
    pub(super) fn long_wait(
        &self,
        tenant: &Tenant,
        id: &str,
        until: pb::LongWait,
        events: EventStream,
    ) -> EventStream {
        let now = Instant::now();
        let ms = match until.timeout_ms {
            0 => DEFAULT_WAIT_MS,
            ms => ms,
        };
        let waiting = Waiting {
            dispatcher: self.clone(),
            tenant: tenant.clone(),
            id: id.to_owned(),
            until,
            events,
            started: now,
            deadline: now + Duration::from_millis(u64::from(ms)),
            next_check: now,
            last_check: now,
            checks: 0,
            own_changes: 0,
        };
        Box::pin(futures::stream::unfold(Some(waiting), |state| async move {
            let mut w = state?;
            loop {
                tokio::select! {
                    event = w.events.next() => {
                        let event = event?;
                        match event.kind {
                            Some(Kind::Closed(_)) => return Some((event, None)),
                            Some(Kind::Changed(_)) if w.own_changes > 0 => {
                                w.own_changes -= 1;
                                continue;
                            }
                            Some(Kind::Changed(_) | Kind::Navigated(_)) => w.soon(),
                            _ => {}
                        }
                        return Some((event, Some(w)));
                    }
                    () = tokio::time::sleep_until(w.next_check) => match w.check().await {
                        Check::Met => return Some((w.waited(true, String::new()), None)),
                        Check::NotYet => {
                            w.next_check = Instant::now() + Duration::from_millis(RECHECK_MS);
                        }
                        Check::Failed(why) => return Some((w.waited(false, why), None)),
                    },
                    () = tokio::time::sleep_until(w.deadline) => {
                        return Some((w.waited(false, String::new()), None));
                    }
                }
            }
        }))
    }
}

impl Waiting {
    /// Brings the next check forward, not sooner than a moment after the last.
    fn soon(&mut self) {
        let soonest = self.last_check + Duration::from_millis(MIN_GAP_MS);
        self.next_check = self.next_check.min(soonest.max(Instant::now()));
    }

    async fn check(&mut self) -> Check {
        self.checks += 1;
        self.last_check = Instant::now();
        let wait = pb::Wait {
            selector: self.until.selector.clone(),
            text: self.until.text.clone(),
            time_ms: CHECK_PAGE_MS,
        };
        let call = vec![BrowserAction {
            session_id: self.id.clone(),
            viewport: None,
            action: Some(pb::Action {
                kind: Some(action::Kind::Wait(wait)),
                max_duration_ms: 0,
            }),
        }];
        let outcome = match self.dispatcher.execute(&self.tenant, call).await {
            Ok(mut answer) => answer.responses.pop().and_then(|r| r.outcome),
            // The stores are away: try again at the next check.
            Err(e) if e.code() == ErrorCode::Unavailable => return Check::NotYet,
            Err(e) => return Check::Failed(e.to_string()),
        };
        // A check that ran may have changed the page: its event is its own.
        let ran = |code: ErrorCode| code == ErrorCode::Timeout;
        match outcome {
            Some(Outcome::Output(_)) => {
                self.own_changes += 1;
                Check::Met
            }
            Some(Outcome::Error(e)) if ran(e.code()) => {
                self.own_changes += 1;
                Check::NotYet
            }
            // A person holds control, or a worker is briefly away.
            Some(Outcome::Error(e))
                if matches!(e.code(), ErrorCode::HumanInControl | ErrorCode::Unavailable) =>
            {
                Check::NotYet
            }
            Some(Outcome::Error(e)) => Check::Failed(e.message),
            None => Check::Failed("the session gave no answer".into()),
        }
    }

    fn waited(&self, met: bool, error: String) -> pb::SessionEvent {
        let elapsed = self.started.elapsed().as_millis();
        pb::SessionEvent {
            session_id: self.id.clone(),
            at_ms: now_millis(),
            kind: Some(Kind::Waited(pb::WaitedEvent {
                met,
                elapsed_ms: u64::try_from(elapsed).unwrap_or(u64::MAX),
                checks: self.checks,
                error,
            })),
        }
    }
}
