//! Every call is authenticated, and a tenant sees only its own sessions.

use serde_json::json;

use crate::harness::{Fleet, call, first, mcp, start_gateway_with};

async fn post_mcp(base: &str, auth: Option<&str>) -> reqwest::StatusCode {
    post_mcp_from(base, auth, None).await
}

async fn post_mcp_from(
    base: &str,
    auth: Option<&str>,
    origin: Option<&str>,
) -> reqwest::StatusCode {
    let mut req = reqwest::Client::new()
        .post(format!("{base}/mcp"))
        .header("accept", "application/json, text/event-stream")
        .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "tools/list"}));
    if let Some(a) = auth {
        req = req.header("authorization", a);
    }
    if let Some(o) = origin {
        req = req.header("origin", o);
    }
    req.send().await.unwrap().status()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn browser_origins_are_refused_with_403_unless_allowed_and_agents_without_origin_pass() {
    let fleet = Fleet::start(1).await;
    let key = format!("Bearer {}", fleet.key("origins").await);
    let evil = Some("https://evil.example.com");
    assert_eq!(post_mcp_from(&fleet.gateway, Some(&key), evil).await, 403);
    assert_eq!(post_mcp_from(&fleet.gateway, Some(&key), None).await, 200);
    let (allowing, _gateway) = start_gateway_with(
        &fleet.db.url,
        &fleet.redis_url,
        &[(
            "FLEET_ALLOWED_ORIGINS",
            "https://app.example.com:443,http://localhost:*",
        )],
    )
    .await;
    for (origin, status) in [
        ("https://app.example.com", 200),
        ("http://localhost:5173", 200),
        ("https://evil.example.com", 403),
        ("http://app.example.com", 403),
    ] {
        assert_eq!(
            post_mcp_from(&allowing, Some(&key), Some(origin)).await,
            status,
            "{origin}"
        );
    }
    assert_eq!(post_mcp_from(&allowing, Some(&key), None).await, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn calls_without_a_valid_key_get_401_and_other_tenants_sessions_are_not_found() {
    let fleet = Fleet::start(1).await;
    assert_eq!(post_mcp(&fleet.gateway, None).await, 401);
    assert_eq!(
        post_mcp(&fleet.gateway, Some("Bearer sfk_not_a_real_key")).await,
        401
    );
    assert_eq!(
        post_mcp(&fleet.gateway, Some("Basic dXNlcjpwdw==")).await,
        401
    );

    let metrics = crate::harness::metrics(&fleet.gateway).await;
    for reason in ["missing", "invalid"] {
        assert!(
            metrics
                .lines()
                .any(|l| l.starts_with("fleet_gateway_auth_failures_total")
                    && l.contains(&format!("reason=\"{reason}\""))),
            "auth failures by reason {reason}: {metrics}"
        );
    }

    let key_a = fleet.key("tenant-a").await;
    let key_b = fleet.key("tenant-b").await;
    let a = mcp(&fleet.gateway, Some(&key_a)).await;
    let b = mcp(&fleet.gateway, Some(&key_b)).await;
    let (out, _) = call(
        &a,
        "servo_navigate",
        json!({"actions": [{"html": "<title>A's tab</title>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();

    let sessions_before = fleet.db.query_count("SELECT COUNT(*) FROM sessions").await;
    for tool in [
        "servo_inspect",
        "servo_evaluate",
        "servo_screenshot",
        "servo_session_status",
    ] {
        let mut action = json!({"sessionID": id});
        if tool == "servo_evaluate" {
            action["script"] = json!("document.title");
        }
        let (out, raw) = call(&b, tool, json!({"actions": [action]})).await;
        let r = first(&out);
        assert_eq!(r["ok"], false, "{tool}: {out:#}");
        assert_eq!(r["code"], "SESSION_NOT_FOUND", "{tool}");
        assert_eq!(r["status"], 404, "{tool}");
        assert_eq!(raw.is_error, Some(true));
    }
    // An unknown ID is the same answer, and neither creates anything.
    let (out, _) = call(
        &b,
        "servo_inspect",
        json!({"actions": [{"sessionID": uuid::Uuid::new_v4().to_string()}]}),
    )
    .await;
    assert_eq!(first(&out)["code"], "SESSION_NOT_FOUND");
    assert_eq!(
        fleet.db.query_count("SELECT COUNT(*) FROM sessions").await,
        sessions_before
    );

    let (out, _) = call(&a, "servo_inspect", json!({"actions": [{"sessionID": id}]})).await;
    assert_eq!(
        first(&out)["response"]["page"]["title"],
        "A's tab",
        "the owner still reaches it: {out:#}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn keys_are_listed_without_the_secret_and_revoked_rotated_or_expired_keys_get_401() {
    use crate::harness::{run_cli, wait_for};
    let fleet = Fleet::start(1).await;
    // A gateway that asks the database on every call, so a revocation shows at once.
    let (gateway, _g) = start_gateway_with(
        &fleet.db.url,
        &fleet.redis_url,
        &[("FLEET_KEY_CACHE_SECS", "0")],
    )
    .await;
    let db = fleet.db.url.as_str();
    let cli = |args: Vec<&str>| {
        let mut all = vec!["keys"];
        all.extend(args);
        all.extend(["--database-url", db]);
        let all: Vec<String> = all.into_iter().map(str::to_owned).collect();
        async move {
            let refs: Vec<&str> = all.iter().map(String::as_str).collect();
            let (ok, out, err) = run_cli(&refs).await;
            assert!(ok, "keys {refs:?} failed: {err}");
            out.trim().to_owned()
        }
    };
    let bearer = |k: &str| format!("Bearer {k}");

    let ci = cli(vec!["create", "--tenant", "life", "--name", "ci"]).await;
    let listed = cli(vec!["list", "--tenant", "life"]).await;
    assert!(
        listed.contains(&ci[..12]) && listed.contains("ci") && listed.contains("active"),
        "{listed}"
    );
    assert!(
        !listed.contains(&ci[12..]),
        "the listing shows only the prefix: {listed}"
    );
    assert_eq!(post_mcp(&gateway, Some(&bearer(&ci))).await, 200);
    cli(vec!["revoke", &ci[..12]]).await;
    assert_eq!(post_mcp(&gateway, Some(&bearer(&ci))).await, 401);
    assert!(
        cli(vec!["list", "--tenant", "life"])
            .await
            .contains("revoked")
    );

    let old = cli(vec!["create", "--tenant", "life", "--name", "deploy"]).await;
    let new = cli(vec!["rotate", &old[..12], "--grace", "1h"]).await;
    assert_ne!(new, old);
    assert_eq!(
        post_mcp(&gateway, Some(&bearer(&old))).await,
        200,
        "within its grace"
    );
    assert_eq!(post_mcp(&gateway, Some(&bearer(&new))).await, 200);
    let newest = cli(vec!["rotate", &new[..12], "--grace", "0s"]).await;
    assert_eq!(
        post_mcp(&gateway, Some(&bearer(&new))).await,
        401,
        "grace 0 ends it now"
    );
    assert_eq!(post_mcp(&gateway, Some(&bearer(&newest))).await, 200);

    let brief = cli(vec!["create", "--tenant", "life", "--expires-in", "5s"]).await;
    assert_eq!(post_mcp(&gateway, Some(&bearer(&brief))).await, 200);
    wait_for(
        "the key to expire",
        std::time::Duration::from_secs(20),
        || async { (post_mcp(&gateway, Some(&bearer(&brief))).await == 401).then_some(()) },
    )
    .await;
    let (ok, _, err) = run_cli(&["keys", "revoke", "sfk_00000000", "--database-url", db]).await;
    assert!(!ok && err.contains("no key has the prefix"), "{err}");
}

/// An identity provider made by the test: a P-256 key, its JWKS on loopback.
struct Provider {
    jwks_url: String,
    signing: jsonwebtoken::EncodingKey,
}

impl Provider {
    async fn start() -> Provider {
        use aws_lc_rs::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair as _};
        use base64::Engine as _;
        let rng = aws_lc_rs::rand::SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
        let pair =
            EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref()).unwrap();
        let point = pair.public_key().as_ref().to_vec();
        let b64 = |b: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(b);
        let jwks = json!({"keys": [{"kty": "EC", "crv": "P-256", "kid": "test-1", "alg": "ES256",
            "x": b64(&point[1..33]), "y": b64(&point[33..65])}]});
        let app = axum::Router::new().route(
            "/.well-known/jwks.json",
            axum::routing::get(move || {
                let jwks = jwks.clone();
                async move { axum::Json(jwks) }
            }),
        );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        Provider {
            jwks_url: format!("http://{addr}/.well-known/jwks.json"),
            signing: jsonwebtoken::EncodingKey::from_ec_der(pkcs8.as_ref()),
        }
    }

    fn token(&self, claims: serde_json::Value) -> String {
        let mut header = jsonwebtoken::Header::new(jsonwebtoken::Algorithm::ES256);
        header.kid = Some("test-1".into());
        jsonwebtoken::encode(&header, &claims, &self.signing).unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_jwt_from_the_configured_provider_names_the_tenant_and_bad_tokens_get_401() {
    let idp = Provider::start().await;
    let fleet = Fleet::start(1).await;
    let (gateway, _g) = start_gateway_with(
        &fleet.db.url,
        &fleet.redis_url,
        &[
            ("FLEET_OIDC_ISSUER", "https://idp.example.test"),
            ("FLEET_OIDC_AUDIENCE", "servo-fleet"),
            ("FLEET_OIDC_JWKS_URL", &idp.jwks_url),
            ("FLEET_OIDC_TENANT_CLAIM", "org"),
        ],
    )
    .await;
    let now = jsonwebtoken::get_current_timestamp();
    let claims = |exp: u64, aud: &str| json!({"iss": "https://idp.example.test", "aud": aud, "exp": exp, "sub": "agent-7", "org": "oidc-org"});
    let valid = idp.token(claims(now + 600, "servo-fleet"));
    assert_eq!(
        post_mcp(&gateway, Some(&format!("Bearer {valid}"))).await,
        200
    );
    for (what, token) in [
        ("expired", idp.token(claims(now - 600, "servo-fleet"))),
        (
            "for another audience",
            idp.token(claims(now + 600, "billing")),
        ),
        ("tampered", format!("{}x", valid)),
    ] {
        assert_eq!(
            post_mcp(&gateway, Some(&format!("Bearer {token}"))).await,
            401,
            "a token {what}"
        );
    }

    // The token's tenant is the tenant of that name: an API key of it sees the
    // session the token opened.
    let agent = mcp(&gateway, Some(&valid)).await;
    let (out, _) = call(
        &agent,
        "servo_navigate",
        json!({"actions": [{"html": "<title>via oidc</title>"}]}),
    )
    .await;
    let id = first(&out)["sessionID"].as_str().unwrap().to_owned();
    let same_tenant = mcp(&gateway, Some(&fleet.key("oidc-org").await)).await;
    let (seen, _) = call(
        &same_tenant,
        "servo_session_status",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    assert_eq!(first(&seen)["ok"], true, "{seen:#}");
    let other = mcp(&gateway, Some(&fleet.key("someone-else").await)).await;
    let (hidden, _) = call(
        &other,
        "servo_session_status",
        json!({"actions": [{"sessionID": id}]}),
    )
    .await;
    assert_eq!(first(&hidden)["code"], "SESSION_NOT_FOUND");
}
