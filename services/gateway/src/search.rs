//! `servo_web_search`: Servo MCP's web search over Google, Bing, DuckDuckGo and
//! Yandex. A worker fetches each provider's result page (the gateway has no
//! way out), in parallel, each within its own timeout; the pages are read in
//! [`parse`]; results are merged in provider order with each URL once, and
//! cut at the limit. A provider that fails is reported with why; only when
//! every provider fails does the search fail.

mod parse;

use std::sync::Mutex;

use fleet_proto::v1::{self as pb, ActionError, ActionOutput, ErrorCode, action_output};
use fleet_store::{Tenant, WorkerInfo};
use url::Url;

use crate::dispatch::Dispatcher;

/// Most results a search returns.
pub const MAX_RESULTS: u32 = 10;
/// Results when the search names no limit.
pub const DEFAULT_RESULTS: u32 = 8;
/// Longest query, characters (after trimming).
pub const MAX_QUERY_CHARS: usize = 512;
/// What `provider` may name.
pub const PROVIDER_CHOICES: [&str; 6] = ["auto", "all", "google", "bing", "duckduckgo", "yandex"];

/// One search provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Provider {
    /// Google's HTML results.
    Google,
    /// Bing's RSS results.
    Bing,
    /// DuckDuckGo's HTML-only results.
    DuckDuckGo,
    /// Yandex's HTML results.
    Yandex,
}

impl Provider {
    /// Every provider, in the order their results are merged.
    pub const ALL: [Provider; 4] = [
        Provider::Google,
        Provider::Bing,
        Provider::DuckDuckGo,
        Provider::Yandex,
    ];

    /// The provider's name, as `provider` and the results name it.
    pub fn name(self) -> &'static str {
        match self {
            Provider::Google => "google",
            Provider::Bing => "bing",
            Provider::DuckDuckGo => "duckduckgo",
            Provider::Yandex => "yandex",
        }
    }
}

/// Where each provider's result page is, and how long one may take.
#[derive(Debug, Clone)]
pub struct SearchConfig {
    /// Google's HTML results (`?q=&num=&hl=en` is added).
    pub google: Url,
    /// Bing's RSS results (`?q=&format=rss&count=&setlang=en-us` is added).
    pub bing: Url,
    /// DuckDuckGo's HTML-only results (`?q=` is added).
    pub duckduckgo: Url,
    /// Yandex's results (`?text=` is added).
    pub yandex: Url,
    /// One provider's time limit, ms.
    pub timeout_ms: u32,
}

impl Default for SearchConfig {
    /// The public engines, 8 s each (Servo MCP's timeout).
    fn default() -> Self {
        let url = |u: &str| Url::parse(u).unwrap_or_else(|_| unreachable!("a fixed URL parses"));
        Self {
            google: url("https://www.google.com/search"),
            bing: url("https://www.bing.com/search"),
            duckduckgo: url("https://html.duckduckgo.com/html/"),
            yandex: url("https://yandex.com/search/"),
            timeout_ms: 8_000,
        }
    }
}

impl SearchConfig {
    /// The request for `provider`'s result page of `query`.
    fn url(&self, provider: Provider, query: &str, limit: u32) -> Url {
        let (mut url, pairs): (Url, Vec<(&str, String)>) = match provider {
            Provider::Google => (
                self.google.clone(),
                vec![
                    ("q", query.into()),
                    ("num", limit.to_string()),
                    ("hl", "en".into()),
                ],
            ),
            Provider::Bing => (
                self.bing.clone(),
                vec![
                    ("q", query.into()),
                    ("format", "rss".into()),
                    ("count", limit.to_string()),
                    ("setlang", "en-us".into()),
                ],
            ),
            Provider::DuckDuckGo => (self.duckduckgo.clone(), vec![("q", query.into())]),
            Provider::Yandex => (self.yandex.clone(), vec![("text", query.into())]),
        };
        url.query_pairs_mut().extend_pairs(pairs);
        url
    }
}

/// The providers a `provider` setting names (validation refused others).
fn providers(setting: &str) -> Vec<Provider> {
    match Provider::ALL.iter().find(|p| p.name() == setting) {
        Some(p) => vec![*p],
        None => Provider::ALL.to_vec(),
    }
}

/// A URL as the merge compares it: without its fragment and trailing slash.
fn dedup_key(url: &str) -> String {
    let no_fragment = url.split('#').next().unwrap_or(url);
    no_fragment.trim_end_matches('/').to_owned()
}

impl Dispatcher {
    /// Runs one web search for `tenant`.
    pub(crate) async fn web_search(
        &self,
        tenant: &Tenant,
        workers: &Mutex<Vec<WorkerInfo>>,
        search: pb::WebSearch,
    ) -> Result<ActionOutput, ActionError> {
        let config = self.search_config().clone();
        let config = &config;
        let query = search.query.trim().to_owned();
        let limit = if search.limit == 0 {
            DEFAULT_RESULTS
        } else {
            search.limit
        };
        let setting = if search.provider.is_empty() {
            "auto".to_owned()
        } else {
            search.provider.to_ascii_lowercase()
        };
        let asks = providers(&setting).into_iter().map(|p| {
            let url = config.url(p, &query, limit);
            async move {
                let action = pb::Action {
                    kind: Some(pb::action::Kind::Http(pb::HttpRequest {
                        url: url.to_string(),
                        method: "GET".into(),
                        headers: vec![pb::Header {
                            name: "accept-language".into(),
                            value: "en-US,en;q=0.8".into(),
                        }],
                        ..Default::default()
                    })),
                    max_duration_ms: config.timeout_ms,
                };
                (p, self.http(tenant, workers, action).await)
            }
        });
        let answers = futures::future::join_all(asks).await;
        let mut hits: Vec<pb::SearchHit> = Vec::new();
        let mut seen = std::collections::HashSet::new();
        let mut answered = Vec::new();
        let mut failed = Vec::new();
        for (p, answer) in answers {
            let page = match answer {
                Ok(ActionOutput {
                    kind: Some(action_output::Kind::Http(h)),
                }) if (200..300).contains(&h.status) => h,
                Ok(ActionOutput {
                    kind: Some(action_output::Kind::Http(h)),
                }) => {
                    failed.push(failure(p, format!("answered HTTP {}", h.status)));
                    continue;
                }
                Ok(_) => {
                    failed.push(failure(p, "answered nothing readable".into()));
                    continue;
                }
                Err(e) => {
                    failed.push(failure(p, e.message));
                    continue;
                }
            };
            let body = String::from_utf8_lossy(&page.body);
            let found = parse::results(p, &body);
            // A page with nothing readable is reported: a real engine's page
            // for a real query is never empty, so it is most likely a block
            // page, a consent wall or a changed layout.
            if found.is_empty() {
                failed.push(failure(
                    p,
                    "its page held no results this search can read".into(),
                ));
                continue;
            }
            answered.push(p.name().to_owned());
            for (title, url, snippet) in found {
                if seen.insert(dedup_key(&url)) {
                    hits.push(pb::SearchHit {
                        title,
                        url,
                        snippet,
                        provider: p.name().into(),
                    });
                }
            }
        }
        if answered.is_empty() {
            let why: Vec<String> = failed
                .iter()
                .map(|f| format!("{}: {}", f.provider, f.error))
                .collect();
            return Err(ActionError {
                message: format!("every search provider failed ({})", why.join("; ")),
                code: ErrorCode::UpstreamFailed as i32,
            });
        }
        hits.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
        Ok(ActionOutput {
            kind: Some(action_output::Kind::WebSearch(pb::WebSearchResult {
                query,
                provider: setting,
                results: hits,
                providers: answered,
                failed_providers: failed,
            })),
        })
    }
}

fn failure(p: Provider, error: String) -> pb::ProviderFailure {
    pb::ProviderFailure {
        provider: p.name().into(),
        error,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_differing_only_by_fragment_or_trailing_slash_are_one() {
        assert_eq!(
            dedup_key("https://a.example/x/#top"),
            dedup_key("https://a.example/x")
        );
        assert_ne!(
            dedup_key("https://a.example/x"),
            dedup_key("https://a.example/y")
        );
    }

    #[test]
    fn a_provider_setting_names_one_provider_or_all_of_them() {
        assert_eq!(providers("bing"), vec![Provider::Bing]);
        assert_eq!(providers("auto"), Provider::ALL.to_vec());
        assert_eq!(providers("all"), Provider::ALL.to_vec());
    }
}
