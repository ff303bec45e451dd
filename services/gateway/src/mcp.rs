//! The MCP face of the gateway: the `servo_*` tools over rmcp's Streamable HTTP
//! server. This file is the rmcp handler — which tool a call names, whose tenant
//! it runs for, and the trace it joins; the parsed call goes to the
//! [`Dispatcher`] like any gRPC call. The tools themselves are described in
//! [`tools`], their arguments parsed in [`args`] (by hand, so every error names
//! the exact field and the limit it broke) and their results built in [`render`].

mod apps;
mod args;
mod render;
mod schema;
mod tools;

use fleet_store::Tenant;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation, JsonObject,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::service::{RequestContext, RoleServer};
use serde_json::Value;
use tracing::Instrument as _;

use crate::dispatch::Dispatcher;
use args::{parse_call, parse_limit, parse_search};
use tools::{LIST_TOOL, SEARCH_TOOL, ToolKind};

/// The MCP server: one per request in stateless mode, so it holds only handles.
#[derive(Clone)]
pub struct McpServer {
    dispatcher: Dispatcher,
    /// The one tenant every call runs for (stdio: one local user); over HTTP
    /// the auth layer names the tenant per request instead.
    tenant: Option<Tenant>,
}

impl McpServer {
    /// A server over `dispatcher`, each call for the tenant its request's
    /// credentials name.
    pub fn new(dispatcher: Dispatcher) -> Self {
        Self {
            dispatcher,
            tenant: None,
        }
    }

    /// A server over `dispatcher` whose every call runs for `tenant`.
    pub fn for_tenant(dispatcher: Dispatcher, tenant: Tenant) -> Self {
        Self {
            dispatcher,
            tenant: Some(tenant),
        }
    }
}

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
            .with_server_info(Implementation::new("servo-fleet", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Headless browser tabs for agents. Open a tab with servo_navigate (sessionID null), then pass the returned sessionID to the other tools. Up to 20 actions per call, one per session, run concurrently.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(schema::all(
            self.dispatcher.read_only(),
        )))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(apps::resources()))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        apps::read(&request.uri).map(Into::into).ok_or_else(|| {
            ErrorData::resource_not_found(format!("no resource {:?}", request.uri), None)
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let tool = ToolKind::from_name(&request.name);
        if tool.is_none() && request.name != LIST_TOOL && request.name != SEARCH_TOOL {
            return Err(ErrorData::invalid_params(
                format!("unknown tool {:?}", request.name),
                None,
            ));
        }
        if self.dispatcher.read_only() && tool.is_some_and(|t| t.spec().outside) {
            return Err(ErrorData::invalid_params(
                format!(
                    "{} can have effects outside the tab and is not offered: this gateway is read-only (--read-only)",
                    request.name
                ),
                None,
            ));
        }
        // The auth layer put the caller's tenant into the HTTP request's
        // extensions; a stdio server has its one tenant.
        let tenant = self
            .tenant
            .clone()
            .or_else(|| {
                context
                    .extensions
                    .get::<http::request::Parts>()
                    .and_then(|p| p.extensions.get::<Tenant>())
                    .cloned()
            })
            .ok_or_else(|| {
                ErrorData::internal_error("unauthenticated request reached a tool", None)
            })?;
        let Some(tool) = tool else {
            if request.name == SEARCH_TOOL {
                return Ok(self
                    .search(&tenant, request.arguments.as_ref())
                    .await
                    .into());
            }
            return Ok(self.list(&tenant, request.arguments.as_ref()).await.into());
        };
        // The trace: `params._meta.traceparent` if the client sent one, else
        // the HTTP request's `traceparent` header.
        let span = tracing::info_span!("mcp.tool", tool = %request.name);
        // rmcp moves the request's `_meta` into the context.
        let meta = request
            .meta
            .as_ref()
            .map(|m| &m.0.0)
            .or(Some(&context.meta.0.0));
        let headers = context
            .extensions
            .get::<http::request::Parts>()
            .map(|p| &p.headers);
        fleet_telemetry::trace::set_parent(&span, |name| {
            meta.and_then(|m| m.get(name))
                .and_then(Value::as_str)
                .or_else(|| headers?.get(name)?.to_str().ok())
                .map(str::to_owned)
        });
        let result = match parse_call(tool, request.arguments.as_ref()) {
            Ok(actions) => match self
                .dispatcher
                .execute(&tenant, actions)
                .instrument(span)
                .await
            {
                Ok(resp) => render::answer(tool, resp),
                Err(e) => e.to_tool_result(),
            },
            Err(e) => e.to_tool_result(),
        };
        Ok(result.into())
    }
}

impl McpServer {
    /// Answers `servo_web_search`.
    async fn search(&self, tenant: &Tenant, args: Option<&JsonObject>) -> CallToolResult {
        let action = match parse_search(args) {
            Ok(a) => a,
            Err(e) => return e.to_tool_result(),
        };
        match self.dispatcher.execute(tenant, vec![action]).await {
            Ok(resp) => render::search(resp),
            Err(e) => e.to_tool_result(),
        }
    }

    /// Answers `servo_session_list`.
    async fn list(&self, tenant: &Tenant, args: Option<&JsonObject>) -> CallToolResult {
        let limit = match parse_limit(args) {
            Ok(l) => l,
            Err(e) => return e.to_tool_result(),
        };
        match self.dispatcher.list(tenant, limit).await {
            Ok(list) => render::sessions(&list),
            Err(e) => e.to_tool_result(),
        }
    }
}
