//! What a checkpoint holds: the engine's own snapshot (opaque bytes from the
//! guest) and the host-side cookie jar, packed into the one blob the store keeps.
//!
//! Layout: `SFC1`, the engine part's length (u32, little endian), the engine part,
//! then the cookie jar as JSON.

const MAGIC: &[u8; 4] = b"SFC1";

/// The parts of a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    /// The guest's snapshot.
    pub engine: Vec<u8>,
    /// The cookie jar, JSON.
    pub cookies: Vec<u8>,
}

impl Checkpoint {
    /// Packs the parts.
    pub fn encode(&self) -> Vec<u8> {
        let len = u32::try_from(self.engine.len()).unwrap_or(u32::MAX);
        let mut out = Vec::with_capacity(8 + self.engine.len() + self.cookies.len());
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&self.engine);
        out.extend_from_slice(&self.cookies);
        out
    }

    /// Unpacks the parts; a reason on malformed bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self, String> {
        let rest = bytes
            .strip_prefix(MAGIC.as_slice())
            .ok_or("the checkpoint has an unknown format")?;
        let (len, rest) = rest
            .split_first_chunk::<4>()
            .ok_or("the checkpoint is truncated")?;
        let len =
            usize::try_from(u32::from_le_bytes(*len)).map_err(|_| "the checkpoint is too large")?;
        if rest.len() < len {
            return Err("the checkpoint is truncated".into());
        }
        let (engine, cookies) = rest.split_at(len);
        Ok(Self {
            engine: engine.to_vec(),
            cookies: cookies.to_vec(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips_and_bad_bytes_are_refused() {
        let c = Checkpoint {
            engine: b"{\"v\":1}".to_vec(),
            cookies: b"[]".to_vec(),
        };
        assert_eq!(Checkpoint::decode(&c.encode()).unwrap(), c);
        assert!(Checkpoint::decode(b"garbage").is_err());
        let mut truncated = c.encode();
        truncated.truncate(10);
        assert!(Checkpoint::decode(&truncated).is_err());
    }
}
