//! OIDC: besides API keys, the gateway accepts JWT bearer tokens from one
//! identity provider. A token is valid when its signature checks against a key
//! of the provider's JWKS (by `kid`; asymmetric algorithms only), its `iss`
//! and `aud` are the configured ones, and `exp`/`nbf` hold within the clock
//! leeway. The configured claim names the tenant. The JWKS is cached, fetched
//! again every ten minutes, and at once (at most every ten seconds) when a
//! token names a key it does not hold, so a provider's key rotation works.

use std::sync::Mutex;
use std::time::Duration;

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey, Validation, errors::ErrorKind};
use tokio::time::Instant;

/// How long a fetched JWKS is used before it is fetched again.
const JWKS_TTL: Duration = Duration::from_secs(600);
/// Least time between two fetches caused by unknown key IDs.
const UNKNOWN_KID_REFETCH: Duration = Duration::from_secs(10);
/// Longest a JWKS fetch may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// What identifies tokens of the provider.
#[derive(Debug, Clone)]
pub struct OidcConfig {
    /// The `iss` every token must carry.
    pub issuer: String,
    /// The `aud` every token must carry.
    pub audience: String,
    /// Where the provider publishes its signing keys.
    pub jwks_url: String,
    /// The claim whose (string) value names the tenant.
    pub tenant_claim: String,
    /// Clock skew allowed on `exp` and `nbf`.
    pub leeway: Duration,
}

struct Keys {
    set: JwkSet,
    fetched: Option<Instant>,
    last_attempt: Option<Instant>,
}

/// Verifies tokens of one provider.
pub struct Oidc {
    config: OidcConfig,
    http: reqwest::Client,
    keys: tokio::sync::Mutex<Keys>,
    /// Fetch failures are logged once per outage of the provider.
    failing: Mutex<bool>,
}

impl Oidc {
    /// A verifier for `config`; keys are fetched on first use.
    pub fn new(config: OidcConfig) -> anyhow::Result<Self> {
        Ok(Self {
            config,
            http: reqwest::Client::builder().timeout(FETCH_TIMEOUT).build()?,
            keys: tokio::sync::Mutex::new(Keys {
                set: JwkSet { keys: Vec::new() },
                fetched: None,
                last_attempt: None,
            }),
            failing: Mutex::new(false),
        })
    }

    async fn fetch(&self) -> Option<JwkSet> {
        let got = async {
            self.http
                .get(&self.config.jwks_url)
                .send()
                .await?
                .error_for_status()?
                .json::<JwkSet>()
                .await
        }
        .await;
        let mut failing = self.failing.lock().unwrap_or_else(|p| p.into_inner());
        match got {
            Ok(set) => {
                *failing = false;
                Some(set)
            }
            Err(e) => {
                if !*failing {
                    tracing::warn!(error = %e, url = %self.config.jwks_url, "could not fetch the OIDC provider's keys; keeping the ones held");
                }
                *failing = true;
                None
            }
        }
    }

    /// The key named `kid`: from the cache, refreshed when stale, or fetched
    /// again when unknown (rate-limited).
    async fn key(&self, kid: &str) -> Option<jsonwebtoken::jwk::Jwk> {
        let mut keys = self.keys.lock().await;
        let stale = keys.fetched.is_none_or(|t| t.elapsed() >= JWKS_TTL);
        let unknown = keys.set.find(kid).is_none();
        let may_retry = keys
            .last_attempt
            .is_none_or(|t| t.elapsed() >= UNKNOWN_KID_REFETCH);
        if stale || (unknown && may_retry) {
            keys.last_attempt = Some(Instant::now());
            if let Some(set) = self.fetch().await {
                keys.set = set;
                keys.fetched = Some(Instant::now());
            }
        }
        keys.set.find(kid).cloned()
    }

    /// The tenant a valid token names, or why the token is refused (safe to
    /// show the caller).
    pub async fn verify(&self, token: &str) -> Result<String, &'static str> {
        let header = jsonwebtoken::decode_header(token)
            .map_err(|_| "the bearer token is not a valid JWT")?;
        if matches!(
            header.alg,
            Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
        ) {
            return Err(
                "the token is signed with a shared secret; only the provider's keys are accepted",
            );
        }
        let kid = header
            .kid
            .as_deref()
            .ok_or("the token names no signing key (kid)")?;
        let jwk = self
            .key(kid)
            .await
            .ok_or("the token's signing key (kid) is not one of the provider's")?;
        if let Some(alg) = jwk.common.key_algorithm
            && format!("{alg:?}") != format!("{:?}", header.alg)
        {
            return Err("the token's algorithm does not match its signing key");
        }
        let key =
            DecodingKey::from_jwk(&jwk).map_err(|_| "the provider's signing key is not usable")?;
        let mut validation = Validation::new(header.alg);
        validation.set_issuer(&[&self.config.issuer]);
        validation.set_audience(&[&self.config.audience]);
        validation.set_required_spec_claims(&["exp", "iss", "aud"]);
        validation.validate_nbf = true;
        validation.leeway = self.config.leeway.as_secs();
        let data = jsonwebtoken::decode::<serde_json::Map<String, serde_json::Value>>(
            token,
            &key,
            &validation,
        )
        .map_err(|e| match e.kind() {
            ErrorKind::ExpiredSignature => "the token has expired",
            ErrorKind::ImmatureSignature => "the token is not valid yet (nbf)",
            ErrorKind::InvalidAudience => "the token is for another audience",
            ErrorKind::InvalidIssuer => "the token is from another issuer",
            ErrorKind::InvalidSignature => "the token's signature is not valid",
            ErrorKind::MissingRequiredClaim(_) => "the token lacks exp, iss or aud",
            _ => "the token is not valid",
        })?;
        data.claims
            .get(&self.config.tenant_claim)
            .and_then(serde_json::Value::as_str)
            .map(str::trim)
            .filter(|t| !t.is_empty() && t.len() <= 128)
            .map(str::to_owned)
            .ok_or("the token has no tenant claim")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
    use base64::Engine as _;
    use serde_json::json;

    /// A P-256 key made here: its signing key and its public JWK.
    fn keypair(kid: &str) -> (jsonwebtoken::EncodingKey, serde_json::Value) {
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
        let point = pair.public_key().as_ref();
        let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
        let jwk = json!({"kty": "EC", "crv": "P-256", "kid": kid, "alg": "ES256", "use": "sig",
            "x": b64(&point[1..33]), "y": b64(&point[33..65])});
        (jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref()), jwk)
    }

    fn token(key: &jsonwebtoken::EncodingKey, kid: &str, claims: serde_json::Value) -> String {
        let mut header = jsonwebtoken::Header::new(Algorithm::ES256);
        header.kid = Some(kid.into());
        jsonwebtoken::encode(&header, &claims, key).unwrap()
    }

    fn now() -> u64 {
        jsonwebtoken::get_current_timestamp()
    }

    /// Serves the JWKS on loopback; `keys` can change while it runs.
    async fn provider(keys: std::sync::Arc<Mutex<Vec<serde_json::Value>>>) -> String {
        let app = axum::Router::new().route(
            "/jwks",
            axum::routing::get(move || {
                let keys = keys.clone();
                async move { axum::Json(json!({"keys": keys.lock().unwrap().clone()})) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}/jwks")
    }

    #[tokio::test]
    async fn tokens_are_checked_for_signature_key_issuer_audience_and_time() {
        let (signing, jwk) = keypair("k1");
        let (other_signing, _) = keypair("k1");
        let keys = std::sync::Arc::new(Mutex::new(vec![jwk]));
        let oidc = Oidc::new(OidcConfig {
            issuer: "https://idp.test".into(),
            audience: "servo-fleet".into(),
            jwks_url: provider(keys.clone()).await,
            tenant_claim: "org".into(),
            leeway: Duration::from_secs(30),
        })
        .unwrap();
        let claims = |exp: u64, aud: &str| json!({"iss": "https://idp.test", "aud": aud, "exp": exp, "org": "acme"});
        let valid = token(&signing, "k1", claims(now() + 300, "servo-fleet"));
        assert_eq!(oidc.verify(&valid).await, Ok("acme".to_owned()));
        let expired = token(&signing, "k1", claims(now() - 120, "servo-fleet"));
        assert_eq!(oidc.verify(&expired).await, Err("the token has expired"));
        let skewed = token(&signing, "k1", claims(now() - 10, "servo-fleet"));
        assert!(oidc.verify(&skewed).await.is_ok(), "within the leeway");
        let elsewhere = token(&signing, "k1", claims(now() + 300, "another-api"));
        assert_eq!(
            oidc.verify(&elsewhere).await,
            Err("the token is for another audience")
        );
        let forged = token(&other_signing, "k1", claims(now() + 300, "servo-fleet"));
        assert_eq!(
            oidc.verify(&forged).await,
            Err("the token's signature is not valid")
        );
        let unknown = token(&signing, "k9", claims(now() + 300, "servo-fleet"));
        assert_eq!(
            oidc.verify(&unknown).await,
            Err("the token's signing key (kid) is not one of the provider's")
        );
        let no_tenant = token(
            &signing,
            "k1",
            json!({"iss": "https://idp.test", "aud": "servo-fleet", "exp": now() + 300}),
        );
        assert_eq!(
            oidc.verify(&no_tenant).await,
            Err("the token has no tenant claim")
        );
        assert_eq!(
            oidc.verify("sfk_not_a_jwt").await,
            Err("the bearer token is not a valid JWT")
        );
        let hmac = jsonwebtoken::encode(
            &jsonwebtoken::Header::new(Algorithm::HS256),
            &claims(now() + 300, "servo-fleet"),
            &jsonwebtoken::EncodingKey::from_secret(b"guess"),
        )
        .unwrap();
        assert!(
            oidc.verify(&hmac)
                .await
                .unwrap_err()
                .contains("shared secret")
        );
    }

    #[tokio::test]
    async fn a_rotated_provider_key_is_fetched_when_a_token_names_it() {
        let (first, jwk1) = keypair("k1");
        let keys = std::sync::Arc::new(Mutex::new(vec![jwk1]));
        let oidc = Oidc::new(OidcConfig {
            issuer: "https://idp.test".into(),
            audience: "servo-fleet".into(),
            jwks_url: provider(keys.clone()).await,
            tenant_claim: "tenant".into(),
            leeway: Duration::from_secs(0),
        })
        .unwrap();
        let claims = json!({"iss": "https://idp.test", "aud": "servo-fleet", "exp": now() + 300, "tenant": "acme"});
        assert!(
            oidc.verify(&token(&first, "k1", claims.clone()))
                .await
                .is_ok()
        );
        let (second, jwk2) = keypair("k2");
        keys.lock().unwrap().push(jwk2);
        // Just after a fetch the unknown-kid refetch waits; wind its clock back.
        oidc.keys.lock().await.last_attempt = None;
        assert_eq!(
            oidc.verify(&token(&second, "k2", claims)).await,
            Ok("acme".to_owned())
        );
    }
}
