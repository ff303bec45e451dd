//! Where recordings' and downloads' bytes go and how download links are
//! signed, as flags shared by `serve`, `gateway` and `worker`.

/// Object storage and download links.
#[derive(Debug, Clone, clap::Args)]
pub struct MediaConfig {
    /// Where recordings' and downloaded files' bytes are kept:
    /// `file:///a/folder` (one host) or `s3://bucket` (a cluster; see the
    /// --s3-* flags). `serve` defaults to a folder in --data-dir; a gateway
    /// or worker without it has no recordings or downloads (their tools say
    /// so).
    #[arg(long = "object-store", env = "FLEET_OBJECT_STORE")]
    pub object_store: Option<String>,

    /// An S3-compatible server's URL (MinIO, Ceph, moto); AWS when unset.
    #[arg(long = "s3-endpoint", env = "FLEET_S3_ENDPOINT")]
    pub s3_endpoint: Option<String>,

    /// The bucket's region.
    #[arg(
        long = "s3-region",
        env = "FLEET_S3_REGION",
        default_value = "us-east-1"
    )]
    pub s3_region: String,

    /// Allow a plain-HTTP --s3-endpoint (a server inside the cluster).
    #[arg(long = "s3-allow-http", env = "FLEET_S3_ALLOW_HTTP")]
    pub s3_allow_http: bool,

    /// The S3 access key ID (from a Secret in a cluster).
    #[arg(
        long = "s3-access-key-id",
        env = "FLEET_S3_ACCESS_KEY_ID",
        hide_env_values = true
    )]
    pub s3_access_key_id: Option<String>,

    /// The S3 secret access key.
    #[arg(
        long = "s3-secret-access-key",
        env = "FLEET_S3_SECRET_ACCESS_KEY",
        hide_env_values = true
    )]
    pub s3_secret_access_key: Option<String>,

    /// The key download and live-view links are signed with; every gateway of
    /// a fleet needs the same one. Unset, each gateway process makes a random
    /// key and its links stop working when it restarts.
    #[arg(
        long = "url-signing-key",
        env = "FLEET_URL_SIGNING_KEY",
        hide_env_values = true
    )]
    pub url_signing_key: Option<String>,

    /// The gateway's URL as clients reach it (behind an ingress, say), the
    /// base of download and live-view links; defaults to `http://` and the
    /// listen address.
    #[arg(long = "public-url", env = "FLEET_PUBLIC_URL")]
    pub public_url: Option<String>,
}

impl Default for MediaConfig {
    fn default() -> Self {
        Self {
            object_store: None,
            s3_endpoint: None,
            s3_region: "us-east-1".into(),
            s3_allow_http: false,
            s3_access_key_id: None,
            s3_secret_access_key: None,
            url_signing_key: None,
            public_url: None,
        }
    }
}
