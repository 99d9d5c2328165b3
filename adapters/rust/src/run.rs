//! run.rs -- a block of batches (docs/bridge-protocol.md, "run"): the plan,
//! resolved from the request before the first clock read; the timed loop
//! (timed_block!: one Instant::now(), CLOCK_MONOTONIC, per batch, the end of
//! one batch the start of the next; the process's CPU time read around the
//! loop); the reply (the arrays frame for a timed block, base64 for a dump
//! or a failure).

use std::collections::HashMap;

use serde_json::Value;

use crate::fold::{parse_kinds, Folder};
use crate::frames::{int_field, params_field, Failure, Reply};
use crate::StmtInfo;

/// One run request, resolved.
pub struct Plan {
    pub stmt: i64,
    /// Both or neither.
    pub begin: Option<i64>,
    pub commit: Option<i64>,
    pub depth: usize,
    /// None, or per execution i * depth + k: its text values (None: NULL).
    pub args: Option<Vec<Vec<Option<String>>>>,
    pub dump: bool,
    pub fold: Folder,
    /// The first batch with an execution whose count of parameters is not
    /// the statement's, and that execution; None: none.
    pub bad: Option<(usize, usize)>,
}

impl Plan {
    /// The parameters of execution k of batch i (None: none).
    pub fn args_for(&self, i: usize, k: usize) -> Option<&[Option<String>]> {
        self.args.as_ref().map(|a| a[i * self.depth + k].as_slice())
    }
}

/// What a block produced: per completed batch its sample, rows and fold.
pub struct BlockResult {
    pub samples: Vec<u64>,
    pub rows: Vec<u64>,
    pub folds: Vec<u32>,
    pub cpu_ns: u64,
    pub fail: Option<Failure>,
    /// A dump's "results", encoded after the batch.
    pub results: Option<Value>,
}

impl BlockResult {
    pub fn with_capacity(n: usize) -> BlockResult {
        BlockResult {
            samples: Vec::with_capacity(n),
            rows: Vec::with_capacity(n),
            folds: Vec::with_capacity(n),
            cpu_ns: 0,
            fail: None,
            results: None,
        }
    }
    pub fn failed(f: Failure) -> BlockResult {
        let mut r = BlockResult::with_capacity(0);
        r.fail = Some(f);
        r
    }
}

/// The process's CPU time (user + system, all threads), ns.
pub fn cpu_ns() -> u64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        return 0;
    }
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// timed_block!(n, |i| BATCH): run BATCH (an expression of type
/// Result<(rows, fold), Failure>, which may .await) for i in 0..n, timed;
/// stops at the first failure. A BlockResult.
#[macro_export]
macro_rules! timed_block {
    ($n:expr, |$i:ident| $batch:expr) => {{
        let n: usize = $n;
        let mut res = $crate::run::BlockResult::with_capacity(n);
        let cpu0 = $crate::run::cpu_ns();
        let mut prev = std::time::Instant::now();
        for $i in 0..n {
            let r: Result<(u64, u32), $crate::frames::Failure> = $batch;
            let now = std::time::Instant::now();
            match r {
                Ok((rows, h)) => {
                    let d = now.duration_since(prev).as_nanos() as u64;
                    res.samples.push(d.max(1));
                    res.rows.push(rows);
                    res.folds.push(h);
                    prev = now;
                }
                Err(f) => {
                    res.fail = Some(f);
                    break;
                }
            }
        }
        res.cpu_ns = $crate::run::cpu_ns() - cpu0;
        res
    }};
}

/// The plan of a run request, and its number of batches.
pub fn plan(rq: &Value, connected: bool, stmts: &HashMap<i64, StmtInfo>) -> Result<(Plan, usize), Failure> {
    let bad = |m: String| Err(Failure::protocol(m));
    if !connected {
        return bad("run before connect".into());
    }
    let id = match int_field(rq, "stmt") {
        Some(id) => id,
        None => return bad("run without a stmt".into()),
    };
    let st = match stmts.get(&id) {
        Some(s) => s,
        None => return bad(format!("run of statement {}, which was not prepared", id)),
    };
    let depth = int_field(rq, "depth").unwrap_or(0);
    let batches = int_field(rq, "batches").unwrap_or(0);
    if depth < 1 || batches < 1 {
        return bad(format!("run with depth {} and batches {} (both must be >= 1)", depth, batches));
    }
    let (depth, batches) = (depth as usize, batches as usize);
    let begin = rq.get("begin").and_then(Value::as_i64);
    let commit = rq.get("commit").and_then(Value::as_i64);
    if begin.is_some() != commit.is_some() {
        return bad("run with only one of begin and commit".into());
    }
    for (what, s) in [("begin", begin), ("commit", commit)] {
        if let Some(s) = s {
            if !stmts.contains_key(&s) {
                return bad(format!("{} statement {} was not prepared", what, s));
            }
        }
    }
    let args = params_field(rq)?;
    let mut badx = None;
    if let Some(a) = &args {
        if a.len() != batches * depth {
            return bad(format!("run with {} parameter sets for {} executions", a.len(), batches * depth));
        }
        if let Some(want) = st.server_params {
            badx = a.iter().position(|set| set.len() != want).map(|e| (e / depth, e));
        }
    } else if st.server_params.unwrap_or(0) > 0 {
        badx = Some((0, 0));
    }
    let fold = Folder::new(parse_kinds(rq.get("kinds")), st.ncols);
    let dump = rq.get("dump").and_then(Value::as_bool).unwrap_or(false);
    Ok((Plan { stmt: id, begin, commit, depth, args, dump, fold, bad: badx }, batches))
}

/// The reply to a run: a timed block's arrays in a frame of their own; a
/// failure's or a dump's as base64, the dump's results after them.
pub fn reply(res: BlockResult, dump: bool) -> Reply {
    let mut r = Reply::new();
    match &res.fail {
        Some(f) => {
            r.failure(f);
            r.set("done", res.samples.len() as u64);
        }
        None => r.set("ok", true),
    }
    if res.fail.is_none() && !dump && !res.samples.is_empty() {
        r.arrays_frame(&res.samples, &res.rows, &res.folds);
    } else {
        r.arrays_b64(&res.samples, &res.rows, &res.folds);
    }
    r.set("cpu_ns", res.cpu_ns);
    if res.fail.is_none() {
        if let Some(v) = res.results {
            r.set("results", v);
        }
    }
    r
}
