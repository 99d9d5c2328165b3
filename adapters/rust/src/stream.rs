//! stream.rs -- one whole result, buffered or streamed
//! (docs/bridge-protocol.md, "stream"): the request checked (spec), its
//! clocks (Timer) and the reply. The clients (client_pg.rs, client_sqlx.rs)
//! issue the query and fold every row into a Folder whose kinds are their
//! columns' Rust types' (values.rs, values_sqlx.rs: stream_kind). Every
//! value of a column has the column's one Rust type, so the kind of its
//! first non-null value is known before the first row; a column with no
//! non-null value is reported as any (its sum is 0 either way).
//!
//! Timing: the process's CPU time (getrusage, as run's), then t0
//! (Instant::now(), CLOCK_MONOTONIC), just before the query is issued; the
//! first row's time once it is converted and folded (a result of no rows:
//! the end); the end once the last row is folded and the client reported
//! the result complete, then the CPU time again. Between t0 and the end:
//! the query and the fold only (no bridge I/O, no printing, no allocation
//! of the adapter's own).

use std::collections::HashMap;
use std::time::Instant;

use serde_json::{json, Value};

use crate::fold::{Folder, Kind};
use crate::frames::{int_field, param_set, str_field, Failure, Reply};
use crate::run::cpu_ns;
use crate::StmtInfo;

/// One stream request, checked. `fetch` is not kept: neither Rust client
/// reads a result in chunks of a size the caller chooses (no cursor).
pub struct StreamSpec {
    pub stmt: i64,
    /// mode "streamed" (else "buffered").
    pub streamed: bool,
    /// The execution's text values (None: NULL); None: no parameters.
    pub args: Option<Vec<Option<String>>>,
}

/// What one stream produced; on a failure, the rows delivered before it.
pub struct StreamResult {
    pub rows: u64,
    pub first_ns: u64,
    pub total_ns: u64,
    pub cpu_ns: u64,
    pub idiom: String,
    /// Per column: kind, nulls, sum (empty for no rows).
    pub columns: Vec<(Kind, u32, u32)>,
    pub fail: Option<Failure>,
}

impl StreamResult {
    pub fn failed(f: Failure) -> StreamResult {
        StreamResult {
            rows: 0,
            first_ns: 0,
            total_ns: 0,
            cpu_ns: 0,
            idiom: String::new(),
            columns: Vec::new(),
            fail: Some(f),
        }
    }
}

pub fn spec(rq: &Value, connected: bool, stmts: &HashMap<i64, StmtInfo>) -> Result<StreamSpec, Failure> {
    let bad = |m: String| Err(Failure::protocol(m));
    if !connected {
        return bad("stream before connect".into());
    }
    let id = match int_field(rq, "stmt") {
        Some(id) if stmts.contains_key(&id) => id,
        Some(id) => return bad(format!("stream of statement {}, which was not prepared", id)),
        None => return bad("stream without a stmt".into()),
    };
    let streamed = match str_field(rq, "mode") {
        Some("streamed") => true,
        Some("buffered") => false,
        _ => {
            let m = rq.get("mode").unwrap_or(&Value::Null);
            return bad(format!("stream: mode must be \"buffered\" or \"streamed\", not {}", m));
        }
    };
    let args = match rq.get("params") {
        None | Some(Value::Null) => None,
        Some(p) => Some(param_set(p)?),
    };
    Ok(StreamSpec { stmt: id, streamed, args })
}

/// The clocks of one stream (the module's comment says when each is read).
pub struct Timer {
    cpu0: u64,
    t0: Instant,
    first: Option<Instant>,
}

impl Timer {
    /// Just before the query is issued.
    #[inline]
    pub fn start() -> Timer {
        let cpu0 = cpu_ns();
        Timer { cpu0, t0: Instant::now(), first: None }
    }

    /// After a row was converted and folded: the first one's time.
    #[inline]
    pub fn row(&mut self) {
        if self.first.is_none() {
            self.first = Some(Instant::now());
        }
    }

    /// The result complete (r Ok) or failed: the clocks read at once, then
    /// the figures from folder f, which holds the rows delivered.
    pub fn end(self, f: &Folder, idiom: String, r: Result<(), Failure>) -> StreamResult {
        let end = Instant::now();
        let cpu = cpu_ns().saturating_sub(self.cpu0);
        let first = (self.first.unwrap_or(end).duration_since(self.t0).as_nanos() as u64).max(1);
        let total = (end.duration_since(self.t0).as_nanos() as u64).max(first);
        let rows = f.nrows;
        let columns = if rows == 0 {
            Vec::new()
        } else {
            (0..f.ncols())
                .map(|j| match f.column(j) {
                    (_, nulls, sum) if nulls == rows => (Kind::Any, nulls, sum),
                    c => c,
                })
                .collect()
        };
        StreamResult { rows: rows as u64, first_ns: first, total_ns: total, cpu_ns: cpu, idiom, columns, fail: r.err() }
    }
}

/// The reply: the figures, or the failure with the rows delivered before it.
pub fn reply(res: StreamResult) -> Reply {
    let mut r = Reply::new();
    if let Some(f) = &res.fail {
        r.failure(f);
        r.set("rows", res.rows);
        return r;
    }
    r.set("ok", true);
    r.set("rows", res.rows);
    r.set("first_row_ns", res.first_ns);
    r.set("total_ns", res.total_ns);
    r.set("cpu_ns", res.cpu_ns);
    r.set("idiom", res.idiom);
    let cols: Vec<Value> = res.columns.iter().map(|&(k, n, s)| json!([k.name(), n, s])).collect();
    r.set("columns", cols);
    r
}
