//! client_null.rs -- the "null" client: no server, no I/O. Like
//! drivers/null, a statement yields the rows of the benchmark table, n per
//! execution from the last whole-word "LIMIT <digits>" in its SQL (else
//! option rows, default 1): row i (1-based) is (i32 i, i32 1337, "wat",
//! None, false), columns typed int4, int4, text, text, bool, built once per
//! statement and folded every batch through the same Folder as
//! tokio-postgres's rows. It measures what the bridge and Rust cost.
//! Parameters are accepted and ignored; begin and commit run nothing. A
//! pool (connect with "pool": P) is a tokio Semaphore of P permits: a load's
//! query takes one (waiting when all P are out), folds, gives it back.
//! Options: rows, fail_after (batches, or a load's queries, that succeed;
//! then XX000), hang_after (a load's queries answered; the rest never are).
//! A stream request is kind unsupported (hello: stream false): no server,
//! no result to read.

use std::cell::Cell;
use std::collections::HashMap;

use serde_json::{json, Value};
use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

use crate::fold::{Contribution, Folder, FNV_OFFSET};
use crate::frames::Failure;
use crate::load::{run_load, LoadResult, LoadSpec};
use crate::run::{BlockResult, Plan};
use crate::stream::{StreamResult, StreamSpec};
use crate::{check_options, runtime_text, timed_block, Client, HelloInfo, StmtInfo, ADAPTER_VERSION};

/// The rows of a statement are kept in memory: at most this many.
const MAX_ROWS: u64 = 1_000_000;

/// A value of the null client's rows.
enum NVal {
    Int(i32),
    Str(String),
    Null,
    Bool(bool),
}

pub struct NullClient {
    rows: u64,
    fail_after: u64,
    hang_after: u64,
    batches_ok: Cell<u64>,
    load_ok: Cell<u64>,
    pool: usize,
    stmts: HashMap<i64, Vec<Vec<NVal>>>,
}

const COLUMNS: [(&str, u32); 5] =
    [("id", 23), ("int_value", 23), ("string_value", 25), ("null_value", 25), ("bool_value", 16)];

fn count(key: &str, v: &str) -> Result<u64, Failure> {
    match v.parse::<u64>() {
        Ok(n) if key != "rows" || n <= MAX_ROWS => Ok(n),
        _ => Err(Failure::new("config", format!("null: {} = \"{}\": want a count from 0 to {}", key, v, MAX_ROWS))),
    }
}

fn word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c >= 0x80
}

/// The digits of the last whole-word "LIMIT <digits>" in sql, as drivers/null finds them.
fn find_limit(sql: &str) -> Option<&str> {
    let b = sql.as_bytes();
    let mut found = None;
    let mut p = 0;
    while p + 5 <= b.len() {
        if b[p..p + 5].eq_ignore_ascii_case(b"limit") && (p == 0 || !word_char(b[p - 1])) {
            let mut q = p + 5;
            if q < b.len() && b[q].is_ascii_whitespace() {
                while q < b.len() && b[q].is_ascii_whitespace() {
                    q += 1;
                }
                let d = q;
                while q < b.len() && b[q].is_ascii_digit() {
                    q += 1;
                }
                if q > d && (q == b.len() || !word_char(b[q])) {
                    found = Some(&sql[d..q]);
                }
            }
        }
        p += 1;
    }
    found
}

/// Fold one execution of rows into h.
fn fold_rows(f: &mut Folder, rows: &[Vec<NVal>], h: u32) -> u32 {
    f.start(COLUMNS.len());
    for row in rows {
        f.row();
        for (j, v) in row.iter().enumerate() {
            let k = f.kind(j);
            let c = match v {
                NVal::Null => None,
                NVal::Int(x) => Some((*x).contribution(k)),
                NVal::Str(s) => Some(s.as_str().contribution(k)),
                NVal::Bool(b) => Some((*b).contribution(k)),
            };
            f.value(j, c);
        }
    }
    f.finish(h)
}

impl NullClient {
    pub fn new(opts: &HashMap<String, String>) -> Result<NullClient, Failure> {
        check_options("null", opts, &["rows", "fail_after", "hang_after"])?;
        let get = |k: &str, def: u64| opts.get(k).map_or(Ok(def), |v| count(k, v));
        Ok(NullClient {
            rows: get("rows", 1)?,
            fail_after: get("fail_after", 0)?,
            hang_after: get("hang_after", 0)?,
            batches_ok: Cell::new(0),
            load_ok: Cell::new(0),
            pool: 0,
            stmts: HashMap::new(),
        })
    }

    fn injected() -> Failure {
        Failure::query("XX000", "null client: injected failure")
    }
}

impl Client for NullClient {
    fn info(&self) -> HelloInfo {
        HelloInfo {
            client: "null",
            client_version: ADAPTER_VERSION.to_string(),
            links: format!("null (no I/O: benchmark rows built in Rust); {}", runtime_text()),
            pipeline: false,
            no_io: true,
            load: true,
            stream: false,
            wire: None,
        }
    }

    fn connect(&mut self, _: &Runtime, _: &Value, pool: usize) -> Result<(), Failure> {
        self.pool = pool;
        Ok(())
    }

    fn prepare(&mut self, _: &Runtime, id: i64, sql: &str) -> Result<StmtInfo, Failure> {
        let mut n = self.rows;
        if let Some(d) = find_limit(sql) {
            match d.parse::<u64>() {
                Ok(v) if v <= MAX_ROWS => n = v,
                _ => return Err(Failure::new("unsupported", format!("null: LIMIT {} is above {} rows", d, MAX_ROWS))),
            }
        }
        let rows = (0..n)
            .map(|i| {
                vec![NVal::Int(i as i32 + 1), NVal::Int(1337), NVal::Str("wat".into()), NVal::Null, NVal::Bool(false)]
            })
            .collect();
        self.stmts.insert(id, rows);
        Ok(StmtInfo { ncols: COLUMNS.len(), server_params: None })
    }

    fn run(&mut self, _: &Runtime, p: &mut Plan, n: usize) -> BlockResult {
        let rows = &self.stmts[&p.stmt];
        let (fail_after, ok) = (self.fail_after, &self.batches_ok);
        let depth = p.depth;
        let fold = &mut p.fold;
        let res = timed_block!(n, |_i| {
            if fail_after > 0 && ok.get() >= fail_after {
                Err(NullClient::injected())
            } else {
                let mut h = FNV_OFFSET;
                for _ in 0..depth {
                    h = fold_rows(fold, rows, h);
                }
                ok.set(ok.get() + 1);
                Ok(((depth * rows.len()) as u64, h))
            }
        });
        let mut res = res;
        if p.dump && res.fail.is_none() {
            let cols: Vec<Value> = COLUMNS.iter().map(|(n, t)| json!({"name": n, "type": t})).collect();
            let rs: Vec<Value> = rows
                .iter()
                .map(|_| json!([0, 1337, "wat", null, false]))
                .enumerate()
                .map(|(i, mut r)| {
                    r[0] = json!(i + 1);
                    r
                })
                .collect();
            let one = json!({"columns": cols, "rows": rs});
            res.results = Some(Value::Array(vec![one; depth]));
        }
        res
    }

    fn load(&mut self, rt: &Runtime, s: &LoadSpec) -> LoadResult {
        let rows = match self.stmts.get(&s.stmt) {
            Some(r) => r,
            None => return LoadResult::failed(Failure::protocol("load of a statement that was not prepared")),
        };
        let sem = Semaphore::new(self.pool.max(1));
        let (sem, this) = (&sem, &*self);
        let query = |_i: usize, mut f: Folder| async move {
            let permit = sem.acquire().await;
            if this.hang_after > 0 {
                this.load_ok.set(this.load_ok.get() + 1);
                if this.load_ok.get() > this.hang_after {
                    std::future::pending::<()>().await; // never answered: a pool connection broken silently
                }
            }
            if this.fail_after > 0 {
                this.batches_ok.set(this.batches_ok.get() + 1);
                if this.batches_ok.get() > this.fail_after {
                    return (f, Err(NullClient::injected()));
                }
            }
            let h = fold_rows(&mut f, rows, FNV_OFFSET);
            drop(permit);
            (f, Ok((rows.len() as u64, h)))
        };
        rt.block_on(run_load(s, query))
    }

    fn stream(&mut self, _: &Runtime, _: &StreamSpec) -> StreamResult {
        StreamResult::failed(Failure::new(
            "unsupported",
            "the null client talks to no server: it has no result to buffer or stream",
        ))
    }

    fn close(&mut self, _: &Runtime) {}
}
