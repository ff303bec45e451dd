//! Where recordings' and downloads' bytes live: a local folder (one-process mode, or one
//! host) or an S3-compatible bucket (a cluster), behind `object_store`.
//! Keys: `recordings/{id}/frames/{ms}-{hash}.png` while a recording runs,
//! `recordings/{id}/video.mp4` once encoded; `downloads/{id}/file` for a file a
//! session's page downloaded.

use std::ops::Range;
use std::sync::Arc;

use bytes::Bytes;
use futures::TryStreamExt as _;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt as _, PutPayload};

use crate::config::MediaConfig;

/// A failure of the object store; the text is for logs, not agents.
#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The object is not there.
    #[error("no object at {0}")]
    NotFound(String),
    /// Anything else the store said.
    #[error("object store: {0}")]
    Store(#[from] object_store::Error),
    /// The configuration names no usable store.
    #[error("{0}")]
    Config(String),
}

/// The object store recordings use.
#[derive(Clone, Debug)]
pub struct Blobs {
    store: Arc<dyn ObjectStore>,
    /// Shown in logs: `file:///…` or `s3://bucket`.
    name: String,
}

/// An object's key and size, as listed.
#[derive(Debug, Clone)]
pub struct Listed {
    /// Its key.
    pub key: String,
    /// Bytes.
    pub size: u64,
}

fn map_err(key: &str, e: object_store::Error) -> BlobError {
    match e {
        object_store::Error::NotFound { .. } => BlobError::NotFound(key.to_owned()),
        e => BlobError::Store(e),
    }
}

impl Blobs {
    /// The store `config` names: `file:///dir` or a plain path (a local
    /// folder, created), or `s3://bucket` with the `--s3-*` settings.
    pub fn open(config: &MediaConfig, url: &str) -> Result<Self, BlobError> {
        let store: Arc<dyn ObjectStore> = if let Some(bucket) = url.strip_prefix("s3://") {
            let bucket = bucket.trim_end_matches('/');
            if bucket.is_empty() || bucket.contains('/') {
                return Err(BlobError::Config(format!(
                    "--object-store {url:?}: name a bucket only, as s3://bucket"
                )));
            }
            let mut b = object_store::aws::AmazonS3Builder::new()
                .with_bucket_name(bucket)
                .with_region(&config.s3_region)
                .with_allow_http(config.s3_allow_http);
            if let Some(endpoint) = &config.s3_endpoint {
                // S3-compatible servers are addressed by path, not by a
                // bucket subdomain.
                b = b
                    .with_endpoint(endpoint)
                    .with_virtual_hosted_style_request(false);
            }
            if let Some(id) = &config.s3_access_key_id {
                b = b.with_access_key_id(id);
            }
            if let Some(secret) = &config.s3_secret_access_key {
                b = b.with_secret_access_key(secret);
            }
            Arc::new(b.build()?)
        } else {
            let dir = url.strip_prefix("file://").unwrap_or(url);
            if dir.is_empty() {
                return Err(BlobError::Config(
                    "--object-store is empty: give file:///a/folder or s3://bucket".into(),
                ));
            }
            std::fs::create_dir_all(dir)
                .map_err(|e| BlobError::Config(format!("creating {dir}: {e}")))?;
            Arc::new(object_store::local::LocalFileSystem::new_with_prefix(dir)?)
        };
        Ok(Self {
            store,
            name: url.to_owned(),
        })
    }

    /// Where the bytes go, for logs.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes `bytes` at `key` (atomically: readers see all or nothing).
    pub async fn put(&self, key: &str, bytes: Vec<u8>) -> Result<(), BlobError> {
        self.store
            .put(&Path::from(key), PutPayload::from(bytes))
            .await
            .map_err(|e| map_err(key, e))?;
        Ok(())
    }

    /// The whole object.
    pub async fn get(&self, key: &str) -> Result<Bytes, BlobError> {
        let got = self
            .store
            .get(&Path::from(key))
            .await
            .map_err(|e| map_err(key, e))?;
        got.bytes().await.map_err(|e| map_err(key, e))
    }

    /// Bytes `range` of the object.
    pub async fn get_range(&self, key: &str, range: Range<u64>) -> Result<Bytes, BlobError> {
        self.store
            .get_range(&Path::from(key), range)
            .await
            .map_err(|e| map_err(key, e))
    }

    /// The objects under `prefix`, sorted by key.
    pub async fn list(&self, prefix: &str) -> Result<Vec<Listed>, BlobError> {
        let mut listed: Vec<Listed> = self
            .store
            .list(Some(&Path::from(prefix)))
            .map_ok(|m| Listed {
                key: m.location.to_string(),
                size: m.size,
            })
            .try_collect()
            .await
            .map_err(|e| map_err(prefix, e))?;
        listed.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(listed)
    }

    /// Deletes everything under `prefix`; returns how many objects went.
    pub async fn delete_prefix(&self, prefix: &str) -> Result<usize, BlobError> {
        let listed = self.list(prefix).await?;
        for o in &listed {
            match self.store.delete(&Path::from(o.key.as_str())).await {
                Ok(()) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(BlobError::Store(e)),
            }
        }
        Ok(listed.len())
    }
}

/// The key prefix of a recording's objects.
pub fn recording_prefix(id: &str) -> String {
    format!("recordings/{id}")
}

/// The key of a recording's captured frames' folder.
pub fn frames_prefix(id: &str) -> String {
    format!("recordings/{id}/frames")
}

/// The key of a captured frame: its time (zero-padded, so keys sort by time)
/// and a short hash (two frames in one millisecond keep apart).
pub fn frame_key(id: &str, at_ms: u64, hash: &str) -> String {
    format!("recordings/{id}/frames/{at_ms:010}-{hash}.png")
}

/// The time a frame key carries.
pub fn frame_time(key: &str) -> Option<u64> {
    let name = key.rsplit('/').next()?;
    name.split('-').next()?.parse().ok()
}

/// The key of a recording's encoded file.
pub fn video_key(id: &str) -> String {
    format!("recordings/{id}/video.mp4")
}

/// The folder of a downloaded file's objects.
pub fn download_prefix(id: &str) -> String {
    format!("downloads/{id}")
}

/// The key of a downloaded file's bytes (its name is in its row: keys stay
/// free of what a page chose).
pub fn download_key(id: &str) -> String {
    format!("downloads/{id}/file")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_keys_sort_by_time_and_give_it_back() {
        let a = frame_key("r", 999, "ab");
        let b = frame_key("r", 1000, "00");
        assert!(a < b);
        assert_eq!(frame_time(&b), Some(1000));
    }

    #[tokio::test]
    async fn a_local_folder_stores_lists_reads_ranges_and_deletes() {
        let dir = std::env::temp_dir().join(format!("fleet-blobs-{}", std::process::id()));
        let config = MediaConfig::default();
        let blobs = Blobs::open(&config, &format!("file://{}", dir.display())).expect("opened");
        blobs
            .put("recordings/x/video.mp4", b"0123456789".to_vec())
            .await
            .expect("put");
        blobs
            .put("recordings/x/frames/1.png", vec![1])
            .await
            .expect("put");
        assert_eq!(
            blobs
                .get("recordings/x/video.mp4")
                .await
                .expect("get")
                .len(),
            10
        );
        assert_eq!(
            &blobs
                .get_range("recordings/x/video.mp4", 2..5)
                .await
                .expect("range")[..],
            b"234"
        );
        assert_eq!(blobs.list("recordings/x").await.expect("list").len(), 2);
        assert_eq!(
            blobs.delete_prefix("recordings/x").await.expect("deleted"),
            2
        );
        assert!(matches!(
            blobs.get("recordings/x/video.mp4").await,
            Err(BlobError::NotFound(_))
        ));
        let _ = std::fs::remove_dir_all(dir);
    }
}
