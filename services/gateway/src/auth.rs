//! Authentication: every call to `/mcp` or the gRPC Browser service carries
//! `authorization: Bearer <key>`; the key's tenant goes into the request's
//! extensions for the handlers. The bearer is an API key (`sfk_…`) or, when
//! OIDC is configured, a JWT from the identity provider ([`Oidc`]). One-process
//! mode on loopback may run open, as a single local tenant. Verified keys and
//! tenants are remembered ([`Recent`]), so auth keeps working through a
//! database outage.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fleet_store::{SessionStore, Tenant};
use http::{HeaderValue, StatusCode, header};
use tracing::Instrument as _;

use crate::oidc::Oidc;
use crate::recent::Recent;

/// How callers are authenticated.
#[derive(Clone)]
pub enum Auth {
    /// No key needed; every caller is this tenant (loopback one-process mode only).
    Open(Tenant),
    /// A bearer API key stored (hashed) in the SQL store, or a provider's JWT.
    Keys(Arc<Verifier>),
}

/// What checks bearers.
pub struct Verifier {
    store: Arc<dyn SessionStore>,
    recent: Arc<Recent>,
    oidc: Option<Oidc>,
}

impl Auth {
    /// Keys checked against the dispatcher's store and remembered in its
    /// memory; JWTs too when `oidc` is given.
    pub fn keys(dispatcher: &crate::Dispatcher, oidc: Option<Oidc>) -> Self {
        Self::Keys(Arc::new(Verifier {
            store: dispatcher.store().clone(),
            recent: dispatcher.recent().clone(),
            oidc,
        }))
    }
}

/// Why a bearer was not accepted.
enum Refused {
    Unauthorized(&'static str),
    Store(fleet_store::StoreError),
}

impl Verifier {
    async fn tenant(&self, bearer: &str) -> Result<Tenant, Refused> {
        let looks_like_jwt = !bearer.starts_with(fleet_store::KEY_MARKER) && bearer.contains('.');
        if let (Some(oidc), true) = (&self.oidc, looks_like_jwt) {
            let name = oidc.verify(bearer).await.map_err(Refused::Unauthorized)?;
            // The provider vouches for the tenant; it exists from its first call.
            return self
                .recent
                .tenant_named(&name, self.store.ensure_tenant(&name))
                .await
                .map_err(Refused::Store);
        }
        match self
            .recent
            .tenant_for_key(bearer, self.store.tenant_for_key(bearer))
            .await
        {
            Ok(Some(t)) => Ok(t),
            Ok(None) => Err(Refused::Unauthorized("the API key is not valid")),
            Err(e) => Err(Refused::Store(e)),
        }
    }
}

fn unauthorized(grpc: bool, reason: &'static str) -> Response {
    fleet_telemetry::counter!("fleet_gateway_auth_failures_total", "reason" => reason_label(reason))
        .increment(1);
    if grpc {
        // gRPC clients read the status from trailers-only responses, not HTTP 401.
        return tonic::Status::unauthenticated(reason).into_http::<axum::body::Body>();
    }
    let body = serde_json::json!({"error": format!("unauthorized: {reason}")}).to_string();
    let mut resp = (StatusCode::UNAUTHORIZED, body).into_response();
    resp.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    resp
}

fn reason_label(reason: &str) -> &'static str {
    if reason.contains("required") {
        "missing"
    } else if reason.contains("expired") {
        "expired"
    } else if reason.contains("token") || reason.contains("JWT") {
        "invalid_token"
    } else {
        "invalid"
    }
}

/// The store could not be asked and the key is not remembered: a retryable
/// `UNAVAILABLE`, never an internal error.
fn key_store_unavailable(grpc: bool) -> Response {
    fleet_telemetry::counter!("fleet_gateway_auth_failures_total", "reason" => "store_unavailable")
        .increment(1);
    crate::error::GatewayError::Unavailable("the key store is unavailable; try again shortly")
        .to_http(grpc)
}

/// The tenant a request's bearer names (or the open tenant), or the answer
/// that refuses it.
pub async fn tenant_of(
    auth: &Auth,
    headers: &http::HeaderMap,
    grpc: bool,
) -> Result<Tenant, Response> {
    let verifier = match auth {
        Auth::Open(t) => return Ok(t.clone()),
        Auth::Keys(verifier) => verifier,
    };
    let key = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim);
    let Some(key) = key.filter(|k| !k.is_empty()) else {
        return Err(unauthorized(
            grpc,
            "an API key is required (authorization: Bearer <key>)",
        ));
    };
    let verified = verifier
        .tenant(key)
        .instrument(tracing::info_span!("auth"))
        .await;
    match verified {
        Ok(t) => Ok(t),
        Err(Refused::Unauthorized(reason)) => Err(unauthorized(grpc, reason)),
        Err(Refused::Store(e)) if e.is_outage() => Err(key_store_unavailable(grpc)),
        Err(Refused::Store(e)) => Err(crate::error::GatewayError::Store(e).to_http(grpc)),
    }
}

/// The auth middleware.
pub async fn authenticate(State(auth): State<Auth>, mut req: Request, next: Next) -> Response {
    let grpc = req
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
    let tenant = match tenant_of(&auth, req.headers(), grpc).await {
        Ok(t) => t,
        Err(refused) => return refused,
    };
    req.extensions_mut().insert(tenant);
    next.run(req).await
}
