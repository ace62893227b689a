//! Connecting the processes of a run: every process listens at its own address of the host
//! list and connects to those before it, as timely expects its sockets. Each connection opens
//! with a greeting that carries the run's fingerprint (a hash of the command and the model),
//! so processes started from different commands refuse each other instead of computing
//! nonsense, and every wait has a deadline, so a missing process is an error, never a hang.

use std::io::{ErrorKind, Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::DistError;

/// The first bytes of every greeting.
const MAGIC: &[u8; 8] = b"ppdist01";

/// How long to sleep between attempts while waiting for a peer.
const POLL: Duration = Duration::from_millis(20);

/// How the error of an address that cannot be listened at begins (a port in use).
pub(crate) const CANNOT_LISTEN: &str = "cannot listen at";

/// This process's listeners, by address, kept from one run to the next: a process that runs
/// several in turn (a property's queries) keeps its port, which another program could take
/// between them.
static LISTENERS: Mutex<Vec<(String, TcpListener)>> = Mutex::new(Vec::new());

/// A listener at `address`: the one kept from an earlier run, or a new one, kept.
fn listener_at(address: &str) -> Result<TcpListener, DistError> {
    let network = |e: std::io::Error| DistError::Network(e.to_string());
    let mut kept = LISTENERS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, listener)) = kept.iter().find(|(a, _)| a == address) {
        return listener.try_clone().map_err(network);
    }
    let listener = TcpListener::bind(address)
        .map_err(|e| DistError::Network(format!("{CANNOT_LISTEN} {address}: {e}")))?;
    kept.push((address.to_string(), listener.try_clone().map_err(network)?));
    Ok(listener)
}

/// Connects process `me` of `hosts` to every other process: the sockets in process order,
/// `None` at `me`. Fails if a peer does not answer within `timeout`, or answers with another
/// fingerprint.
pub(crate) fn connect(
    hosts: &[String],
    me: usize,
    fingerprint: u64,
    timeout: Duration,
) -> Result<Vec<Option<TcpStream>>, DistError> {
    let deadline = Instant::now() + timeout;
    let listener = listener_at(&hosts[me])?;
    listener
        .set_nonblocking(true)
        .map_err(|e| DistError::Network(e.to_string()))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..hosts.len()).map(|_| None).collect();
    for (j, host) in hosts.iter().enumerate().take(me) {
        let mut stream = dial(host, deadline, timeout)?;
        greet(&mut stream, me, fingerprint)?;
        check_reply(&mut stream, j, host)?;
        sockets[j] = Some(stream);
    }
    let mut waiting = hosts.len() - me - 1;
    while waiting > 0 {
        match listener.accept() {
            Ok((mut stream, _)) => {
                stream
                    .set_nonblocking(false)
                    .map_err(|e| DistError::Network(e.to_string()))?;
                let j = receive_greeting(&mut stream, me, hosts.len(), fingerprint, deadline)?;
                if sockets[j].is_some() {
                    return Err(DistError::Network(format!(
                        "two processes say they are process {j}"
                    )));
                }
                sockets[j] = Some(stream);
                waiting -= 1;
            }
            Err(e) if e.kind() == ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<String> = (me + 1..hosts.len())
                        .filter(|&j| sockets[j].is_none())
                        .map(|j| format!("{j} ({})", hosts[j]))
                        .collect();
                    return Err(DistError::Network(format!(
                        "process {me} waited {} s for process{} {} to connect",
                        timeout.as_secs(),
                        if missing.len() > 1 { "es" } else { "" },
                        missing.join(", ")
                    )));
                }
                std::thread::sleep(POLL);
            }
            Err(e) => return Err(DistError::Network(format!("accepting a connection: {e}"))),
        }
    }
    for stream in sockets.iter().flatten() {
        stream
            .set_nodelay(true)
            .and_then(|()| stream.set_read_timeout(None))
            .map_err(|e| DistError::Network(e.to_string()))?;
    }
    Ok(sockets)
}

/// Connects to `host`, retrying until `deadline`.
fn dial(host: &str, deadline: Instant, timeout: Duration) -> Result<TcpStream, DistError> {
    let addresses: Vec<_> = host
        .to_socket_addrs()
        .map_err(|e| DistError::Network(format!("cannot resolve {host}: {e}")))?
        .collect();
    loop {
        for address in &addresses {
            if let Ok(stream) = TcpStream::connect_timeout(address, POLL * 10) {
                return Ok(stream);
            }
        }
        if Instant::now() >= deadline {
            return Err(DistError::Network(format!(
                "could not connect to {host} within {} s",
                timeout.as_secs()
            )));
        }
        std::thread::sleep(POLL);
    }
}

/// Sends the greeting of process `me`.
fn greet(stream: &mut TcpStream, me: usize, fingerprint: u64) -> Result<(), DistError> {
    let mut hello = MAGIC.to_vec();
    hello.extend_from_slice(&(me as u64).to_le_bytes());
    hello.extend_from_slice(&fingerprint.to_le_bytes());
    stream
        .write_all(&hello)
        .map_err(|e| DistError::Network(format!("greeting a peer: {e}")))
}

/// Reads the answer to our greeting: 1 if the peer accepted it.
fn check_reply(stream: &mut TcpStream, j: usize, host: &str) -> Result<(), DistError> {
    let mut reply = [0u8; 1];
    stream
        .set_read_timeout(Some(Duration::from_secs(60)))
        .and_then(|()| stream.read_exact(&mut reply))
        .map_err(|e| DistError::Network(format!("no answer from process {j} ({host}): {e}")))?;
    match reply[0] {
        1 => Ok(()),
        _ => Err(mismatch()),
    }
}

/// Reads a peer's greeting, answers it, and returns the peer's process number.
fn receive_greeting(
    stream: &mut TcpStream,
    me: usize,
    processes: usize,
    fingerprint: u64,
    deadline: Instant,
) -> Result<usize, DistError> {
    let wait = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_secs(1));
    let mut hello = [0u8; 24];
    stream
        .set_read_timeout(Some(wait))
        .and_then(|()| stream.read_exact(&mut hello))
        .map_err(|e| DistError::Network(format!("reading a peer's greeting: {e}")))?;
    let number = |at: usize| u64::from_le_bytes(hello[at..at + 8].try_into().expect("8 bytes"));
    if &hello[..8] != MAGIC {
        return Err(DistError::Network(
            "a connection that is not a perfectplay process of this version".to_string(),
        ));
    }
    let j = number(8) as usize;
    if j <= me || j >= processes {
        return Err(DistError::Network(format!(
            "a peer says it is process {j}, which should not connect to process {me}"
        )));
    }
    let agree = number(16) == fingerprint;
    let _ = stream.write_all(&[agree as u8]);
    if agree {
        Ok(j)
    } else {
        Err(mismatch())
    }
}

fn mismatch() -> DistError {
    DistError::Mismatch(
        "the processes were started with different commands or models (their fingerprints \
         differ); every process must run the same command"
            .to_string(),
    )
}
