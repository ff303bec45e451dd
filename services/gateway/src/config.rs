//! The gateway's configuration: one clap struct; every flag also reads `FLEET_*`.

/// Seconds a session no worker had room for counts as pending demand.
pub const DEFAULT_PENDING_WINDOW_SECS: u64 = 30;

/// Settings of a gateway, shared by `servo-fleet gateway` and `servo-fleet serve`.
#[derive(Debug, Clone, clap::Args)]
pub struct GatewayConfig {
    /// `Host` header values the MCP endpoint accepts (DNS-rebinding protection),
    /// comma-separated, e.g. `fleet.example.com,fleet.example.com:443`. Empty: any
    /// host when keys are required, loopback names only when the server runs open.
    #[arg(
        long = "allowed-hosts",
        env = "FLEET_ALLOWED_HOSTS",
        value_delimiter = ','
    )]
    pub allowed_hosts: Vec<String>,

    /// Browser origins allowed to call the MCP endpoint, comma-separated, with
    /// scheme and port (`https://app.example.com:443`, `http://localhost:*`).
    /// Requests that carry any other `Origin` get 403; requests without one
    /// (agents, SDKs) pass. Empty: every browser origin is refused.
    #[arg(
        long = "allowed-origins",
        env = "FLEET_ALLOWED_ORIGINS",
        value_delimiter = ','
    )]
    pub allowed_origins: Vec<String>,

    /// Offer only tools without effects outside the tab: no scripts, clicks,
    /// typing, keys or option choices (a page may submit on any of them) and
    /// no HTTP methods but GET, HEAD and OPTIONS. The other tools are not
    /// listed and their actions are refused, over MCP and gRPC alike.
    #[arg(long = "read-only", env = "FLEET_READ_ONLY")]
    pub read_only: bool,

    /// Google's result page for `servo_web_search` (tests point the
    /// providers at loopback servers).
    #[arg(
        long = "search-google-url",
        env = "FLEET_SEARCH_GOOGLE_URL",
        default_value = "https://www.google.com/search"
    )]
    pub search_google_url: url::Url,

    /// Bing's result page (read as RSS) for `servo_web_search`.
    #[arg(
        long = "search-bing-url",
        env = "FLEET_SEARCH_BING_URL",
        default_value = "https://www.bing.com/search"
    )]
    pub search_bing_url: url::Url,

    /// DuckDuckGo's HTML result page for `servo_web_search`.
    #[arg(
        long = "search-duckduckgo-url",
        env = "FLEET_SEARCH_DUCKDUCKGO_URL",
        default_value = "https://html.duckduckgo.com/html/"
    )]
    pub search_duckduckgo_url: url::Url,

    /// Yandex's result page for `servo_web_search`.
    #[arg(
        long = "search-yandex-url",
        env = "FLEET_SEARCH_YANDEX_URL",
        default_value = "https://yandex.com/search/"
    )]
    pub search_yandex_url: url::Url,

    /// Time one search provider may take, ms (100–15000).
    #[arg(long = "search-timeout-ms", env = "FLEET_SEARCH_TIMEOUT_MS", default_value_t = 8000,
          value_parser = clap::value_parser!(u32).range(100..=15000))]
    pub search_timeout_ms: u32,

    /// Overall time limit of one request to the gateway, seconds (covers up to 20
    /// actions running concurrently, each within its own budget).
    #[arg(
        long = "request-timeout-secs",
        env = "FLEET_REQUEST_TIMEOUT_SECS",
        default_value_t = 60
    )]
    pub request_timeout_secs: u64,

    /// Seconds between sweeps that delete expired sessions with everything
    /// stored for them (every gateway sweeps; the deletes are idempotent).
    #[arg(
        long = "expiry-sweep-secs",
        env = "FLEET_EXPIRY_SWEEP_SECS",
        default_value_t = 300
    )]
    pub expiry_sweep_secs: u64,

    /// Seconds a session that no worker had room for counts as pending in
    /// `/scaling` (the demand an autoscaler such as KEDA adds workers for).
    #[arg(
        long = "pending-window-secs",
        env = "FLEET_PENDING_WINDOW_SECS",
        default_value_t = DEFAULT_PENDING_WINDOW_SECS
    )]
    pub pending_window_secs: u64,

    /// Seconds a verified API key is trusted without asking the database again.
    /// A revoked key keeps working on a gateway that verified it for up to
    /// this long.
    #[arg(
        long = "key-cache-secs",
        env = "FLEET_KEY_CACHE_SECS",
        default_value_t = 60
    )]
    pub key_cache_secs: u64,

    /// Seconds a session's row, once read, answers this gateway's later calls
    /// on the session while its route stands, without reading it again (its
    /// tenant and expiry; `servo_session_status`, close and restores always
    /// read it). 0 reads it on every call.
    #[arg(
        long = "session-cache-secs",
        env = "FLEET_SESSION_CACHE_SECS",
        default_value_t = 30
    )]
    pub session_cache_secs: u64,

    /// While Postgres or Redis is unreachable, keys, sessions, routes and
    /// workers the gateway saw within this many seconds still serve calls
    /// (degraded mode); older ones get `UNAVAILABLE`.
    #[arg(
        long = "outage-grace-secs",
        env = "FLEET_OUTAGE_GRACE_SECS",
        default_value_t = 900
    )]
    pub outage_grace_secs: u64,

    /// Requests per second a tenant may make, sustained, across all gateways
    /// (`servo-fleet tenants set` overrides it per tenant); 0: no limit.
    #[arg(
        long = "tenant-requests-per-second",
        env = "FLEET_TENANT_REQUESTS_PER_SECOND",
        default_value_t = 100
    )]
    pub tenant_requests_per_second: u32,

    /// Requests a tenant may make at once above its sustained rate.
    #[arg(
        long = "tenant-burst",
        env = "FLEET_TENANT_BURST",
        default_value_t = 200
    )]
    pub tenant_burst: u32,

    /// Sessions a tenant may have open (not closed, not expired); 0: no limit.
    #[arg(
        long = "tenant-max-sessions",
        env = "FLEET_TENANT_MAX_SESSIONS",
        default_value_t = 0
    )]
    pub tenant_max_sessions: u32,

    /// Calls a tenant may have running at once, across all gateways; 0: no limit.
    #[arg(
        long = "tenant-max-in-flight",
        env = "FLEET_TENANT_MAX_IN_FLIGHT",
        default_value_t = 64
    )]
    pub tenant_max_in_flight: u32,

    /// OIDC: the issuer (`iss`) of JWT bearer tokens the gateway accepts
    /// besides API keys; unset, only API keys. Needs --oidc-audience and
    /// --oidc-jwks-url.
    #[arg(long = "oidc-issuer", env = "FLEET_OIDC_ISSUER")]
    pub oidc_issuer: Option<String>,

    /// OIDC: the audience (`aud`) tokens must be issued for.
    #[arg(long = "oidc-audience", env = "FLEET_OIDC_AUDIENCE")]
    pub oidc_audience: Option<String>,

    /// OIDC: the provider's JWKS URL (its signing keys).
    #[arg(long = "oidc-jwks-url", env = "FLEET_OIDC_JWKS_URL")]
    pub oidc_jwks_url: Option<String>,

    /// OIDC: the claim whose value names the caller's tenant.
    #[arg(
        long = "oidc-tenant-claim",
        env = "FLEET_OIDC_TENANT_CLAIM",
        default_value = "tenant"
    )]
    pub oidc_tenant_claim: String,

    /// OIDC: clock skew allowed on `exp` and `nbf`, seconds.
    #[arg(
        long = "oidc-leeway-secs",
        env = "FLEET_OIDC_LEEWAY_SECS",
        default_value_t = 60
    )]
    pub oidc_leeway_secs: u64,
}

impl GatewayConfig {
    /// Where `servo_web_search` asks.
    pub fn search(&self) -> crate::search::SearchConfig {
        crate::search::SearchConfig {
            google: self.search_google_url.clone(),
            bing: self.search_bing_url.clone(),
            duckduckgo: self.search_duckduckgo_url.clone(),
            yandex: self.search_yandex_url.clone(),
            timeout_ms: self.search_timeout_ms,
        }
    }

    /// The OIDC provider, when one is configured; an error names what is missing.
    pub fn oidc(&self) -> anyhow::Result<Option<crate::oidc::OidcConfig>> {
        let Some(issuer) = self.oidc_issuer.clone().filter(|i| !i.is_empty()) else {
            return Ok(None);
        };
        let (Some(audience), Some(jwks_url)) = (
            self.oidc_audience.clone().filter(|a| !a.is_empty()),
            self.oidc_jwks_url.clone().filter(|u| !u.is_empty()),
        ) else {
            anyhow::bail!("--oidc-issuer needs --oidc-audience and --oidc-jwks-url");
        };
        url::Url::parse(&jwks_url)
            .map_err(|e| anyhow::anyhow!("--oidc-jwks-url {jwks_url:?} is not a URL: {e}"))?;
        Ok(Some(crate::oidc::OidcConfig {
            issuer,
            audience,
            jwks_url,
            tenant_claim: self.oidc_tenant_claim.clone(),
            leeway: std::time::Duration::from_secs(self.oidc_leeway_secs),
        }))
    }

    /// The limits of a tenant that has none stored.
    pub fn tenant_defaults(&self) -> fleet_store::TenantLimits {
        fleet_store::TenantLimits {
            requests_per_second: Some(self.tenant_requests_per_second),
            burst: Some(self.tenant_burst),
            max_sessions: Some(self.tenant_max_sessions),
            max_in_flight: Some(self.tenant_max_in_flight),
        }
    }

    /// How long a call counted in flight may stay counted if its gateway dies.
    pub fn in_flight_lapse(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.request_timeout_secs.max(1) + 5)
    }

    /// The grace periods of the gateway's memory.
    pub fn grace(&self) -> crate::recent::Grace {
        crate::recent::Grace {
            key_ttl: std::time::Duration::from_secs(self.key_cache_secs),
            session_reuse: std::time::Duration::from_secs(self.session_cache_secs),
            outage: std::time::Duration::from_secs(self.outage_grace_secs),
        }
    }
}
