//! The rules of the gateway's live actions: a live view (`LiveView`) names
//! an existing session, and its mode is one of `fleet_proto::live::MODES`
//! (empty takes `view`); a DevTools endpoint (`CdpEndpoint`) names one too.

use fleet_proto::live::MODES;
use fleet_proto::v1 as pb;

use crate::error::GatewayError;

/// Checks action `i`, a live-view action naming `session_id`.
pub(super) fn validate_live_view(
    i: usize,
    session_id: &str,
    view: &pb::LiveView,
) -> Result<(), GatewayError> {
    if session_id.is_empty() {
        return Err(GatewayError::Invalid(format!(
            "actions[{i}].sessionID is required: it names the session to watch"
        )));
    }
    if !view.mode.is_empty() && !MODES.contains(&view.mode.as_str()) {
        return Err(GatewayError::Invalid(format!(
            "actions[{i}].mode must be view or control; got {:?}",
            view.mode
        )));
    }
    Ok(())
}

/// Checks action `i`, a DevTools-endpoint action naming `session_id`.
pub(super) fn validate_cdp_endpoint(i: usize, session_id: &str) -> Result<(), GatewayError> {
    if session_id.is_empty() {
        return Err(GatewayError::Invalid(format!(
            "actions[{i}].sessionID is required: it names the session to drive"
        )));
    }
    Ok(())
}
