//! A TCP proxy a test can cut: it stands between the fleet and Postgres or
//! Redis. `cut` closes every connection through it and stops listening, so new
//! connections are refused, as when a database's node or network goes away;
//! `restore` listens on the same port again.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::net::{TcpSocket, TcpStream};
use tokio::sync::watch;

use crate::harness::{free_port, wait_for};

pub struct Proxy {
    pub port: u16,
    cut: watch::Sender<bool>,
}

impl Proxy {
    /// Proxies a loopback port to `upstream` (`host:port`).
    pub async fn start(upstream: &str) -> Proxy {
        let upstream: SocketAddr = upstream.parse().unwrap();
        let port = free_port();
        let (cut, rx) = watch::channel(false);
        tokio::spawn(serve(port, upstream, rx));
        let proxy = Proxy { port, cut };
        proxy.wait_listening().await;
        proxy
    }

    async fn wait_listening(&self) {
        let addr = SocketAddr::from(([127, 0, 0, 1], self.port));
        wait_for("the proxy to listen", Duration::from_secs(10), || async {
            TcpStream::connect(addr).await.ok().map(|_| ())
        })
        .await;
    }

    /// Closes every connection and refuses new ones.
    pub fn cut(&self) {
        self.cut.send_replace(true);
    }

    /// Accepts connections again.
    pub async fn restore(&self) {
        self.cut.send_replace(false);
        self.wait_listening().await;
    }
}

async fn until_cut(rx: &mut watch::Receiver<bool>) {
    while !*rx.borrow_and_update() {
        if rx.changed().await.is_err() {
            // The proxy is gone: keep the connection until the test ends.
            std::future::pending::<()>().await;
        }
    }
}

async fn serve(port: u16, upstream: SocketAddr, mut rx: watch::Receiver<bool>) {
    loop {
        while *rx.borrow_and_update() {
            if rx.changed().await.is_err() {
                return;
            }
        }
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_reuseaddr(true).unwrap();
        socket
            .bind(SocketAddr::from(([127, 0, 0, 1], port)))
            .unwrap();
        let listener = socket.listen(1024).unwrap();
        loop {
            tokio::select! {
                accepted = listener.accept() => {
                    let Ok((client, _)) = accepted else { continue };
                    tokio::spawn(pipe(client, upstream, rx.clone()));
                }
                () = until_cut(&mut rx) => break,
            }
        }
        // Dropping the listener refuses new connections until `restore`.
    }
}

async fn pipe(mut client: TcpStream, upstream: SocketAddr, mut rx: watch::Receiver<bool>) {
    let Ok(mut server) = TcpStream::connect(upstream).await else {
        return;
    };
    tokio::select! {
        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
        // Dropping both halves closes the connection under the fleet's feet.
        () = until_cut(&mut rx) => {}
    }
}

/// `url` with its port replaced (a store URL pointed at a proxy).
pub fn with_port(url: &str, port: u16) -> String {
    let (scheme, rest) = url.split_once("://").unwrap();
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let (host, _) = authority.rsplit_once(':').unwrap();
    format!("{scheme}://{host}:{port}/{path}")
}

/// The `host:port` a store URL names.
pub fn host_port(url: &str) -> String {
    let rest = url.split_once("://").unwrap().1;
    let authority = rest.split('/').next().unwrap();
    authority.rsplit('@').next().unwrap().to_owned()
}
