//! fleet-proto owns the generated gRPC types of `proto/fleet/v1`: the public
//! `fleet.v1.Browser` service, the gateway ↔ worker `fleet.v1.Worker` service, and
//! the one action model both of them (and the MCP tools) speak.

#![allow(missing_docs)] // generated code; the .proto files carry the documentation
#![allow(clippy::all)]

/// `fleet.v1`: messages and services.
pub mod v1 {
    tonic::include_proto!("fleet.v1");
}

/// gRPC metadata key a worker sets on an `UNAVAILABLE` refusal of `Worker.Run` that
/// guarantees the action did not run (not the owner, draining, full), so the
/// gateway may send it to another worker.
pub const REFUSED_MARKER: &str = "fleet-refused";

/// Largest font `RegisterFont` accepts, bytes (2 MiB: most web fonts are far
/// smaller, and the whole call stays inside one gRPC message).
pub const MAX_FONT_BYTES: usize = 2 * 1024 * 1024;

/// Most fonts one session may register.
pub const MAX_FONTS_PER_SESSION: usize = 16;
