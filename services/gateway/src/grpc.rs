//! The gRPC face of the gateway: `fleet.v1.Browser`, the typed twin of the MCP
//! tools, over the same [`Dispatcher`].

use fleet_proto::v1::{
    ExecuteRequest, ExecuteResponse, ListSessionsRequest, ListSessionsResponse,
    browser_server::Browser,
};
use fleet_store::Tenant;
use tonic::{Request, Response, Status};

use crate::dispatch::Dispatcher;

/// `fleet.v1.Browser`.
#[derive(Clone)]
pub struct BrowserService {
    dispatcher: Dispatcher,
}

impl BrowserService {
    /// A service over `dispatcher`.
    pub fn new(dispatcher: Dispatcher) -> Self {
        Self { dispatcher }
    }
}

fn tenant<T>(request: &Request<T>) -> Result<Tenant, Status> {
    // The auth layer put the caller's tenant into the request's extensions.
    request
        .extensions()
        .get::<Tenant>()
        .cloned()
        .ok_or_else(|| Status::unauthenticated("an API key is required"))
}

#[tonic::async_trait]
impl Browser for BrowserService {
    async fn execute(
        &self,
        request: Request<ExecuteRequest>,
    ) -> Result<Response<ExecuteResponse>, Status> {
        let tenant = tenant(&request)?;
        let resp = self
            .dispatcher
            .execute(&tenant, request.into_inner().actions)
            .await
            .map_err(|e| e.to_status())?;
        Ok(Response::new(resp))
    }

    async fn list_sessions(
        &self,
        request: Request<ListSessionsRequest>,
    ) -> Result<Response<ListSessionsResponse>, Status> {
        let tenant = tenant(&request)?;
        let resp = self
            .dispatcher
            .list(&tenant, request.into_inner().limit)
            .await
            .map_err(|e| e.to_status())?;
        Ok(Response::new(resp))
    }
}
