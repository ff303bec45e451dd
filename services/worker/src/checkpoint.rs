//! What a checkpoint holds and how it maps to the named parts the store keeps:
//! the engine's own parts (opaque bytes from the guest, named `engine/<part>`),
//! the host-side cookie jar (`host/cookies`, JSON, HttpOnly cookies included) and
//! each registered font (`host/font/<n>`, in registration order).
//!
//! The store rewrites only parts whose bytes changed, so a call that touched
//! nothing but localStorage writes one small part, and a 1 MiB font is written
//! once. A checkpoint written before parts existed is one part named
//! `checkpoint` (`SFC1`, the engine snapshot's length as u32 LE, the engine's
//! version-1 snapshot, the cookie jar): it still restores.
//!
//! It also owns the order a checkpoint is applied to a fresh tab in.

use std::time::Duration;

use fleet_store::Part;

use crate::host::{RegisteredFont, StatePart, Tab, TabError};

const ENGINE_PREFIX: &str = "engine/";
const COOKIES: &str = "host/cookies";
const FONT_PREFIX: &str = "host/font/";
/// The single part of a checkpoint from before parts.
const LEGACY: &str = "checkpoint";
const LEGACY_MAGIC: &[u8; 4] = b"SFC1";
/// The engine part name its restore reads a version-1 snapshot from.
const ENGINE_LEGACY_V1: &str = "legacy-v1";

/// A stored checkpoint, decoded into what a restore applies.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Checkpoint {
    /// The guest's snapshot parts.
    pub engine: Vec<StatePart>,
    /// The cookie jar, JSON.
    pub cookies: Vec<u8>,
    /// Registered fonts, in registration order.
    pub fonts: Vec<Vec<u8>>,
}

/// The named parts to store for a tab's state. They borrow it: a checkpoint
/// runs after every call, and fonts can be megabytes that rarely change.
pub fn parts<'a>(
    engine: &'a [StatePart],
    cookies: &'a [u8],
    fonts: &'a [RegisteredFont],
) -> Vec<Part<'a>> {
    let mut parts = Vec::with_capacity(engine.len() + fonts.len() + 1);
    parts.extend(
        engine
            .iter()
            .map(|p| Part::new(format!("{ENGINE_PREFIX}{}", p.name), &p.data)),
    );
    parts.push(Part::new(COOKIES, cookies));
    parts.extend(fonts.iter().enumerate().map(|(i, font)| Part {
        name: format!("{FONT_PREFIX}{i:03}"),
        data: &font.data,
        hash: font.hash.clone(),
    }));
    parts
}

impl Checkpoint {
    /// Rebuilds a checkpoint from stored parts; a reason when a part is unknown
    /// or malformed.
    pub fn from_parts(mut parts: Vec<(String, Vec<u8>)>) -> Result<Self, String> {
        // Font order is registration order; names sort that way by construction.
        parts.sort_by(|a, b| a.0.cmp(&b.0));
        let mut out = Self::default();
        for (name, data) in parts {
            if let Some(engine) = name.strip_prefix(ENGINE_PREFIX) {
                out.engine.push(StatePart {
                    name: engine.to_owned(),
                    data,
                });
            } else if name == COOKIES {
                out.cookies = data;
            } else if name.starts_with(FONT_PREFIX) {
                out.fonts.push(data);
            } else if name == LEGACY {
                let (engine, cookies) = decode_legacy(&data)?;
                out.engine.push(StatePart {
                    name: ENGINE_LEGACY_V1.to_owned(),
                    data: engine,
                });
                out.cookies = cookies;
            } else {
                return Err(format!("the checkpoint has an unknown part {name:?}"));
            }
        }
        Ok(out)
    }

    /// Applies the checkpoint to a fresh tab, each engine call within `budget`:
    /// cookies first (the engine's restore reloads the page, which must already
    /// send them), then fonts (the page lays out with them), then the engine's
    /// own parts. The inner error is why the checkpoint cannot be applied.
    pub(crate) async fn apply(
        self,
        tab: &mut Tab,
        budget: Duration,
    ) -> Result<Result<(), String>, TabError> {
        if let Err(reason) = tab.set_cookie_state(&self.cookies) {
            return Ok(Err(reason));
        }
        for (i, font) in self.fonts.into_iter().enumerate() {
            if let Err(reason) = tab.register_font(font, budget).await? {
                return Ok(Err(format!(
                    "registered font {} was refused: {reason}",
                    i + 1
                )));
            }
        }
        Ok(tab.restore(&self.engine, budget).await?.map(|_| ()))
    }
}

/// Splits a pre-parts checkpoint into the engine's snapshot and the cookie jar.
fn decode_legacy(bytes: &[u8]) -> Result<(Vec<u8>, Vec<u8>), String> {
    let rest = bytes
        .strip_prefix(LEGACY_MAGIC.as_slice())
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
    Ok((engine.to_vec(), cookies.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part(name: &str, data: &[u8]) -> StatePart {
        StatePart {
            name: name.into(),
            data: data.to_vec(),
        }
    }

    #[test]
    fn a_checkpoint_round_trips_through_its_parts() {
        let engine = vec![part("local-storage", b"{}"), part("page", b"{\"v\":2}")];
        let fonts: Vec<RegisteredFont> = (0..12)
            .map(|i| RegisteredFont {
                data: vec![i],
                hash: fleet_store::content_hash(&[i]),
            })
            .collect();
        let written = parts(&engine, b"[]", &fonts);
        assert!(
            written
                .iter()
                .all(|p| p.hash == fleet_store::content_hash(p.data))
        );
        let mut stored: Vec<(String, Vec<u8>)> = written
            .iter()
            .map(|p| (p.name.clone(), p.data.to_vec()))
            .collect();
        stored.reverse();
        assert_eq!(
            Checkpoint::from_parts(stored).unwrap(),
            Checkpoint {
                engine,
                cookies: b"[]".to_vec(),
                fonts: fonts.into_iter().map(|f| f.data).collect(),
            }
        );
    }

    #[test]
    fn a_checkpoint_from_before_parts_still_restores() {
        let engine = b"{\"version\":1}";
        let mut legacy = b"SFC1".to_vec();
        legacy.extend_from_slice(&u32::try_from(engine.len()).unwrap().to_le_bytes());
        legacy.extend_from_slice(engine);
        legacy.extend_from_slice(b"[]");
        let c = Checkpoint::from_parts(vec![("checkpoint".into(), legacy.clone())]).unwrap();
        assert_eq!(c.engine, vec![part("legacy-v1", engine)]);
        assert_eq!(c.cookies, b"[]");

        legacy.truncate(10);
        assert!(Checkpoint::from_parts(vec![("checkpoint".into(), legacy)]).is_err());
        assert!(Checkpoint::from_parts(vec![("checkpoint".into(), b"garbage".to_vec())]).is_err());
    }

    #[test]
    fn an_unknown_part_is_refused_by_name() {
        let err = Checkpoint::from_parts(vec![("mystery".into(), vec![])]).unwrap_err();
        assert!(err.contains("mystery"), "{err}");
    }
}
