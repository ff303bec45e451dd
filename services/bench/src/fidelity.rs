//! Engine fidelity against headless Chromium, on the corpus in `tests/corpus/`:
//! pages that each exercise one area of the platform (`pages/`), the one
//! extraction both browsers run on them (`extract.js`), and Chromium's answers
//! stored as golden files (`golden/<page>.json`).
//!
//! [`server`] serves the pages on two loopback origins with the few dynamic routes
//! they use, [`goldens`] writes the goldens from headless Chromium
//! (`servo-fleet goldens`, run by `scripts/goldens.sh`), and [`compare`] judges
//! an engine's extraction against a golden (the e2e test `fidelity` does that
//! through the whole fleet).

pub mod compare;
pub mod goldens;
pub mod server;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest as _, Sha256};

pub use compare::{BOX_TOLERANCE_PX, MIN_TEXT_F1, Mismatch, PageReport, TextScore, text_f1};
pub use goldens::GoldensConfig;
pub use server::{CorpusServer, serve};

/// The placeholder a golden holds where a URL had the corpus server's origin.
pub const ORIGIN: &str = "{origin}";
/// The placeholder for the second (cross-origin) listener's origin.
pub const ORIGIN2: &str = "{origin2}";

/// The viewport both browsers lay the pages out in: the engine's default.
pub const VIEWPORT: (u32, u32) = (1280, 720);

/// One link of a page, as the extraction reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Link {
    /// Its text content, whitespace collapsed.
    pub text: String,
    /// Its resolved `href`.
    pub href: String,
}

/// What `extract.js` returns for a page.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Extraction {
    /// `document.title`.
    pub title: String,
    /// `document.body.innerText`.
    pub text: String,
    /// Every `a[href]` in document order.
    pub links: Vec<Link>,
    /// The page's `window.__fidelity`, after a JSON round trip.
    pub values: Value,
    /// `data-box` name → `{x, y, width, height}` in document px, rounded.
    pub boxes: BTreeMap<String, Value>,
}

impl Extraction {
    /// Reads an extraction from the JSON the script returned, with the server's
    /// origins replaced by their placeholders.
    pub fn from_json(mut value: Value, origins: &Origins) -> anyhow::Result<Self> {
        origins.normalize(&mut value);
        serde_json::from_value(value.clone()).with_context(|| {
            format!(
                "the extraction did not return {{title, text, links, values, boxes}}: {}",
                compare::abbreviate(&value.to_string(), 400)
            )
        })
    }
}

/// A page's golden file: Chromium's extraction and what it was made from.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Golden {
    /// The page's file name in `pages/`.
    pub page: String,
    /// SHA-256 of the page's sources and the extraction script; see
    /// [`Corpus::source_hash`].
    pub source_sha256: String,
    /// The Chromium that produced it.
    pub chromium: String,
    /// The viewport it was laid out in, `[width, height]`.
    pub viewport: [u32; 2],
    /// What Chromium read.
    pub extraction: Extraction,
}

/// The corpus server's two origins, and how URLs carrying them are normalized.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origins {
    /// The origin the pages are loaded from (`http://127.0.0.1:PORT`).
    pub origin: String,
    /// The second origin, cross-origin to the first.
    pub origin2: String,
}

impl Origins {
    /// Replaces both origins in every string of `value` by [`ORIGIN`] and
    /// [`ORIGIN2`], so results compare across runs whose ports differ.
    pub fn normalize(&self, value: &mut Value) {
        match value {
            Value::String(s) => {
                let once = replace_origin(s, &self.origin, ORIGIN);
                *s = replace_origin(&once, &self.origin2, ORIGIN2);
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.normalize(v)),
            Value::Object(map) => map.values_mut().for_each(|v| self.normalize(v)),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

/// Replaces each `origin` in `text` not followed by another port digit (so
/// `http://h:80` is not found inside `http://h:8080`).
fn replace_origin(text: &str, origin: &str, placeholder: &str) -> String {
    if origin.is_empty() {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(origin) {
        let after = &rest[at + origin.len()..];
        out.push_str(&rest[..at]);
        if after.starts_with(|c: char| c.is_ascii_digit()) {
            out.push_str(origin);
        } else {
            out.push_str(placeholder);
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// The corpus directory: `pages/`, `extract.js` and `golden/`.
#[derive(Debug, Clone)]
pub struct Corpus {
    root: PathBuf,
}

impl Corpus {
    /// Opens the corpus at `root` (the repository's `tests/corpus`).
    pub fn open(root: impl Into<PathBuf>) -> anyhow::Result<Self> {
        let root = root.into();
        for needed in ["pages", "extract.js"] {
            let path = root.join(needed);
            if !path.exists() {
                bail!(
                    "{} is missing: is {} the corpus directory (tests/corpus)?",
                    path.display(),
                    root.display()
                );
            }
        }
        Ok(Self { root })
    }

    /// The directory the server serves.
    pub fn pages_dir(&self) -> PathBuf {
        self.root.join("pages")
    }

    /// Every page (`*.html` directly in `pages/`), sorted by name.
    pub fn pages(&self) -> anyhow::Result<Vec<String>> {
        let dir = self.pages_dir();
        let mut pages = Vec::new();
        for entry in
            std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))?
        {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.ends_with(".html") && entry.file_type()?.is_file() {
                pages.push(name);
            }
        }
        pages.sort();
        Ok(pages)
    }

    /// The extraction script as the file holds it: an async function expression.
    pub fn extract_js(&self) -> anyhow::Result<String> {
        let path = self.root.join("extract.js");
        std::fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))
    }

    /// The script both browsers evaluate: the extraction function, called. Its
    /// value is a promise of the extraction.
    pub fn extraction_script(&self) -> anyhow::Result<String> {
        Ok(format!("({})()", self.extract_js()?.trim()))
    }

    /// SHA-256 (hex) of everything a page's golden is made from: the page, the
    /// files of its asset folder (`pages/<stem>/`, if any), the files under
    /// `pages/shared/` they name, the vendor libraries' lock file if they load
    /// `/vendor/`, the corpus server's source if they call its dynamic routes
    /// (`/api/`, or cookies the server sets on the page), and `extract.js`. A
    /// golden whose hash differs from this is stale.
    pub fn source_hash(&self, page: &str) -> anyhow::Result<String> {
        let mut hash = Sha256::new();
        for (name, bytes) in self.golden_inputs(page)? {
            hash.update(name.as_bytes());
            hash.update([0]);
            hash.update((bytes.len() as u64).to_le_bytes());
            hash.update(&bytes);
        }
        Ok(hex::encode(hash.finalize()))
    }

    /// What [`Corpus::source_hash`] hashes, by name, in order.
    pub fn golden_inputs(&self, page: &str) -> anyhow::Result<Vec<(String, Vec<u8>)>> {
        let pages = self.pages_dir();
        let mut files = vec![(page.to_owned(), pages.join(page))];
        let stem = page.strip_suffix(".html").unwrap_or(page);
        let assets = pages.join(stem);
        if assets.is_dir() {
            let mut found = Vec::new();
            collect_files(&assets, &mut found)?;
            for path in found {
                let relative = path
                    .strip_prefix(&pages)
                    .unwrap_or(&path)
                    .to_string_lossy()
                    .replace('\\', "/");
                files.push((relative, path));
            }
        }
        let mut text = String::new();
        for (_, path) in &files {
            let bytes =
                std::fs::read(path).with_context(|| format!("reading {}", path.display()))?;
            text.push_str(&String::from_utf8_lossy(&bytes));
        }
        for name in shared_names(&text) {
            let path = pages.join("shared").join(&name);
            if path.is_file() {
                files.push((format!("shared/{name}"), path));
            }
        }
        files.sort();
        files.dedup();
        if text.contains("/vendor/") {
            let lock = self.root.join("vendor/package-lock.json");
            files.push(("vendor/package-lock.json".to_owned(), lock));
        }
        files.push(("extract.js".to_owned(), self.root.join("extract.js")));
        let mut inputs = Vec::new();
        for (name, path) in files {
            let bytes =
                std::fs::read(&path).with_context(|| format!("reading {}", path.display()))?;
            inputs.push((name, bytes));
        }
        if text.contains("/api/") || server::sets_cookies_on(page) {
            inputs.push(("server.rs".to_owned(), server::SOURCE.as_bytes().to_vec()));
        }
        Ok(inputs)
    }

    /// Where a page's golden lives: `golden/<stem>.json`.
    pub fn golden_path(&self, page: &str) -> PathBuf {
        let stem = page.strip_suffix(".html").unwrap_or(page);
        self.root.join("golden").join(format!("{stem}.json"))
    }

    /// Reads a page's golden.
    pub fn read_golden(&self, page: &str) -> anyhow::Result<Golden> {
        let path = self.golden_path(page);
        let text = std::fs::read_to_string(&path).with_context(|| {
            format!(
                "reading {} (write the goldens with scripts/goldens.sh)",
                path.display()
            )
        })?;
        serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))
    }
}

/// The files under `shared/` a page's text names (`shared/clock.js`, …).
fn shared_names(text: &str) -> Vec<String> {
    let mut names: Vec<String> = text
        .match_indices("shared/")
        .map(|(at, m)| {
            text[at + m.len()..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || "._-/".contains(*c))
                .collect::<String>()
        })
        .filter(|name| !name.is_empty() && !name.contains(".."))
        .collect();
    names.sort();
    names.dedup();
    names
}

/// Every file under `dir`, recursively.
fn collect_files(dir: &Path, out: &mut Vec<PathBuf>) -> anyhow::Result<()> {
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let entry = entry?;
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            collect_files(&path, out)?;
        } else {
            out.push(path);
        }
    }
    Ok(())
}

/// `value` with every object's keys in sorted order, whatever map type
/// serde_json was built with, so goldens are written in a stable order.
pub fn sorted_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(k, v)| (k, sorted_keys(v)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted_keys).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use serde_json::json;

    use super::*;

    #[test]
    fn origins_are_replaced_only_where_the_port_ends() {
        let origins = Origins {
            origin: "http://127.0.0.1:4000".into(),
            origin2: "http://127.0.0.1:40001".into(),
        };
        let mut v = json!({
            "a": "http://127.0.0.1:4000/x?y=http://127.0.0.1:40001/z",
            "b": ["http://127.0.0.1:40001", "http://127.0.0.1:4000"],
            "c": 4000
        });
        origins.normalize(&mut v);
        assert_eq!(
            v,
            json!({
                "a": "{origin}/x?y={origin2}/z",
                "b": ["{origin2}", "{origin}"],
                "c": 4000
            })
        );
    }

    #[test]
    fn goldens_keys_are_sorted_at_every_level() {
        let v = sorted_keys(json!({"b": {"z": 1, "a": [{"y": 1, "x": 2}]}, "a": 0}));
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"a":0,"b":{"a":[{"x":2,"y":1}],"z":1}}"#
        );
    }

    #[test]
    fn a_goldens_hash_follows_the_shared_files_vendor_libraries_and_routes_its_page_uses() {
        let root = std::env::temp_dir().join(format!("fleet-corpus-{}", std::process::id()));
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("extract.js", "async () => ({})");
        write("vendor/package-lock.json", "{\"v\": 1}");
        write("pages/shared/used.js", "1");
        write("pages/shared/unused.js", "1");
        write(
            "pages/api.html",
            "<script src=shared/used.js></script><script>fetch('/api/echo')</script>",
        );
        write(
            "pages/vendored.html",
            "<script src=/vendor/react/x.js></script>",
        );
        write("pages/plain.html", "<p>plain</p>");
        let corpus = Corpus::open(&root).unwrap();
        let hashes =
            || ["api.html", "vendored.html", "plain.html"].map(|p| corpus.source_hash(p).unwrap());
        let before = hashes();
        write("pages/shared/unused.js", "2");
        assert_eq!(
            hashes(),
            before,
            "a shared file no page names changed a hash"
        );
        write("pages/shared/used.js", "2");
        let after_shared = hashes();
        assert_ne!(after_shared[0], before[0], "the shared file a page loads");
        assert_eq!(after_shared[1..], before[1..]);
        write("vendor/package-lock.json", "{\"v\": 2}");
        let after_vendor = hashes();
        assert_ne!(after_vendor[1], after_shared[1], "the vendor lock");
        assert_eq!(
            [&after_vendor[0], &after_vendor[2]],
            [&after_shared[0], &after_shared[2]]
        );
        // The server's source is an input of the page that calls /api/ only.
        let names = |page: &str| -> Vec<String> {
            corpus
                .golden_inputs(page)
                .unwrap()
                .into_iter()
                .map(|(name, _)| name)
                .collect()
        };
        assert_eq!(
            names("api.html"),
            ["api.html", "shared/used.js", "extract.js", "server.rs"]
        );
        assert_eq!(
            names("vendored.html"),
            ["vendored.html", "vendor/package-lock.json", "extract.js"]
        );
        assert_eq!(names("plain.html"), ["plain.html", "extract.js"]);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn every_corpus_page_has_a_current_golden() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/corpus");
        let corpus = Corpus::open(root).unwrap();
        let pages = corpus.pages().unwrap();
        assert!(pages.len() >= 10, "{pages:?}");
        for page in pages {
            let golden = corpus.read_golden(&page).unwrap();
            assert_eq!(golden.page, page);
            assert_eq!(golden.viewport, [VIEWPORT.0, VIEWPORT.1]);
            assert_eq!(
                golden.source_sha256,
                corpus.source_hash(&page).unwrap(),
                "the golden of {page} is stale: run scripts/goldens.sh"
            );
        }
    }
}
