//! API keys: 256 random bits shown to the user once; only their SHA-256 is stored.
//! A key is high-entropy, so a fast hash is enough (no password stretching needed).

use rand::RngCore;
use sha2::{Digest, Sha256};

/// Prefix that makes keys recognisable in logs and secret scanners (and tells
/// them from JWTs).
pub const KEY_MARKER: &str = "sfk_";
const PREFIX: &str = KEY_MARKER;

/// Characters of a key shown in listings and named by `revoke`/`rotate`: the
/// `sfk_` marker and 8 hex digits (32 random bits), enough to tell a tenant's
/// keys apart, useless as a secret.
pub const KEY_PREFIX_CHARS: usize = 12;

/// The listed prefix of a key.
pub fn key_prefix(key: &str) -> String {
    key.chars().take(KEY_PREFIX_CHARS).collect()
}

/// A fresh random API key.
pub fn generate_key() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("{PREFIX}{}", hex::encode(bytes))
}

/// The stored form of a key.
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_hash_stably() {
        let (a, b) = (generate_key(), generate_key());
        assert_ne!(a, b);
        assert!(a.starts_with(PREFIX) && a.len() == PREFIX.len() + 64);
        assert_eq!(hash_key(&a), hash_key(&a));
        assert_ne!(hash_key(&a), hash_key(&b));
    }
}
