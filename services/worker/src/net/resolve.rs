//! Name resolution under the network policy: every address a name resolves to
//! is checked, and the checked addresses are the ones connected to.

use std::future::Future;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::{NetPolicy, Refused};

/// Where a name's addresses come from.
pub trait Lookup: Send + Sync {
    /// The addresses `host` resolves to now.
    fn lookup(&self, host: &str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>>;
}

/// The system resolver (`getaddrinfo` through tokio).
pub struct SystemLookup;

impl Lookup for SystemLookup {
    fn lookup(&self, host: &str) -> Pin<Box<dyn Future<Output = io::Result<Vec<IpAddr>>> + Send>> {
        let host = host.to_owned();
        Box::pin(async move {
            Ok(tokio::net::lookup_host((host.as_str(), 0))
                .await?
                .map(|a| a.ip())
                .collect())
        })
    }
}

/// Resolves names for reqwest and refuses the whole name if any address is not
/// allowed, so a host cannot smuggle a private address among public ones. The
/// addresses returned are the ones reqwest connects to: the check and the
/// connection see the same answer, so a name that answers differently the
/// next time (DNS rebinding) cannot slip a private address in between.
pub(super) struct PolicyResolver {
    policy: Arc<NetPolicy>,
    lookup: Arc<dyn Lookup>,
}

impl PolicyResolver {
    pub(super) fn new(policy: Arc<NetPolicy>, lookup: Arc<dyn Lookup>) -> Self {
        Self { policy, lookup }
    }
}

impl Resolve for PolicyResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let policy = self.policy.clone();
        let lookup = self.lookup.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let refused =
                |m: String| -> Box<dyn std::error::Error + Send + Sync> { Box::new(Refused(m)) };
            let ips = lookup
                .lookup(&host)
                .await
                .map_err(|e| refused(format!("could not resolve {host}: {e}")))?;
            if ips.is_empty() {
                return Err(refused(format!("{host} has no addresses")));
            }
            for ip in &ips {
                policy
                    .check_ip(*ip)
                    .map_err(|e| refused(format!("{host}: {}", e.0)))?;
            }
            let addrs: Addrs = Box::new(ips.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}
