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
