//! tests/vectors.rs -- the Rust adapter's self-test against the bridge's
//! shared test vectors (tests/vectors/folds.json and frames.json; the
//! bridge's C reproduces them in build/tests/test_vectors). No server, no
//! network: the adapter's own fold (src/fold.rs: the Folder and each Rust
//! type's Contribution, which values.rs, values_sqlx.rs and client_null.rs
//! fold every value with) and its own frame codec (src/frames.rs: Channel's
//! reader and writer on a real socket, decode, the arrays frame and base64),
//! compiled in from the adapter's sources, never re-implemented here.
//!
//!   pgcb-vectors-rust [DIR]     DIR, else $PGCB_VECTORS, else tests/vectors
//!                               (from the checkout's top; under `cargo test`,
//!                               the checkout's own tests/vectors)
//!
//! One line per failed check (the vector, the case, got and want), then, as
//! the last line, `vectors: rust: F folds, R frames checked`. Exit 0 when
//! every check passed; 1 otherwise, a missing or unreadable file included.
//! Built by adapters/rust/build.sh (cargo test --release --no-run: a test
//! target without libtest's harness) as build/adapters/rust/pgcb-vectors-rust.

#[allow(dead_code)]
#[path = "../src/fold.rs"]
mod fold;
#[allow(dead_code)]
#[path = "../src/frames.rs"]
mod frames;

use std::io::{Read, Write};
use std::os::unix::io::IntoRawFd;
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use serde_json::Value;

use fold::{parse_kinds, Contribution, Folder, Kind, FNV_OFFSET};
use frames::{Channel, Reply};

/// The checks' counts and failures.
#[derive(Default)]
struct Tally {
    folds: usize,
    frames: usize,
    failed: usize,
}

impl Tally {
    fn fail(&mut self, what: String) {
        println!("FAIL {}", what);
        self.failed += 1;
    }
}

fn main() -> ExitCode {
    let dir = vectors_dir();
    let mut t = Tally::default();
    match load(&dir.join("folds.json")) {
        Ok(v) => check_folds(&v, &mut t),
        Err(e) => t.fail(e),
    }
    match load(&dir.join("frames.json")) {
        Ok(v) => check_frames(&v, &mut t),
        Err(e) => t.fail(e),
    }
    println!("vectors: rust: {} folds, {} frames checked", t.folds, t.frames);
    if t.failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The argument, else $PGCB_VECTORS, else tests/vectors when the working
/// directory has it (the checkout's top), else the checkout's own (cargo
/// test runs the test in adapters/rust).
fn vectors_dir() -> PathBuf {
    if let Some(d) = std::env::args_os().nth(1).or_else(|| std::env::var_os("PGCB_VECTORS")) {
        return PathBuf::from(d);
    }
    let top = PathBuf::from("tests/vectors");
    if top.is_dir() {
        top
    } else {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/vectors")
    }
}

fn load(path: &Path) -> Result<Value, String> {
    let text = std::fs::read(path).map_err(|e| format!("{}: {}", path.display(), e))?;
    serde_json::from_slice(&text).map_err(|e| format!("{}: not JSON: {}", path.display(), e))
}

/// An array member of v, or a failure naming it.
fn array<'a>(v: &'a Value, k: &str, what: &str) -> Result<&'a Vec<Value>, String> {
    v.get(k).and_then(Value::as_array).ok_or_else(|| format!("{}: no array \"{}\"", what, k))
}

fn name(v: &Value) -> &str {
    v.get("name").and_then(Value::as_str).unwrap_or("?")
}

// ---------------------------------------------------------------------------
// folds.json: each vector's batch, its dumped values turned into the Rust
// values the clients deliver, folded by the adapter's Folder for each case's
// kinds, against fold["bytes"] (hello's text_length: "bytes").

/// A non-null value as the Rust adapter's clients deliver it: the column's
/// Rust type (values.rs's ColType) where the dump's value is of that kind.
#[derive(Debug)]
enum Native {
    Bool(bool),
    Char(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    Oid(u32),
    F32(f32),
    F64(f64),
    Str(String),
    Bytes(Vec<u8>),
    /// An array (int4[], text[] ...): Vec<Option<T>>.
    Array(Vec<Option<Native>>),
    Other(Opaque),
}

/// `{"other": text}`: a date, decimal, uuid ... any opaque value of kind any.
#[derive(Debug)]
#[allow(dead_code)]
struct Opaque(String);

/// Opaque: the trait's default, as for chrono's, uuid's and Decimal's types.
impl Contribution for Opaque {}

impl Native {
    /// The adapter's contribution of the Rust value inside, handed over as
    /// the clients hand it (by value; &str and &[u8] borrowed from the row).
    fn contribution(self, k: Kind) -> u32 {
        match self {
            Native::Bool(v) => v.contribution(k),
            Native::Char(v) => v.contribution(k),
            Native::I16(v) => v.contribution(k),
            Native::I32(v) => v.contribution(k),
            Native::I64(v) => v.contribution(k),
            Native::Oid(v) => v.contribution(k),
            Native::F32(v) => v.contribution(k),
            Native::F64(v) => v.contribution(k),
            Native::Str(v) => v.as_str().contribution(k),
            Native::Bytes(v) => v.as_slice().contribution(k),
            Native::Array(v) => v.contribution(k),
            Native::Other(v) => v.contribution(k),
        }
    }
}

/// A dumped integer as the Rust type of its column (int2 i16, int4 i32,
/// int8 i64, oid u32, "char" i8; a float column's f64; any other i64).
fn integer(n: i128, ty: u64) -> Result<Native, String> {
    let fits = |r: Result<Native, std::num::TryFromIntError>| r.map_err(|_| format!("{} does not fit type {}", n, ty));
    match ty {
        18 => fits(i8::try_from(n).map(Native::Char)),
        21 => fits(i16::try_from(n).map(Native::I16)),
        23 => fits(i32::try_from(n).map(Native::I32)),
        26 => fits(u32::try_from(n).map(Native::Oid)),
        700 => Ok(Native::F32(n as f32)),
        701 => Ok(Native::F64(n as f64)),
        _ => fits(i64::try_from(n).map(Native::I64)),
    }
}

fn float(x: f64, ty: u64) -> Native {
    if ty == 700 {
        Native::F32(x as f32)
    } else {
        Native::F64(x)
    }
}

/// An array type's element type (int2[], int4[], int8[], text[], float4[], float8[]).
fn element_type(ty: u64) -> u64 {
    match ty {
        1005 => 21,
        1007 => 23,
        1016 => 20,
        1009 => 25,
        1021 => 700,
        1022 => 701,
        _ => 0,
    }
}

/// A dumped value (docs/bridge-protocol.md, "Dumps") of a column of type ty.
fn native(v: &Value, ty: u64) -> Result<Option<Native>, String> {
    let bad = || format!("cannot read the dumped value {}", v);
    Ok(Some(match v {
        Value::Null => return Ok(None),
        Value::Bool(b) => Native::Bool(*b),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => integer(i as i128, ty)?,
            (None, Some(u)) => integer(u as i128, ty)?,
            _ => float(n.as_f64().ok_or_else(bad)?, ty),
        },
        Value::String(s) => Native::Str(s.clone()),
        Value::Array(a) => {
            let et = element_type(ty);
            Native::Array(a.iter().map(|e| native(e, et)).collect::<Result<_, _>>()?)
        }
        Value::Object(o) => {
            let text = |k: &str| o.get(k).and_then(Value::as_str);
            if let Some(s) = text("int") {
                integer(s.parse::<i128>().map_err(|_| bad())?, ty)?
            } else if let Some(s) = text("float") {
                float(
                    match s {
                        "NaN" => f64::NAN,
                        "Infinity" => f64::INFINITY,
                        "-Infinity" => f64::NEG_INFINITY,
                        "-0" => -0.0,
                        _ => return Err(bad()),
                    },
                    ty,
                )
            } else if let Some(h) = text("bytes") {
                Native::Bytes(unhex(h).ok_or_else(bad)?)
            } else if let Some(s) = text("other") {
                Native::Other(Opaque(s.to_string()))
            } else {
                return Err(bad());
            }
        }
    }))
}

fn unhex(h: &str) -> Option<Vec<u8>> {
    if !h.len().is_multiple_of(2) {
        return None;
    }
    (0..h.len()).step_by(2).map(|i| u8::from_str_radix(h.get(i..i + 2)?, 16).ok()).collect()
}

/// One execution of the batch: its column count and rows of Rust values.
struct Execution {
    ncols: usize,
    rows: Vec<Vec<Option<Native>>>,
}

fn executions(results: &[Value]) -> Result<Vec<Execution>, String> {
    let mut out = Vec::new();
    for (e, r) in results.iter().enumerate() {
        let what = format!("execution {}", e);
        let types: Vec<u64> = array(r, "columns", &what)?
            .iter()
            .map(|c| c.get("type").and_then(Value::as_u64).ok_or_else(|| format!("{}: a column without a type", what)))
            .collect::<Result<_, _>>()?;
        let mut rows = Vec::new();
        for (i, row) in array(r, "rows", &what)?.iter().enumerate() {
            let vals = row.as_array().ok_or_else(|| format!("{}: row {} is not an array", what, i))?;
            if vals.len() != types.len() {
                return Err(format!("{}: row {} has {} values for {} columns", what, i, vals.len(), types.len()));
            }
            let vals = vals.iter().zip(&types).map(|(v, &ty)| native(v, ty));
            rows.push(vals.collect::<Result<_, _>>().map_err(|m| format!("{}: row {}: {}", what, i, m))?);
        }
        out.push(Execution { ncols: types.len(), rows });
    }
    Ok(out)
}

/// The batch's fold with the run's kinds, as a run folds it: the Folder
/// sized once from the kinds and the statement's columns (run.rs's plan),
/// then per execution in order what client_pg.rs's consume and values.rs's
/// fold_row do: start, per row row() and each column's contribution (None
/// for a null) by the column's kind, finish into h. The values are the
/// batch's own (converted for this case): folding consumes them.
fn fold_batch(execs: Vec<Execution>, kinds: &Value) -> u32 {
    let mut f = Folder::new(parse_kinds(Some(kinds)), execs.first().map_or(0, |e| e.ncols));
    let mut h = FNV_OFFSET;
    for e in execs {
        f.start(e.ncols);
        for row in e.rows {
            f.row();
            for (j, v) in row.into_iter().enumerate() {
                let k = f.kind(j);
                f.value(j, v.map(|v| v.contribution(k)));
            }
        }
        h = f.finish(h);
    }
    h
}

fn check_folds(doc: &Value, t: &mut Tally) {
    let vectors = match array(doc, "vectors", "folds.json") {
        Ok(v) => v,
        Err(e) => return t.fail(e),
    };
    for v in vectors {
        let cases = array(v, "cases", name(v)).map(|c| c.as_slice()).unwrap_or_default();
        for (i, c) in cases.iter().enumerate() {
            t.folds += 1;
            let kinds = c.get("kinds").unwrap_or(&Value::Null);
            let what = format!("fold: {}: case {} (kinds {})", name(v), i, kinds);
            let want = c.get("fold").and_then(|f| f.get("bytes")).and_then(Value::as_u64);
            let execs = array(v, "results", name(v)).and_then(|r| executions(r));
            match (execs, want) {
                (Err(e), _) => t.fail(format!("{}: {}", what, e)),
                (_, None) => t.fail(format!("{}: no fold.bytes", what)),
                (Ok(execs), Some(want)) => {
                    let got = fold_batch(execs, kinds);
                    if got as u64 != want {
                        t.fail(format!("{}: got {}, want {}", what, got, want));
                    }
                }
            }
        }
        if cases.is_empty() {
            t.fail(format!("fold: {}: no cases", name(v)));
        }
    }
}

// ---------------------------------------------------------------------------
// frames.json: the arrays frame and base64, request frames through the
// adapter's reader from a socket (whole and in small pieces), replies
// through its writer.

/// A connected AF_UNIX stream pair, as the bridge gives the adapter (ours,
/// the adapter's); a read or write that waits 10 s fails instead of hanging.
fn socket_pair() -> Result<(UnixStream, UnixStream), String> {
    let (ours, theirs) = UnixStream::pair().map_err(|e| e.to_string())?;
    for s in [&ours, &theirs] {
        let t = Some(Duration::from_secs(10));
        s.set_read_timeout(t).and_then(|()| s.set_write_timeout(t)).map_err(|e| e.to_string())?;
    }
    Ok((ours, theirs))
}

/// What `send` writes through a Channel on one end of a socket pair, as
/// the bridge reads it from the other.
fn written(send: impl FnOnce(&mut Channel) -> std::io::Result<()>) -> Result<Vec<u8>, String> {
    let (ours, theirs) = socket_pair()?;
    let mut ch = Channel::open(theirs.into_raw_fd()).map_err(|e| e.to_string())?;
    send(&mut ch).map_err(|e| format!("write: {}", e))?;
    drop(ch); // end of file for our end
    let mut out = Vec::new();
    (&ours).read_to_end(&mut out).map_err(|e| e.to_string())?;
    Ok(out)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{:02x}", c)).collect()
}

/// The decimal strings of a u64 array, or the numbers of a u32 one.
fn u64s(v: &Value, k: &str) -> Result<Vec<u64>, String> {
    array(v, k, name(v))?
        .iter()
        .map(|x| x.as_str().and_then(|s| s.parse().ok()).ok_or_else(|| format!("{}: bad {} {}", name(v), k, x)))
        .collect()
}

fn u32s(v: &Value, k: &str) -> Result<Vec<u32>, String> {
    array(v, k, name(v))?
        .iter()
        .map(|x| x.as_u64().and_then(|n| u32::try_from(n).ok()).ok_or_else(|| format!("{}: bad {} {}", name(v), k, x)))
        .collect()
}

/// An arrays entry: the frame Reply::arrays_frame makes and Channel::write
/// sends after the reply (n >= 1; for n = 0 the adapter sends none: run.rs
/// and load.rs never ask for one), and Reply::arrays_b64's three strings.
fn check_arrays(a: &Value) -> Result<(), String> {
    let (samples, rows, folds) = (u64s(a, "samples")?, u64s(a, "rows")?, u32s(a, "folds")?);
    let mut errs = Vec::new();
    match a.get("frame_hex").and_then(Value::as_str) {
        None if samples.is_empty() => {}
        None => errs.push(format!("no frame_hex for {} batches", samples.len())),
        Some(_) if samples.is_empty() => errs.push("a frame_hex for no batches".into()),
        Some(want) => {
            let mut r = Reply::ok();
            r.arrays_frame(&samples, &rows, &folds);
            let out = written(|ch| ch.write(&r))?;
            // Skip the reply's own frame: what follows is the arrays frame.
            let n = out.get(..4).map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()) as usize);
            match out.get(4 + n..) {
                Some(got) if hex(got) == want => {}
                Some(got) => errs.push(format!("arrays frame: got {}, want {}", hex(got), want)),
                None => errs.push(format!(
                    "the reply's length prefix {} runs past the {} bytes written ({}), want the arrays frame {}",
                    n,
                    out.len(),
                    hex(&out),
                    want
                )),
            }
            if r.obj.get("arrays").and_then(Value::as_str) != Some("frame") {
                errs.push(format!("the reply says arrays {:?}, not \"frame\"", r.obj.get("arrays")));
            }
        }
    }
    let mut r = Reply::new();
    r.arrays_b64(&samples, &rows, &folds);
    for k in ["samples", "rows", "folds"] {
        let (got, want) = (r.obj.get(k), a.get("base64").and_then(|b| b.get(k)));
        if got != want {
            errs.push(format!("base64 {}: got {:?}, want {:?}", k, got, want));
        }
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("; "))
    }
}

/// The request frames' bytes, back to back, delivered to a Channel as the
/// bridge writes them: whole (one write), or in pieces of 1 to 987 bytes
/// with a pause after each, so that the reader sees lengths and UTF-8
/// characters cut; each payload decoded by frames::decode as main.rs does.
/// Returns per request its failure, if any (and a failure of the stream).
fn read_requests(wire: &[u8], want: &[Value], pieces: bool) -> (Vec<Option<String>>, Option<String>) {
    let mut got: Vec<Option<String>> = vec![Some("never read".into()); want.len()];
    let (ours, theirs) = match socket_pair() {
        Ok(p) => p,
        Err(e) => return (got, Some(e)),
    };
    let mut ch = match Channel::open(theirs.into_raw_fd()) {
        Ok(c) => c,
        Err(e) => return (got, Some(e.to_string())),
    };
    let bytes = wire.to_vec();
    let writer = std::thread::spawn(move || -> std::io::Result<()> {
        let mut s = ours;
        if !pieces {
            return s.write_all(&bytes);
        }
        let sizes = [1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, 233, 377, 610, 987];
        let (mut at, mut i) = (0, 0);
        while at < bytes.len() {
            let n = sizes[i % sizes.len()].min(bytes.len() - at);
            s.write_all(&bytes[at..at + n])?;
            at += n;
            i += 1;
            std::thread::sleep(Duration::from_micros(20));
        }
        Ok(()) // our end closes: end of file after the last frame
    });
    let mut stream_err = None;
    for (i, w) in want.iter().enumerate() {
        got[i] = match ch.read() {
            Ok(Some(payload)) => match frames::decode(&payload) {
                Ok(v) if &v == w => None,
                Ok(v) => Some(format!("decoded {}, want {}", v, w)),
                Err(f) => Some(format!("decode: {}", f.msg)),
            },
            Ok(None) => Some("end of file instead".into()),
            Err(e) => Some(format!("read: {}", e)),
        };
    }
    match ch.read() {
        Ok(None) => {}
        Ok(Some(p)) => stream_err = Some(format!("a frame of {} bytes after the last request", p.len())),
        Err(e) => stream_err = Some(format!("read at the end: {}", e)),
    }
    drop(ch); // a reader that stopped early: the writer fails rather than wait
    if let Ok(Err(e)) = writer.join() {
        stream_err = Some(format!("write: {}", e));
    }
    (got, stream_err)
}

fn check_frames(doc: &Value, t: &mut Tally) {
    for k in ["arrays", "requests", "replies"] {
        match array(doc, k, "frames.json") {
            Err(e) => t.fail(e),
            Ok(a) if a.is_empty() => t.fail(format!("frames.json: no {}", k)),
            Ok(_) => {}
        }
    }
    let none = Vec::new();
    let list = |k: &str| doc.get(k).and_then(Value::as_array).unwrap_or(&none);

    for a in list("arrays") {
        t.frames += 1;
        if let Err(e) = check_arrays(a) {
            t.fail(format!("frame: arrays: {}: {}", name(a), e));
        }
    }

    let reqs = list("requests");
    let mut wire = Vec::new();
    let mut want = Vec::new();
    for q in reqs {
        match q.get("wire_hex").and_then(Value::as_str).and_then(unhex) {
            Some(b) => wire.extend_from_slice(&b),
            None => t.fail(format!("frame: request: {}: no wire_hex", name(q))),
        }
        want.push(q.get("request").cloned().unwrap_or(Value::Null));
    }
    for pieces in [false, true] {
        let how = if pieces { "in pieces" } else { "whole" };
        let (got, stream) = read_requests(&wire, &want, pieces);
        for (q, g) in reqs.iter().zip(got) {
            if let Some(e) = g {
                t.fail(format!("frame: request: {} ({}): {}", name(q), how, e));
            }
        }
        if let Some(e) = stream {
            t.fail(format!("frame: requests ({}): {}", how, e));
        }
    }
    t.frames += reqs.len();

    for r in list("replies") {
        t.frames += 1;
        let what = format!("frame: reply: {}", name(r));
        let want = r.get("reply").cloned().unwrap_or(Value::Null);
        let Some(obj) = want.as_object() else {
            t.fail(format!("{}: not an object", what));
            continue;
        };
        let mut reply = Reply::new();
        for (k, v) in obj {
            reply.set(k, v.clone());
        }
        let out = match written(|ch| ch.write(&reply)) {
            Ok(o) => o,
            Err(e) => {
                t.fail(format!("{}: {}", what, e));
                continue;
            }
        };
        let n = out.get(..4).map_or(0, |b| u32::from_be_bytes(b.try_into().unwrap()) as usize);
        let payload = out.get(4..).unwrap_or_default();
        if n != payload.len() {
            t.fail(format!("{}: length prefix {}, want {} (the payload's UTF-8 bytes)", what, n, payload.len()));
        }
        match serde_json::from_slice::<Value>(payload) {
            Ok(v) if v == want => {}
            Ok(v) => t.fail(format!("{}: reads back as {}, want {}", what, v, want)),
            Err(e) => t.fail(format!("{}: the payload is not JSON: {}", what, e)),
        }
    }
}
