//! load.rs -- the timed load (docs/bridge-protocol.md, "load"): up to
//! `concurrency` queries in flight over the client's pool, each worker a
//! future, all of them joined on the one thread's current-thread runtime
//! (as Node.js's async workers share its event loop).
//!
//! Each worker takes the next query number and:
//!   closed  issues it at once; its latency counts from the Instant::now()
//!           read before the query waits for a pool connection;
//!   rate    query i is due at start + i/rate; the worker sleeps until then
//!           (tokio::time::sleep_until) and issues it; its latency counts
//!           from the due time. One query per worker at a time.
//! Issuing stops when (elapsed >= duration_ns and issued >= min_queries) or
//! issued == limit (rate mode: the query's due time's elapsed). A query's
//! latency ends after its rows were converted and folded (the worker's own
//! Folder). Results are appended in completion order. After the first
//! failure no worker issues again (sleeping ones are woken); those in flight
//! finish or fail. Once the issuing has ended (a worker returned, or,
//! min_queries 0, the duration passed), the queries still in flight are
//! abandoned as soon as none completed or failed for SETTLE (and, in rate
//! mode, the last issued one is due): the load fails with kind io saying
//! how many were never answered. Nothing else runs between the first clock
//! read and the last reply: no bridge I/O, no printing.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::future::Future;
use std::time::{Duration, Instant};

use futures_util::future::{join_all, select, Either};
use futures_util::pin_mut;
use serde_json::Value;
use tokio::sync::Notify;
use tokio::time::{sleep, sleep_until};

use crate::fold::{parse_kinds, Folder, Kind};
use crate::frames::{int_field, params_field, str_field, Failure, Reply};
use crate::run::cpu_ns;
use crate::StmtInfo;

/// How long the queries in flight may take to settle once the issuing ended.
const SETTLE: Duration = Duration::from_secs(2);

/// One load request, checked.
pub struct LoadSpec {
    pub stmt: i64,
    pub rate: Option<f64>,
    pub concurrency: usize,
    pub duration: Duration,
    pub min_queries: u64,
    /// Queries that may be issued: max_queries, or fewer (bad_at).
    pub limit: u64,
    pub args: Option<Vec<Vec<Option<String>>>>,
    /// The first query whose count of parameters is not the statement's:
    /// its refusal is reported after the load.
    pub bad_at: Option<usize>,
    pub kinds: Vec<Kind>,
    pub ncols: usize,
}

impl LoadSpec {
    pub fn args_for(&self, i: usize) -> Option<&[Option<String>]> {
        self.args.as_ref().map(|a| a[i].as_slice())
    }
}

pub struct LoadResult {
    pub lat: Vec<u64>,
    pub rows: Vec<u64>,
    pub folds: Vec<u32>,
    pub wall: u64,
    pub cpu: u64,
    pub late: u64,
    pub fail: Option<Failure>,
}

impl LoadResult {
    pub fn failed(f: Failure) -> LoadResult {
        LoadResult { lat: vec![], rows: vec![], folds: vec![], wall: 0, cpu: 0, late: 0, fail: Some(f) }
    }
}

pub fn spec(rq: &Value, connected: bool, pool: usize, stmts: &HashMap<i64, StmtInfo>) -> Result<LoadSpec, Failure> {
    let bad = |m: String| Err(Failure::protocol(m));
    let id = int_field(rq, "stmt");
    let mode = str_field(rq, "mode").unwrap_or("");
    let conc = int_field(rq, "concurrency").unwrap_or(0);
    let maxq = int_field(rq, "max_queries").unwrap_or(0);
    let dur = int_field(rq, "duration_ns");
    let minq = int_field(rq, "min_queries").unwrap_or(0);
    let rate = rq.get("rate").and_then(Value::as_f64);
    if !connected {
        return bad("load before connect".into());
    }
    if pool == 0 {
        return bad("load: connect had no pool (\"pool\": P)".into());
    }
    let st = match id.and_then(|i| stmts.get(&i)) {
        Some(s) => s,
        None => return bad("load of a statement that was not prepared".into()),
    };
    if mode != "closed" && mode != "rate" {
        return bad(format!("load: mode must be \"closed\" or \"rate\", not \"{}\"", mode));
    }
    if conc < 1 || maxq < 1 {
        return bad(format!("load: concurrency {} and max_queries {} must be >= 1", conc, maxq));
    }
    if dur.is_none_or(|d| d < 0) || minq < 0 {
        return bad("load: duration_ns and min_queries must be integers >= 0".into());
    }
    if mode == "rate" && !rate.is_some_and(|r| r > 0.0) {
        return bad("load: rate mode needs a rate > 0".into());
    }
    let args = params_field(rq)?;
    let n = maxq as usize;
    let mut bad_at = None;
    match &args {
        Some(a) if a.len() < n => return bad(format!("load: {} parameter sets for max_queries {}", a.len(), n)),
        Some(a) => {
            if let Some(want) = st.server_params {
                bad_at = a[..n].iter().position(|set| set.len() != want);
            }
        }
        None => {
            if st.server_params.unwrap_or(0) > 0 {
                bad_at = Some(0);
            }
        }
    }
    Ok(LoadSpec {
        stmt: id.unwrap(),
        rate: if mode == "rate" { rate } else { None },
        concurrency: conc as usize,
        duration: Duration::from_nanos(dur.unwrap() as u64),
        min_queries: minq as u64,
        limit: bad_at.map_or(n as u64, |b| b as u64),
        args,
        bad_at,
        kinds: parse_kinds(rq.get("kinds")),
        ncols: st.ncols,
    })
}

/// Run the load: query(i, folder) runs query i through the pool (waiting
/// for a free connection) and folds it, handing the folder back.
pub async fn run_load<F, Fut>(s: &LoadSpec, query: F) -> LoadResult
where
    F: Fn(usize, Folder) -> Fut,
    Fut: Future<Output = (Folder, Result<(u64, u32), Failure>)>,
{
    let n = s.limit as usize;
    let workers = s.concurrency.min(n).max(1);
    let issued = Cell::new(0u64);
    let stopped = Cell::new(false);
    let abandoned = Cell::new(false);
    let returned = Cell::new(0usize);
    let first_fail: RefCell<Option<Failure>> = RefCell::new(None);
    let out = RefCell::new((Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n)));
    let last_due = Cell::new(Duration::ZERO); // rate mode: the latest due time issued, since start
    let late = Cell::new((-1i64, 0u64)); // the last-issued query's lateness
    let stop = Notify::new();
    let ended = Notify::new();
    let period = s.rate.map(|r| 1e9 / r);
    let fail = |f: Failure| {
        if first_fail.borrow().is_none() {
            *first_fail.borrow_mut() = Some(f);
            stopped.set(true);
            stop.notify_waiters();
        }
    };

    let cpu0 = cpu_ns();
    let start = Instant::now();
    let last_done = Cell::new(start);
    let end_by = start + s.duration;
    // The workers' shared state, by reference (each worker's future copies them).
    let (issued, stopped, abandoned, returned, out) = (&issued, &stopped, &abandoned, &returned, &out);
    let (last_due, late, stop, ended, last_done, fail, query) =
        (&last_due, &late, &stop, &ended, &last_done, &fail, &query);
    let worker = || async move {
        let mut f = Folder::new(s.kinds.clone(), s.ncols);
        while !stopped.get() {
            let i = issued.get();
            issued.set(i + 1);
            if i >= s.limit {
                break;
            }
            let mut t0 = Instant::now();
            if let Some(period) = period {
                let due = start + Duration::from_nanos((i as f64 * period) as u64);
                // The schedule's count, however late: every query due before the end is issued.
                if due >= end_by && i >= s.min_queries {
                    break;
                }
                if due - start > last_due.get() {
                    last_due.set(due - start);
                }
                if due > t0 {
                    let woken = stop.notified();
                    let nap = sleep_until(due.into());
                    pin_mut!(woken, nap);
                    if let Either::Left(_) = select(woken, nap).await {
                        break;
                    }
                    t0 = Instant::now();
                }
                if i as i64 > late.get().0 {
                    late.set((i as i64, t0.saturating_duration_since(due).as_nanos() as u64));
                }
                t0 = due; // the latency counts from the due time
            } else if t0 >= end_by && i >= s.min_queries {
                break;
            }
            let (nf, r) = query(i as usize, f).await;
            f = nf;
            if abandoned.get() {
                return;
            }
            match r {
                Err(e) => {
                    fail(e);
                    break;
                }
                Ok((rows, h)) => {
                    let t1 = Instant::now();
                    let mut o = out.borrow_mut();
                    o.0.push((t1.duration_since(t0).as_nanos() as u64).max(1));
                    o.1.push(rows);
                    o.2.push(h);
                    last_done.set(t1);
                }
            }
        }
        returned.set(returned.get() + 1);
        ended.notify_one();
    };
    let all = join_all((0..workers).map(|_| worker()));
    let monitor = async {
        // The issuing ends when a worker returns; a load bounded by its
        // duration alone has ended by then at the latest (all may be stuck).
        {
            let e = ended.notified();
            let d = sleep_until(if s.min_queries == 0 { end_by } else { start + Duration::from_secs(1 << 40) }.into());
            pin_mut!(e, d);
            select(e, d).await;
        }
        let mut seen = None;
        loop {
            let progress = out.borrow().0.len() + returned.get();
            let mut wait = SETTLE;
            let due_left = last_due.get().saturating_sub(start.elapsed());
            if due_left > Duration::ZERO {
                wait += due_left;
            } else if seen == Some(progress) {
                let left = workers - returned.get();
                fail(Failure::new(
                    "io",
                    format!(
                        "{} of the load's queries never answered: none completed for {} ms after the issuing \
                     ended (a connection of the pool broke without an error from the client)",
                        left,
                        SETTLE.as_millis()
                    ),
                ));
                abandoned.set(true);
                return;
            }
            seen = Some(progress);
            sleep(wait).await;
        }
    };
    pin_mut!(all, monitor);
    select(all, monitor).await;
    let cpu = cpu_ns() - cpu0;
    let (lat, rows, folds) = out.replace((vec![], vec![], vec![]));
    let end = if lat.is_empty() { Instant::now() } else { last_done.get() };
    let fail = first_fail.borrow_mut().take();
    LoadResult { wall: end.duration_since(start).as_nanos() as u64, cpu, late: late.get().1, lat, rows, folds, fail }
}

pub fn reply(res: LoadResult) -> Reply {
    let mut r = Reply::new();
    match &res.fail {
        Some(f) => r.failure(f),
        None => r.set("ok", true),
    }
    r.set("done", res.lat.len() as u64);
    r.set("wall_ns", res.wall);
    r.set("cpu_ns", res.cpu);
    r.set("late_ns", res.late);
    if !res.lat.is_empty() {
        r.arrays_frame(&res.lat, &res.rows, &res.folds);
    }
    r
}
