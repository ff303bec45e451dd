//! End-to-end tests: real `servo-fleet` processes (a Postgres-backed gateway, two
//! workers, or one `serve` process), real Postgres and Redis, a real MCP client
//! over HTTP, and pages served from a loopback fixture server.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

mod admission;
mod apps_ui;
mod auth;
mod bad_input;
mod bench;
mod browsing;
mod capabilities;
mod cdp;
mod chart;
mod cli;
mod conformance;
mod cookies;
mod dom_bindings;
mod downloads;
mod engine_state;
mod event_loop;
mod fencing;
mod fidelity;
mod fleet;
mod fonts;
mod frames;
mod go_browser_mcp;
mod grpc;
mod harness;
mod held;
mod hover;
mod http_tools;
mod images;
mod interaction;
mod lifecycle;
mod limits;
mod live_view;
mod network_log;
mod outage;
mod preludes;
mod proxy;
mod read_only;
mod realworld;
mod recordings;
mod screenshots;
mod scroll;
mod serve;
mod servo_mcp;
mod sessions;
mod state;
mod stdio;
mod storage;
mod traces;
mod ts_client;
mod typing;
mod watch;
mod web_search;
mod workers;
