//! The dispatcher's side of live views: the link `servo_live_view` answers,
//! who may act on a session while a person holds control of it, and the
//! actions a live page runs (its frames, and the person's input).

use std::sync::Mutex;

use fleet_proto::v1::{self as pb, ActionError, ActionOutput, BrowserAction, ErrorCode};
use fleet_store::Tenant;

use super::Dispatcher;
use super::answers::fail;
use crate::error::GatewayError;

/// Who is calling on a session.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Caller<'a> {
    /// An agent, through MCP or gRPC.
    Agent,
    /// A live page; `holder` names it when it holds control.
    Live { holder: &'a str },
}

impl Dispatcher {
    /// The live-view link of session `id`, which the caller owns.
    pub(super) fn live_link(
        &self,
        id: &str,
        view: &pb::LiveView,
    ) -> Result<ActionOutput, ActionError> {
        let Some(links) = &self.live else {
            return Err(fail(
                ErrorCode::InvalidArgument,
                "live views are not available on this gateway",
            ));
        };
        let mode = if view.mode.is_empty() {
            "view"
        } else {
            view.mode.as_str()
        };
        Ok(ActionOutput {
            kind: Some(pb::action_output::Kind::LiveView(links.link(id, mode))),
        })
    }

    /// The DevTools endpoint of session `id`, which the caller owns.
    pub(super) fn cdp_link(&self, id: &str) -> Result<ActionOutput, ActionError> {
        let Some(links) = &self.live else {
            return Err(fail(
                ErrorCode::InvalidArgument,
                "DevTools endpoints are not available on this gateway",
            ));
        };
        Ok(ActionOutput {
            kind: Some(pb::action_output::Kind::CdpEndpoint(links.cdp(id))),
        })
    }

    /// Whether `caller` may run `kind` on session `id`, whose control
    /// `controller` holds (if anyone). A live page may always paint a frame;
    /// its input needs the control it holds. An agent is refused while
    /// anyone holds control.
    pub(super) fn check_control(
        id: &str,
        controller: Option<&str>,
        caller: Caller<'_>,
        kind: Option<&pb::action::Kind>,
    ) -> Result<(), ActionError> {
        match caller {
            Caller::Agent if controller.is_none() => Ok(()),
            Caller::Agent => Err(fail(
                ErrorCode::HumanInControl,
                format!(
                    "a person is controlling session {id} through a live view; agents' calls on it are refused until they release control"
                ),
            )),
            Caller::Live { .. } if matches!(kind, Some(pb::action::Kind::Screenshot(_))) => Ok(()),
            Caller::Live { holder } if controller == Some(holder) => Ok(()),
            Caller::Live { .. } => Err(fail(
                ErrorCode::HumanInControl,
                "this live view does not hold control of the session",
            )),
        }
    }

    /// Runs `action` on session `id` for a live page. The action passes the
    /// same validation and read-only checks as an agent's.
    pub(crate) async fn run_live(
        &self,
        tenant: &Tenant,
        id: &str,
        holder: &str,
        action: pb::Action,
    ) -> Result<ActionOutput, ActionError> {
        let call = [BrowserAction {
            session_id: id.to_owned(),
            viewport: None,
            action: Some(action),
        }];
        crate::validate::validate(&call).map_err(refused)?;
        if self.read_only {
            crate::read_only::check(&call).map_err(refused)?;
        }
        let [call] = call;
        let workers = self
            .recent
            .workers(self.routing.workers())
            .await
            .map_err(super::store_fail)?;
        let workers = Mutex::new(workers);
        let action = call.action.unwrap_or_default();
        self.existing_run(tenant, &workers, id, action, Caller::Live { holder })
            .await
    }

    /// The session events' bus.
    pub(crate) fn events(&self) -> &std::sync::Arc<dyn fleet_store::Events> {
        &self.events
    }
}

/// A refused live action's error: the refusal's own words when they are the
/// caller's to read, a generic one otherwise.
fn refused(e: GatewayError) -> ActionError {
    match &e {
        GatewayError::Invalid(m) => fail(ErrorCode::InvalidArgument, m.clone()),
        _ => fail(e.code(), "the action could not be run"),
    }
}
