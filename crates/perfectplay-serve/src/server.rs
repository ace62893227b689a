//! The listening socket and its connections: each connection is one request on a thread of
//! its own (a long distribution does not hold up the page's other requests), at most
//! [`MAX_CONNECTIONS`] at a time.

use std::io::{self, Read};
use std::net::{IpAddr, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;

use crate::api::Explorer;
use crate::http::{read_request, write_response, Response};

/// The most connections served at once; more are told to come back.
pub const MAX_CONNECTIONS: usize = 32;

/// A bound socket, ready to [`run`](Server::run).
pub struct Server {
    listener: TcpListener,
    address: SocketAddr,
    stop: Arc<AtomicBool>,
}

/// Stops a running [`Server`] from another thread.
#[derive(Clone)]
pub struct Stopper {
    address: SocketAddr,
    stop: Arc<AtomicBool>,
}

impl Stopper {
    /// Makes [`Server::run`] return once the requests in progress are answered.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accepting thread.
        let _ = TcpStream::connect(self.address);
    }
}

impl Server {
    /// Binds `host:port` (port 0 picks a free one).
    pub fn bind(host: IpAddr, port: u16) -> io::Result<Server> {
        let listener = TcpListener::bind((host, port))?;
        let address = listener.local_addr()?;
        Ok(Server {
            listener,
            address,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The address bound.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// The page's address, `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// A handle that stops [`Server::run`].
    pub fn stopper(&self) -> Stopper {
        Stopper {
            address: self.address,
            stop: Arc::clone(&self.stop),
        }
    }

    /// Serves `explorer` until stopped (see [`Server::stopper`]).
    pub fn run(&self, explorer: &Explorer<'_>) -> io::Result<()> {
        let active = AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for stream in self.listener.incoming() {
                if self.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut stream) = stream else {
                    continue; // a client that went away before it was accepted
                };
                if active.fetch_add(1, Ordering::SeqCst) >= MAX_CONNECTIONS {
                    active.fetch_sub(1, Ordering::SeqCst);
                    let busy = Response::error(503, "too many requests at once; try again");
                    let _ = write_response(&mut stream, busy, false);
                    continue;
                }
                let active = &active;
                let spawned = std::thread::Builder::new()
                    .name("perfectplay-serve".into())
                    .spawn_scoped(scope, move || {
                        serve_one(explorer, stream);
                        active.fetch_sub(1, Ordering::SeqCst);
                    });
                if spawned.is_err() {
                    active.fetch_sub(1, Ordering::SeqCst);
                }
            }
        });
        Ok(())
    }
}

/// Answers the one request of a connection; a client that goes away is no error here.
fn serve_one(explorer: &Explorer<'_>, mut stream: TcpStream) {
    let (response, head_only) = match read_request(&stream) {
        Ok(request) => {
            let head_only = request.method == "HEAD";
            // A panic in a query (a bug of ours, or of a game's code) answers 500 and the
            // server goes on.
            let answer = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                explorer.respond(&request)
            }));
            match answer {
                Ok(r) => (r, head_only),
                Err(_) => (
                    Response::error(500, "internal error (please report it)"),
                    false,
                ),
            }
        }
        Err(response) => (response, false),
    };
    let _ = write_response(&mut stream, response, head_only);
    // A client still sending (a request refused as too large) would see its connection reset
    // before it reads the answer if the unread bytes were dropped: the answer is sent, then a
    // little of the rest is read and thrown away.
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.set_read_timeout(Some(std::time::Duration::from_millis(500)));
    let _ = std::io::copy(&mut (&stream).take(LINGER_BYTES), &mut std::io::sink());
}

/// The most bytes read after an answer, for a client that sent more than was read.
const LINGER_BYTES: u64 = 1 << 20;
