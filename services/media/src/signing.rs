//! Signed download links: a token is an expiry and an HMAC-SHA256 of the
//! recording's ID with it, under a key every gateway shares
//! (`--url-signing-key`), so any gateway checks a link another one made,
//! with no lookup.

use aws_lc_rs::hmac;

/// Makes and checks download tokens.
#[derive(Clone)]
pub struct Signer {
    /// `None` when no key could be made: no token is then ever valid.
    key: Option<hmac::Key>,
}

impl std::fmt::Debug for Signer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Signer")
    }
}

fn message(id: &str, expires_ms: i64) -> String {
    format!("recording:{id}:{expires_ms}")
}

impl Signer {
    /// A signer over `secret`.
    pub fn new(secret: &[u8]) -> Self {
        Self {
            key: Some(hmac::Key::new(hmac::HMAC_SHA256, secret)),
        }
    }

    /// The signer `--url-signing-key` names; without one, a random key of
    /// this process's own (its links die with it).
    pub fn from_config(config: &crate::MediaConfig) -> Self {
        if let Some(key) = config.url_signing_key.as_deref().filter(|k| !k.is_empty()) {
            return Self::new(key.as_bytes());
        }
        let mut key = [0u8; 32];
        if aws_lc_rs::rand::fill(&mut key).is_err() {
            // Nothing secret to sign with: fail closed, no link is valid.
            tracing::error!(
                "could not draw a random URL-signing key; download links will not work"
            );
            return Self { key: None };
        }
        tracing::warn!(
            "no --url-signing-key: download links are signed with a random key and stop working when this process restarts (and on other gateways)"
        );
        Self::new(&key)
    }

    /// A token for `id` valid until `expires_ms` (Unix ms).
    pub fn token(&self, id: &str, expires_ms: i64) -> String {
        let tag = self
            .key
            .as_ref()
            .map(|k| hex::encode(hmac::sign(k, message(id, expires_ms).as_bytes()).as_ref()))
            .unwrap_or_default();
        format!("{expires_ms}.{tag}")
    }

    /// Whether `token` was made for `id` and is still valid at `now_ms`.
    pub fn check(&self, id: &str, token: &str, now_ms: i64) -> bool {
        let Some((expires, tag)) = token.split_once('.') else {
            return false;
        };
        let (Ok(expires_ms), Ok(tag)) = (expires.parse::<i64>(), hex::decode(tag)) else {
            return false;
        };
        let Some(key) = &self.key else {
            return false;
        };
        // Constant-time comparison inside `verify`.
        now_ms < expires_ms && hmac::verify(key, message(id, expires_ms).as_bytes(), &tag).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_opens_its_recording_until_it_expires_and_no_other() {
        let s = Signer::new(b"secret");
        let t = s.token("rec-1", 2_000);
        assert!(s.check("rec-1", &t, 1_999));
        assert!(!s.check("rec-1", &t, 2_000));
        assert!(!s.check("rec-2", &t, 1_000));
        assert!(!Signer::new(b"other").check("rec-1", &t, 1_000));
        let forged = t.replacen("2000", "9000", 1);
        assert!(!s.check("rec-1", &forged, 1_000));
        assert!(!s.check("rec-1", "garbage", 1_000));
    }
}
