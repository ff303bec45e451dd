//! fleet-policy owns the network policy of servo-fleet (docs/architecture.md, "The network policy"): which URLs
//! and addresses a page or an HTTP tool may reach. The gateway applies it to input
//! before anything is created; the worker applies it again to every request and
//! redirect hop the engine makes, after resolving names itself.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use ipnet::IpNet;
use url::Url;

/// Which addresses the engine may reach.
#[derive(Debug, Clone, Default)]
pub struct NetPolicy {
    /// Ranges allowed although not public (tests, local development).
    pub allow_private: Vec<IpNet>,
}

/// Why a request was refused; the text is shown to the agent.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refused(pub String);

impl NetPolicy {
    /// Checks the parts of a URL that need no DNS: scheme, credentials, and a
    /// literal IP host.
    pub fn check_url(&self, url: &Url) -> Result<(), Refused> {
        check_form(url)?;
        match url.host() {
            Some(url::Host::Ipv4(ip)) => self.check_ip(IpAddr::V4(ip)),
            Some(url::Host::Ipv6(ip)) => self.check_ip(IpAddr::V6(ip)),
            _ => Ok(()),
        }
    }

    /// Refuses an address that is not public, unless an allowed range holds it.
    pub fn check_ip(&self, ip: IpAddr) -> Result<(), Refused> {
        if self.allow_private.iter().any(|net| net.contains(&ip)) || is_public(ip) {
            Ok(())
        } else {
            Err(Refused(format!(
                "the address {ip} is private, loopback, link-local or reserved and is refused by the network policy"
            )))
        }
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, _] = ip.octets();
    !(a == 0                                   // "this" network
        || a == 10                             // private
        || a == 127                            // loopback
        || (a == 100 && (64..128).contains(&b)) // CGNAT
        || (a == 169 && b == 254)              // link-local, cloud metadata
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0)      // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)      // TEST-NET-1
        || (a == 192 && b == 88 && c == 99)    // 6to4 relay anycast
        || (a == 192 && b == 168)              // private
        || (a == 198 && (b == 18 || b == 19))  // benchmarking
        || (a == 198 && b == 51 && c == 100)   // TEST-NET-2
        || (a == 203 && b == 0 && c == 113)    // TEST-NET-3
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let s = ip.segments();
    // Forms that embed an IPv4 address are judged by that address.
    if let Some(v4) = ip.to_ipv4_mapped() {
        return is_public_v4(v4);
    }
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4] {
        // NAT64 well-known prefix
        return is_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        // 6to4
        return is_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    !(ip.is_unspecified()
        || ip.is_loopback()
        || s[0..6] == [0; 6]                    // IPv4-compatible (deprecated) and ::/96
        || (s[0] & 0xfe00) == 0xfc00            // unique local, incl. fd00:ec2::254
        || (s[0] & 0xffc0) == 0xfe80            // link-local
        || (s[0] & 0xffc0) == 0xfec0            // site-local (deprecated)
        || (s[0] & 0xff00) == 0xff00            // multicast
        || (s[0] == 0x2001 && s[1] < 0x200)     // IETF protocol assignments, Teredo
        || (s[0] == 0x2001 && s[1] == 0x0db8)   // documentation
        || (s[0] == 0x0100 && s[1..4] == [0; 3])) // discard-only
}

fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

/// Checks what any policy refuses, whatever ranges it allows: a scheme other
/// than http(s), credentials in the URL, a missing host.
pub fn check_form(url: &Url) -> Result<(), Refused> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(Refused(format!(
            "only http and https URLs are allowed, not {}:",
            url.scheme()
        )));
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refused(
            "URLs with credentials (user:password@) are not allowed".into(),
        ));
    }
    if url.host().is_none() {
        return Err(Refused("the URL has no host".into()));
    }
    Ok(())
}

/// Checks a URL completely: the static rules, then every address its host
/// resolves to (a name with any refused address is refused whole).
pub async fn check_resolved(policy: &NetPolicy, url: &Url) -> Result<(), Refused> {
    policy.check_url(url)?;
    if let Some(url::Host::Domain(host)) = url.host() {
        let port = url.port_or_known_default().unwrap_or(80);
        let addrs = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| Refused(format!("could not resolve {host}: {e}")))?;
        for a in addrs {
            policy
                .check_ip(a.ip())
                .map_err(|e| Refused(format!("{host}: {}", e.0)))?;
        }
    }
    Ok(())
}

/// The policy as command-line flags, shared by every service that applies it.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PolicyConfig {
    /// Private address ranges pages may reach anyway, comma-separated CIDRs (e.g.
    /// `127.0.0.0/8` for local development or tests). Off by default: only public
    /// addresses are reachable.
    #[arg(
        long = "allow-private-network",
        env = "FLEET_ALLOW_PRIVATE_NETWORK",
        value_delimiter = ','
    )]
    pub allow_private_network: Vec<IpNet>,
}

impl PolicyConfig {
    /// The policy these flags describe.
    pub fn policy(&self) -> NetPolicy {
        NetPolicy {
            allow_private: self.allow_private_network.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(p: &NetPolicy, url: &str) -> bool {
        p.check_url(&Url::parse(url).unwrap()).is_err()
    }

    #[test]
    fn private_loopback_metadata_and_mapped_addresses_are_refused_by_default() {
        let p = NetPolicy::default();
        for url in [
            "http://127.0.0.1/",
            "http://10.1.2.3/",
            "http://172.16.0.1/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
            "http://224.0.0.1/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:10.0.0.1]/",
            "http://[fd00:ec2::254]/",
            "http://[fe80::1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:7f00:1::]/",
            "http://[ff02::1]/",
        ] {
            assert!(refused(&p, url), "{url} was allowed");
        }
        for url in [
            "http://93.184.215.14/",
            "https://[2606:4700::1111]/",
            "https://example.com/",
        ] {
            assert!(!refused(&p, url), "{url} was refused");
        }
    }

    #[test]
    fn schemes_other_than_http_and_credentials_are_refused() {
        let p = NetPolicy::default();
        assert!(refused(&p, "file:///etc/passwd"));
        assert!(refused(&p, "ftp://example.com/"));
        assert!(refused(&p, "https://user:pw@example.com/"));
        assert!(refused(&p, "https://user@example.com/"));
    }

    #[test]
    fn an_operator_listed_range_is_allowed_and_nothing_else() {
        let p = NetPolicy {
            allow_private: vec!["127.0.0.0/8".parse().unwrap()],
        };
        assert!(!refused(&p, "http://127.0.0.1:8080/"));
        assert!(refused(&p, "http://10.0.0.1/"));
        assert!(refused(&p, "http://[::1]/"));
    }
}

#[cfg(test)]
mod resolve_tests {
    use super::*;

    #[tokio::test]
    async fn a_name_resolving_to_loopback_is_refused_unless_listed() {
        let url = Url::parse("http://localhost:8080/").unwrap();
        let err = check_resolved(&NetPolicy::default(), &url)
            .await
            .unwrap_err();
        assert!(err.0.contains("refused by the network policy"), "{err}");
        let open = NetPolicy {
            allow_private: vec!["127.0.0.0/8".parse().unwrap(), "::1/128".parse().unwrap()],
        };
        check_resolved(&open, &url).await.unwrap();
    }
}
