//! The engine's `network` import for one tab: every request a page makes
//! goes through the fetcher under the network policy with the tab's cookie
//! jar, is logged, and a navigation the fetcher saved as a download is kept
//! for the worker to store while the page stays where it was.

use std::time::Instant;

use fleet_proto::download::MAX_FILE_BYTES;

use super::{TabState, bindings};
use crate::net::{CookieStore, Destination, FetchRequest};

/// Why a download is not kept when the fleet has nowhere to put it.
const NO_DOWNLOADS: &str =
    "downloads are not kept: this fleet has no object store (--object-store)";

/// A response a page's navigation saved as a download, not yet stored.
#[derive(Debug)]
pub struct PendingDownload {
    /// Where it came from (after redirects).
    pub source_url: String,
    /// Its name, type and bytes.
    pub file: crate::net::Downloaded,
}

impl TabState {
    /// Queues a download for the worker to store (when the fleet keeps
    /// downloads) and says what became of it, for the page's console.
    fn keep(
        &mut self,
        source_url: String,
        file: crate::net::Downloaded,
    ) -> bindings::fleet::engine::network::SavedDownload {
        let error = match (&file.bytes, self.keep_downloads) {
            (Err(e), _) => Some(e.clone()),
            (Ok(_), false) => Some(NO_DOWNLOADS.to_owned()),
            (Ok(_), true) => None,
        };
        let size = match (&file.bytes, &error) {
            (Ok(b), None) => b.len() as u64,
            _ => 0,
        };
        let saved = bindings::fleet::engine::network::SavedDownload {
            filename: file.filename.clone(),
            size,
            error,
        };
        if self.keep_downloads {
            self.downloads.push(PendingDownload { source_url, file });
        }
        saved
    }
}

impl bindings::fleet::engine::network::Host for TabState {
    async fn fetch(
        &mut self,
        req: bindings::fleet::engine::network::Request,
    ) -> Result<bindings::fleet::engine::network::Response, String> {
        use bindings::fleet::engine::network::Destination as Wit;
        let budget = self.deadline.saturating_duration_since(Instant::now());
        let request = FetchRequest {
            method: req.method,
            url: req.url,
            headers: req.headers,
            body: req.body,
            follow_redirects: req.follow_redirects,
            destination: match req.destination {
                Wit::Subresource => Destination::Subresource,
                Wit::Document => Destination::Document,
                Wit::Download(name) => Destination::Download(name),
            },
        };
        // Without credentials the jar takes no part: a throwaway one is used.
        let mut no_jar = CookieStore::default();
        let jar = if req.credentials {
            &mut self.cookies
        } else {
            &mut no_jar
        };
        let entry = self.network.start(&request.method, &request.url);
        // The CPU is idle while the response is out: another action may run.
        if let Some(lane) = self.lane.as_mut() {
            lane.step_aside();
        }
        let resp = self.fetcher.fetch(request, jar, budget).await;
        if let Some(lane) = self.lane.as_mut() {
            lane.step_back().await;
        }
        self.network.finish(entry, &resp);
        let resp = resp.map_err(|e| e.0)?;
        let source = resp.url.clone();
        let download = resp.download.map(|d| self.keep(source, d));
        Ok(bindings::fleet::engine::network::Response {
            status: resp.status,
            url: resp.url,
            headers: resp.headers,
            body: resp.body,
            download,
        })
    }

    async fn keep_download(
        &mut self,
        filename: String,
        mime_type: String,
        body: Vec<u8>,
        source_url: String,
    ) -> bindings::fleet::engine::network::SavedDownload {
        let filename = match crate::net::download::sanitize(&filename) {
            name if name.is_empty() => "download".to_owned(),
            name => name,
        };
        let size = body.len() as u64;
        let bytes = if size > MAX_FILE_BYTES {
            Err(format!(
                "the file is {size} bytes; the limit is {MAX_FILE_BYTES} bytes"
            ))
        } else {
            Ok(body)
        };
        self.keep(
            source_url,
            crate::net::Downloaded {
                filename,
                mime_type: mime_type.trim().to_ascii_lowercase(),
                bytes,
            },
        )
    }

    async fn document_cookies(&mut self, url: String) -> String {
        crate::net::script_cookies(&self.cookies, &url)
    }

    async fn set_document_cookie(&mut self, url: String, cookie: String) {
        crate::net::store_script_cookie(&mut self.cookies, &url, &cookie);
    }
}
