//! The gRPC face of the gateway: `fleet.v1.Browser`, the typed twin of the MCP
//! tools, over the same [`Dispatcher`].

use std::pin::Pin;

use fleet_proto::v1::{
    ExecuteRequest, ExecuteResponse, ListSessionsRequest, ListSessionsResponse, SessionEvent,
    WatchRequest, browser_server::Browser,
};
use fleet_store::Tenant;
use futures::{Stream, StreamExt as _};
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

/// `Watch`'s stream as tonic serves it.
type WatchStream = Pin<Box<dyn Stream<Item = Result<SessionEvent, Status>> + Send>>;

#[tonic::async_trait]
impl Browser for BrowserService {
    type WatchStream = WatchStream;

    async fn watch(
        &self,
        request: Request<WatchRequest>,
    ) -> Result<Response<Self::WatchStream>, Status> {
        let tenant = tenant(&request)?;
        let events = self
            .dispatcher
            .watch(&tenant, &request.into_inner())
            .await
            .map_err(|e| e.to_status())?;
        Ok(Response::new(Box::pin(events.map(Ok))))
    }

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
