//! Authentication: every call to `/mcp` or the gRPC Browser service carries
//! `authorization: Bearer <key>`; the key's tenant goes into the request's
//! extensions for the handlers. One-process mode on loopback may run open, as a
//! single local tenant.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fleet_store::{SessionStore, Tenant};
use http::{HeaderValue, StatusCode, header};

/// How callers are authenticated.
#[derive(Clone)]
pub enum Auth {
    /// No key needed; every caller is this tenant (loopback one-process mode only).
    Open(Tenant),
    /// A bearer API key stored (hashed) in the SQL store is required.
    Keys(Arc<dyn SessionStore>),
}

fn unauthorized(grpc: bool, reason: &'static str) -> Response {
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

/// The auth middleware.
pub async fn authenticate(State(auth): State<Auth>, mut req: Request, next: Next) -> Response {
    let tenant = match &auth {
        Auth::Open(t) => t.clone(),
        Auth::Keys(store) => {
            let grpc = req
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|v| v.as_bytes().starts_with(b"application/grpc"));
            let key = req
                .headers()
                .get(header::AUTHORIZATION)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| {
                    v.strip_prefix("Bearer ")
                        .or_else(|| v.strip_prefix("bearer "))
                })
                .map(str::trim);
            let Some(key) = key.filter(|k| !k.is_empty()) else {
                return unauthorized(grpc, "an API key is required (authorization: Bearer <key>)");
            };
            match store.tenant_for_key(key).await {
                Ok(Some(t)) => t,
                Ok(None) => return unauthorized(grpc, "the API key is not valid"),
                Err(e) => {
                    tracing::error!(error = %e, "key lookup failed");
                    return (
                        StatusCode::SERVICE_UNAVAILABLE,
                        "the key store is unavailable",
                    )
                        .into_response();
                }
            }
        }
    };
    req.extensions_mut().insert(tenant);
    next.run(req).await
}
