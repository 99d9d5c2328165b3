//! frames.rs -- the protocol's frames on fd 3 (docs/bridge-protocol.md,
//! "Frames"): a 4-byte big-endian length, then that many bytes of one JSON
//! object; the raw arrays frame after a timed reply; failures and the
//! password scrub of every error line. tests/vectors.rs checks the reader,
//! decode, the reply writer and the arrays' encodings against the shared
//! vectors (tests/vectors/frames.json).

use std::fs::File;
use std::io::{self, BufReader, Read, Write};
use std::os::unix::io::FromRawFd;
use std::sync::Mutex;

use serde_json::{Map, Value};

/// The protocol's limit on a frame's payload.
pub const MAX_FRAME: usize = 64 << 20;

/// The connection's password, never to appear in a reply (set by connect).
static SECRET: Mutex<String> = Mutex::new(String::new());

pub fn set_secret(s: &str) {
    *SECRET.lock().unwrap() = s.to_string();
}

/// `s` with the password replaced by `***`, on one line.
pub fn scrub(s: &str) -> String {
    let secret = SECRET.lock().unwrap();
    let s = if !secret.is_empty() { s.replace(secret.as_str(), "***") } else { s.to_string() };
    s.split(['\r', '\n']).filter(|l| !l.is_empty()).collect::<Vec<_>>().join(" ").trim().to_string()
}

/// A reply {"ok": false, ...}: kind is config, connect, query, io, protocol
/// or unsupported; sqlstate only for query.
#[derive(Debug, Clone)]
pub struct Failure {
    pub kind: &'static str,
    pub sqlstate: Option<String>,
    pub msg: String,
}

impl Failure {
    pub fn new(kind: &'static str, msg: impl Into<String>) -> Failure {
        Failure { kind, sqlstate: None, msg: msg.into() }
    }
    pub fn query(sqlstate: &str, msg: impl Into<String>) -> Failure {
        Failure { kind: "query", sqlstate: Some(sqlstate.to_string()), msg: msg.into() }
    }
    pub fn protocol(msg: impl Into<String>) -> Failure {
        Failure::new("protocol", msg)
    }
}

/// One reply: its JSON object, and the arrays frame that follows it (or none).
pub struct Reply {
    pub obj: Map<String, Value>,
    pub arrays: Option<Vec<u8>>,
}

impl Reply {
    pub fn new() -> Reply {
        Reply { obj: Map::new(), arrays: None }
    }
    pub fn ok() -> Reply {
        let mut r = Reply::new();
        r.set("ok", true);
        r
    }
    pub fn set(&mut self, k: &str, v: impl Into<Value>) {
        self.obj.insert(k.to_string(), v.into());
    }
    /// ok false, kind, sqlstate (query: XX000 if the client gave none), error.
    pub fn failure(&mut self, f: &Failure) {
        self.set("ok", false);
        self.set("kind", f.kind);
        if f.kind == "query" {
            self.set("sqlstate", f.sqlstate.clone().unwrap_or_else(|| "XX000".to_string()));
        }
        self.set("error", scrub(&f.msg));
    }
    /// "arrays": "frame" and the frame of samples, rows (LE u64) and folds
    /// (LE u32) after the reply; n >= 1.
    pub fn arrays_frame(&mut self, samples: &[u64], rows: &[u64], folds: &[u32]) {
        self.set("arrays", "frame");
        let mut raw = Vec::with_capacity(20 * samples.len());
        for v in samples {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        for v in rows {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        for v in folds {
            raw.extend_from_slice(&v.to_le_bytes());
        }
        self.arrays = Some(raw);
    }
    /// The three arrays as base64 strings in the reply (a failure's, a dump's).
    pub fn arrays_b64(&mut self, samples: &[u64], rows: &[u64], folds: &[u32]) {
        let le64 = |v: &[u64]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        let le32 = folds.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        self.set("samples", base64(&le64(samples)));
        self.set("rows", base64(&le64(rows)));
        self.set("folds", base64(&le32));
    }
}

/// Standard base64 with padding ("" for no bytes: the protocol's empty form).
fn base64(raw: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(raw.len().div_ceil(3) * 4);
    for c in raw.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        out.push(A[(n >> 18) as usize & 63] as char);
        out.push(A[(n >> 12) as usize & 63] as char);
        out.push(if c.len() > 1 { A[(n >> 6) as usize & 63] as char } else { '=' });
        out.push(if c.len() > 2 { A[n as usize & 63] as char } else { '=' });
    }
    out
}

/// The adapter's end of the protocol socket.
pub struct Channel {
    r: BufReader<File>,
    w: File,
    out: Vec<u8>,
}

impl Channel {
    /// fd: the socket the bridge passed (3); owned from now on.
    pub fn open(fd: i32) -> io::Result<Channel> {
        let f = unsafe { File::from_raw_fd(fd) };
        let w = f.try_clone()?;
        Ok(Channel { r: BufReader::with_capacity(64 << 10, f), w, out: Vec::new() })
    }

    /// The next request's payload; None at end of file (a clean one, or
    /// inside a frame: the bridge is gone either way).
    pub fn read(&mut self) -> io::Result<Option<Vec<u8>>> {
        let mut hdr = [0u8; 4];
        match self.r.read_exact(&mut hdr) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => return Ok(None),
            Err(e) => return Err(e),
        }
        let n = u32::from_be_bytes(hdr) as usize;
        if !(1..=MAX_FRAME).contains(&n) {
            return Err(io::Error::new(io::ErrorKind::InvalidData, format!("frame length {} out of range", n)));
        }
        let mut buf = vec![0u8; n];
        match self.r.read_exact(&mut buf) {
            Ok(()) => Ok(Some(buf)),
            Err(e) if e.kind() == io::ErrorKind::UnexpectedEof => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Send one reply (and its arrays frame) in one write.
    pub fn write(&mut self, reply: &Reply) -> io::Result<()> {
        let mut body = serde_json::to_vec(&reply.obj).unwrap_or_default();
        if body.len() > MAX_FRAME {
            let mut e = Reply::new();
            e.failure(&Failure::new(
                "unsupported",
                format!("reply of {} bytes exceeds the 64 MiB frame limit", body.len()),
            ));
            body = serde_json::to_vec(&e.obj).unwrap_or_default();
        }
        self.out.clear();
        self.out.extend_from_slice(&(body.len() as u32).to_be_bytes());
        self.out.extend_from_slice(&body);
        if let Some(a) = &reply.arrays {
            self.out.extend_from_slice(&(a.len() as u32).to_be_bytes());
            self.out.extend_from_slice(a);
        }
        self.w.write_all(&self.out)
    }
}

/// A request frame's payload decoded: one JSON object, else kind protocol.
pub fn decode(payload: &[u8]) -> Result<Value, Failure> {
    match serde_json::from_slice(payload) {
        Ok(v @ Value::Object(_)) => Ok(v),
        Ok(_) => Err(Failure::protocol("request is not a JSON object")),
        Err(e) => Err(Failure::protocol(format!("request is not a JSON object: {}", e))),
    }
}

/// Request fields, read from the decoded object.
pub fn int_field(rq: &Value, k: &str) -> Option<i64> {
    rq.get(k).and_then(Value::as_i64)
}

pub fn str_field<'a>(rq: &'a Value, k: &str) -> Option<&'a str> {
    rq.get(k).and_then(Value::as_str)
}

/// `params`: null, or an array of arrays of strings and nulls.
pub fn params_field(rq: &Value) -> Result<Option<Vec<Vec<Option<String>>>>, Failure> {
    let p = match rq.get("params") {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(a)) => a,
        Some(_) => return Err(Failure::protocol("params is not an array")),
    };
    p.iter().map(param_set).collect::<Result<Vec<_>, _>>().map(Some)
}

/// One parameter set: an array of strings and nulls (a stream's `params`).
pub fn param_set(set: &Value) -> Result<Vec<Option<String>>, Failure> {
    let set = set.as_array().ok_or_else(|| Failure::protocol("a parameter set is not an array"))?;
    let mut vals = Vec::with_capacity(set.len());
    for v in set {
        match v {
            Value::Null => vals.push(None),
            Value::String(s) => vals.push(Some(s.clone())),
            _ => return Err(Failure::protocol("a parameter is neither a string nor null")),
        }
    }
    Ok(vals)
}
