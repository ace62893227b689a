//! Just enough HTTP/1.1 for a local page: one `GET` (or `HEAD`) per connection, bounded in size
//! and time, answered and closed. Nothing here knows a game.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The longest request head (request line and headers) read; a longer one is refused.
pub const MAX_REQUEST: usize = 16 * 1024;

/// How long a client may take to send its request.
const READ_TIMEOUT: Duration = Duration::from_secs(10);

/// How long a client may take to read a chunk of the answer.
const WRITE_TIMEOUT: Duration = Duration::from_secs(60);

/// A request: its method, its path, and its query's parameters, decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `HEAD`, or whatever the client sent.
    pub method: String,
    /// The path, decoded (`/api/explain`).
    pub path: String,
    /// The query's `name=value` pairs in order, decoded (`+` is a space).
    pub query: Vec<(String, String)>,
}

impl Request {
    /// Parses a request target (`/api/explain?state=A%2010`) for `method`.
    pub fn new(method: &str, target: &str) -> Result<Request, String> {
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let path = decode(path, false)?;
        let mut pairs = Vec::new();
        for part in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            pairs.push((decode(k, true)?, decode(v, true)?));
        }
        Ok(Request {
            method: method.to_string(),
            path,
            query: pairs,
        })
    }

    /// The value of query parameter `name`, if given (the last one if given twice).
    pub fn param(&self, name: &str) -> Option<&str> {
        self.query
            .iter()
            .rev()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Percent-decodes `text` (and `+` as a space in a query); fails on a bad escape or on bytes
/// that are not UTF-8.
fn decode(text: &str, plus_is_space: bool) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'%' => {
                let hex = bytes
                    .get(i + 1..i + 3)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| format!("a bad escape in '{text}'"))?;
                out.push(hex);
                i += 3;
            }
            b'+' if plus_is_space => {
                out.push(b' ');
                i += 1;
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{text}' is not UTF-8"))
}

/// Writes a body to the connection as it is made.
pub type Writer<'a> = Box<dyn FnOnce(&mut dyn Write) -> io::Result<()> + 'a>;

/// What a response carries.
pub enum Body<'a> {
    /// Bytes known in full.
    Bytes(Vec<u8>),
    /// Written as it is made (a strategy of millions of rows); the connection's end marks
    /// its end.
    Stream(Writer<'a>),
}

/// A response: status, type, extra headers and body.
pub struct Response<'a> {
    /// The status code.
    pub status: u16,
    /// The `Content-Type`.
    pub content_type: &'static str,
    /// Further headers.
    pub headers: Vec<(&'static str, String)>,
    /// The body.
    pub body: Body<'a>,
}

impl<'a> Response<'a> {
    /// A complete body of type `content_type`.
    pub fn bytes(status: u16, content_type: &'static str, body: impl Into<Vec<u8>>) -> Self {
        Response {
            status,
            content_type,
            headers: Vec::new(),
            body: Body::Bytes(body.into()),
        }
    }

    /// One line of JSON, status 200.
    pub fn json(text: String) -> Self {
        Response::bytes(200, "application/json", text + "\n")
    }

    /// An error: `{"error": message}` with `status`.
    pub fn error(status: u16, message: &str) -> Self {
        let text = perfectplay::export::json_line(&serde_json::json!({ "error": message }));
        Response::bytes(status, "application/json", text + "\n")
    }

    /// This response with a further header.
    pub fn with(mut self, name: &'static str, value: String) -> Self {
        self.headers.push((name, value));
        self
    }

    /// The body as bytes (a stream is run into a buffer): for tests and small answers.
    pub fn into_bytes(self) -> io::Result<Vec<u8>> {
        match self.body {
            Body::Bytes(b) => Ok(b),
            Body::Stream(f) => {
                let mut out = Vec::new();
                f(&mut out)?;
                Ok(out)
            }
        }
    }
}

/// The reason phrase of a status.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        404 => "Not Found",
        405 => "Method Not Allowed",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Reads one request from `stream`: the request line and headers (a body, which a `GET` does
/// not have, is not read). `Err` carries the response to send instead.
pub fn read_request(stream: &TcpStream) -> Result<Request, Response<'static>> {
    stream.set_read_timeout(Some(READ_TIMEOUT)).ok();
    let mut reader = BufReader::new(stream.take(MAX_REQUEST as u64 + 1));
    let mut head = Vec::new();
    let mut lines = Vec::new();
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) => return Err(Response::error(400, "the request ended early")),
            Ok(_) => {}
            Err(e) => {
                return Err(Response::error(
                    400,
                    &format!("cannot read the request: {e}"),
                ))
            }
        }
        head.extend_from_slice(&line);
        if head.len() > MAX_REQUEST {
            return Err(Response::error(431, "the request is too large"));
        }
        if !line.ends_with(b"\n") {
            return Err(Response::error(400, "the request ended early"));
        }
        let text = String::from_utf8_lossy(&line).trim_end().to_string();
        if text.is_empty() {
            break;
        }
        lines.push(text);
    }
    let first = lines.first().map(String::as_str).unwrap_or("");
    let mut parts = first.split(' ');
    let (Some(method), Some(target), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(Response::error(400, "a malformed request line"));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(Response::error(400, "only HTTP/1 is spoken here"));
    }
    Request::new(method, target).map_err(|e| Response::error(400, &e))
}

/// Writes `response` to `stream` and closes the connection; the body is left out for `HEAD`.
pub fn write_response(
    stream: &mut TcpStream,
    response: Response<'_>,
    head_only: bool,
) -> io::Result<()> {
    stream.set_write_timeout(Some(WRITE_TIMEOUT)).ok();
    let mut w = io::BufWriter::new(stream);
    write!(
        w,
        "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nConnection: close\r\n\
         Cache-Control: no-store\r\nX-Content-Type-Options: nosniff\r\n",
        response.status,
        reason(response.status),
        response.content_type
    )?;
    for (name, value) in &response.headers {
        write!(w, "{name}: {value}\r\n")?;
    }
    match response.body {
        Body::Bytes(b) => {
            write!(w, "Content-Length: {}\r\n\r\n", b.len())?;
            if !head_only {
                w.write_all(&b)?;
            }
        }
        Body::Stream(f) => {
            write!(w, "\r\n")?;
            if !head_only {
                f(&mut w)?;
            }
        }
    }
    w.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_are_decoded() {
        let r = Request::new("GET", "/api/explain?state=A+10%2C%20B&id=3&flag").unwrap();
        assert_eq!(r.path, "/api/explain");
        assert_eq!(r.param("state"), Some("A 10, B"));
        assert_eq!(r.param("id"), Some("3"));
        assert_eq!(r.param("flag"), Some(""));
        assert_eq!(r.param("none"), None);
    }

    #[test]
    fn bad_escapes_are_refused() {
        assert!(Request::new("GET", "/api/explain?state=%4").is_err());
        assert!(Request::new("GET", "/api/explain?state=%zz").is_err());
        assert!(Request::new("GET", "/api/explain?state=%ff").is_err());
    }
}
