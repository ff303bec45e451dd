//! fleet-proto owns the generated gRPC types of `proto/fleet/v1`: the public
//! `fleet.v1.Browser` service, the gateway ↔ worker `fleet.v1.Worker` service, and
//! the one action model both of them (and the MCP tools) speak; and the gRPC
//! reflection service that describes them.

#![allow(missing_docs)] // generated code; the .proto files carry the documentation
#![allow(clippy::all)]

/// `fleet.v1`: messages and services.
pub mod v1 {
    tonic::include_proto!("fleet.v1");
}

/// The encoded `FileDescriptorSet` of `proto/fleet/v1`, served by gRPC reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    include_bytes!(concat!(env!("OUT_DIR"), "/fleet_descriptor.bin"));

/// gRPC metadata key a worker sets on an `UNAVAILABLE` refusal of `Worker.Run` that
/// guarantees the action did not run (not the owner, draining, full), so the
/// gateway may send it to another worker.
pub const REFUSED_MARKER: &str = "fleet-refused";

/// Per-action time budget when an action names none, ms: the worker runs it
/// with this, the gateway's schemas show it as the default.
pub const DEFAULT_BUDGET_MS: u32 = 10_000;
/// Smallest and largest per-action time budget an action may name, ms: the
/// gateway refuses others, the worker clamps to them.
pub const MIN_BUDGET_MS: u32 = 100;
/// See [`MIN_BUDGET_MS`].
pub const MAX_BUDGET_MS: u32 = 15_000;

/// Largest font `RegisterFont` accepts, bytes (2 MiB: most web fonts are far
/// smaller, and the whole call stays inside one gRPC message).
pub const MAX_FONT_BYTES: usize = 2 * 1024 * 1024;

/// Most fonts one session may register.
pub const MAX_FONTS_PER_SESSION: usize = 16;

/// Most cookies one `Cookies` action may set.
pub const MAX_COOKIES_PER_SET: usize = 100;

/// Entries a tab's network and console logs keep, and the most one read
/// returns.
pub const MAX_LOG_ENTRIES: usize = 500;
/// Entries a log read returns when it names no limit.
pub const DEFAULT_LOG_ENTRIES: usize = 100;

/// Most characters of HTML one `Frames` html read returns (the Go browser
/// MCP server's cut), and what it returns when it names no limit.
pub const MAX_FRAME_HTML_CHARS: u32 = 200_000;

/// Most storage items one `Storage` action may set or import.
pub const MAX_STORAGE_ITEMS: usize = 1000;

/// Limits of a screen recording (Servo MCP's): the gateway's schemas and
/// validation, the worker's capture and the encoder all read these.
pub mod recording {
    /// Frames per second in the file: at least, at most, and when unset.
    pub const MIN_FPS: u32 = 1;
    /// See [`MIN_FPS`].
    pub const MAX_FPS: u32 = 3;
    /// See [`MIN_FPS`].
    pub const DEFAULT_FPS: u32 = 2;
    /// Seconds a recording may run before it stops by itself: at least, at
    /// most, and when unset.
    pub const MIN_DURATION_SECONDS: u32 = 1;
    /// See [`MIN_DURATION_SECONDS`].
    pub const MAX_DURATION_SECONDS: u32 = 60;
    /// See [`MIN_DURATION_SECONDS`].
    pub const DEFAULT_DURATION_SECONDS: u32 = 30;
    /// The largest video, pixels; bigger viewports are scaled down to fit.
    pub const MAX_WIDTH: u32 = 960;
    /// See [`MAX_WIDTH`].
    pub const MAX_HEIGHT: u32 = 540;
    /// How long a finished recording (and its download link) is kept, ms.
    pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;
    /// Most ready recordings one session keeps; a newer one evicts the oldest.
    pub const MAX_READY_PER_SESSION: usize = 3;
    /// Most bytes of ready recordings one session keeps; the oldest go first.
    pub const MAX_BYTES_PER_SESSION: u64 = 64 * 1024 * 1024;
    /// Largest captured frame kept (a PNG of the viewport), bytes; a bigger
    /// one is skipped and the previous picture holds.
    pub const MAX_FRAME_BYTES: usize = 4 * 1024 * 1024;
    /// Most bytes of captured frames one recording may hold before it is
    /// encoded; past it the recording stops by itself.
    pub const MAX_FRAME_STORAGE_BYTES: u64 = 48 * 1024 * 1024;
    /// The file name a download carries.
    pub fn filename(id: &str) -> String {
        format!("servo-recording-{id}.mp4")
    }
}

/// Limits of the files a session's pages download (a navigation to an
/// attachment or a type browsers do not render, or an `<a download>` link):
/// the worker that saves them, the sweeper that expires them and the
/// gateway's schemas and validation all read these.
pub mod download {
    /// Largest file kept, bytes (50 MiB); a bigger one is listed as failed.
    pub const MAX_FILE_BYTES: u64 = 50 * 1024 * 1024;
    /// Most bytes of downloads one session keeps (100 MiB); past it a new
    /// download is listed as failed.
    pub const MAX_SESSION_BYTES: u64 = 100 * 1024 * 1024;
    /// Most downloads one session keeps, failed ones included.
    pub const MAX_SESSION_FILES: u64 = 100;
    /// Most bytes one `servo_download_read` returns (256 KiB).
    pub const MAX_READ_BYTES: u32 = 256 * 1024;
    /// How long a download is kept after it was saved, ms (24 h).
    pub const RETENTION_MS: i64 = 24 * 60 * 60 * 1000;
    /// Longest file name kept, bytes; a longer one is cut at a character.
    pub const MAX_FILENAME_BYTES: usize = 200;
    /// The encodings `servo_download_read` answers in.
    pub const ENCODINGS: [&str; 2] = ["text", "base64"];
}

/// Limits of live views (`servo_live_view`): the gateway's link, page and
/// socket read these.
pub mod live {
    /// How long a live-view link opens its page, ms (10 min); a page already
    /// open stays connected.
    pub const LINK_TTL_MS: i64 = 10 * 60 * 1000;
    /// How long a person's control lasts without the page renewing it, ms: a
    /// page that vanished without closing its socket (a gateway that died)
    /// gives control back to agents after this.
    pub const CONTROL_LEASE_MS: u64 = 30_000;
    /// How often an open control page renews its lease, ms.
    pub const CONTROL_RENEW_MS: u64 = 10_000;
    /// Largest message a live page may send, bytes.
    pub const MAX_MESSAGE_BYTES: usize = 16 * 1024;
    /// The modes a live view opens in.
    pub const MODES: [&str; 2] = ["view", "control"];
}

/// Limits of a long wait over `Browser.Watch` (`LongWait`): the gateway's
/// validation and its checker read these.
pub mod watch {
    /// Longest wait, ms (10 minutes).
    pub const MAX_WAIT_MS: u32 = 600_000;
    /// Shortest wait, ms.
    pub const MIN_WAIT_MS: u32 = 1_000;
    /// The wait when the request names none, ms.
    pub const DEFAULT_WAIT_MS: u32 = 60_000;
    /// How often the page is checked when nothing else prompts it, ms.
    pub const RECHECK_MS: u64 = 2_000;
    /// The soonest a change to the page brings the next check, ms after the
    /// last one.
    pub const MIN_GAP_MS: u64 = 250;
    /// Page time one check lets pass (the page's timers run), ms.
    pub const CHECK_PAGE_MS: u32 = 500;
}

/// Limits of an HTTP tool request (`HttpRequest`), Servo MCP's: the gateway's
/// schemas and validation and the worker's client all read these.
pub mod http {
    /// Largest request body, bytes (1 MiB).
    pub const MAX_BODY_BYTES: usize = 1024 * 1024;
    /// Largest response body kept, bytes (2 MiB).
    pub const MAX_RESPONSE_BYTES: usize = 2 * 1024 * 1024;
    /// Response body kept when the request names no limit, bytes (512 KiB).
    pub const DEFAULT_RESPONSE_BYTES: usize = 512 * 1024;
    /// Most redirects followed.
    pub const MAX_REDIRECTS: usize = 5;
    /// Most request headers.
    pub const MAX_HEADERS: usize = 64;
    /// Longest header name, characters.
    pub const MAX_HEADER_NAME_CHARS: usize = 256;
    /// Longest header value, characters.
    pub const MAX_HEADER_VALUE_CHARS: usize = 8192;
    /// Longest method token, characters.
    pub const MAX_METHOD_CHARS: usize = 32;
    /// Methods refused: the Fetch standard forbids them.
    pub const FORBIDDEN_METHODS: [&str; 3] = ["CONNECT", "TRACE", "TRACK"];

    /// Whether `s` is an HTTP token (RFC 9110 `tchar`s), as method and header
    /// names must be.
    pub fn is_token(s: &str) -> bool {
        !s.is_empty()
            && s.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
    }
}

/// Adds gRPC reflection (`grpc.reflection.v1` and `v1alpha`, for older
/// clients) describing `fleet.v1` and `grpc.health.v1`, so tools such as grpcurl
/// list and call a process's services without the .proto files.
pub fn with_reflection(
    routes: tonic::service::Routes,
) -> Result<tonic::service::Routes, tonic_reflection::server::Error> {
    let v1 = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()?;
    let v1alpha = tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()?;
    Ok(routes.add_service(v1).add_service(v1alpha))
}
