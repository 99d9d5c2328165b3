//! client_sqlx.rs -- the "sqlx" client: sqlx (crates.io, Cargo.lock's
//! release; features runtime-tokio and postgres, no TLS, no macros) on the
//! adapter's current-thread tokio runtime. One connection (no pool): a
//! PgConnection from PgConnection::connect_with(PgConnectOptions) with the
//! connect request's settings (sslmode disable). Every execution is what an
//! sqlx user writes: sqlx::query(sql).bind(..).fetch_all(conn), sqlx's
//! statement cache (per connection, keyed by the SQL) making it a named
//! prepared statement: the bridge's prepare runs Executor::prepare on each
//! connection (Parse, Describe statement, Sync: the statement cached), so
//! every execution is Bind (binary parameters and results), Execute, Close
//! portal, Sync, and its rows are read after CommandComplete (fetch_all).
//! sqlx has no pipelining: the depth executions of a batch one after
//! another on the connection (hello: pipeline false). Parameters: each of
//! the bridge's text values parsed into the Rust type of the statement's
//! parameter (i16, i32, i64, f32, f64, bool, Decimal; a String for text and
//! any other type) and bound, as a user binds typed values: sqlx sends them
//! in binary. Each row's values are read with row.try_get as the column's
//! Rust type (values_sqlx.rs). begin and commit: sqlx::query of those
//! statements before and after the batch (a failure in between rolls back).
//!
//! A pool (connect with "pool": P): sqlx's PgPool (PgPoolOptions, max and
//! min P connections, all opened at connect; test_before_acquire sqlx's
//! default, yes: an idle connection is pinged (a Sync) when it is acquired;
//! option test_before_acquire=no turns it off). A load's query is
//! sqlx::query(sql).bind(..).fetch_all(&pool); a run acquires one
//! connection for its block.
//!
//! A stream (stream.rs): buffered, sqlx::query(sql).bind(..)
//! .fetch_all(conn), the Vec<PgRow> folded row by row; streamed,
//! .fetch(conn), its BoxStream of PgRow read with futures-util's
//! TryStreamExt::try_next, each row folded as it arrives and dropped. Both
//! are one Bind/Execute/Sync of the cached statement, no cursor and no
//! transaction: fetch's stream reads the socket one message per row as it
//! is polled (sqlx's buffered socket, no reader task), so a streamed result
//! is held a socket read at a time; `fetch` is ignored. A failure
//! mid-result leaves nothing to undo: sqlx counts the ReadyForQuery it
//! still owes and reads up to it before the next query (wait_until_ready).

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures_util::TryStreamExt;
use rust_decimal::Decimal;
use serde_json::{json, Value};
use sqlx::postgres::{
    PgArguments, PgConnectOptions, PgConnection, PgPool, PgPoolOptions, PgRow, PgSslMode, PgTypeInfo, Postgres,
};
use sqlx::query::Query;
use sqlx::{AssertSqlSafe, Column, Connection, Either, Executor, SqlSafeStr, Statement, TypeInfo};
use tokio::runtime::Runtime;

use crate::fold::{Folder, FNV_OFFSET};
use crate::frames::{set_secret, Failure};
use crate::load::{run_load, LoadResult, LoadSpec};
use crate::run::{BlockResult, Plan};
use crate::stream::{StreamResult, StreamSpec, Timer};
use crate::values_sqlx::{dump_value, fold_row, sqlx_type, stream_kind, SqlxType};
use crate::{check_options, timed_block, version, yes_no, Client, HelloInfo, StmtInfo, Wire};

/// The Rust type a parameter's text is parsed into and bound as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum PType {
    Bool,
    I16,
    I32,
    I64,
    F32,
    F64,
    Numeric,
    Text,
}

fn ptype(t: &PgTypeInfo) -> PType {
    match t.name() {
        "BOOL" => PType::Bool,
        "INT2" => PType::I16,
        "INT4" => PType::I32,
        "INT8" => PType::I64,
        "FLOAT4" => PType::F32,
        "FLOAT8" => PType::F64,
        "NUMERIC" => PType::Numeric,
        _ => PType::Text,
    }
}

/// A statement as prepared: its SQL (the cache's key), its parameters' and
/// columns' Rust types, its columns for a dump.
struct SStmt {
    sql: Arc<str>,
    params: Vec<PType>,
    ct: Vec<SqlxType>,
    cols: Vec<Value>,
}

type Q<'q> = Query<'q, Postgres, PgArguments>;

/// sqlx::query(sql) with the execution's values bound as their Rust types.
fn query<'q>(st: &SStmt, args: Option<&'q [Option<String>]>) -> Result<Q<'q>, Failure> {
    let mut q = sqlx::query(AssertSqlSafe(st.sql.clone()));
    for (k, v) in args.unwrap_or(&[]).iter().enumerate() {
        let t = st.params.get(k).copied().unwrap_or(PType::Text);
        let v = v.as_deref();
        macro_rules! typed {
            ($t:ty, $name:expr) => {{
                let x: Option<$t> = match v {
                    None => None,
                    Some(s) => Some(s.trim().parse::<$t>().map_err(|_| {
                        Failure::query(
                            "22P02",
                            format!(
                                "invalid input syntax for type {}: \"{}\" (refused by the adapter: sqlx binds \
                                 the parameter as its Rust type)",
                                $name, s
                            ),
                        )
                    })?),
                };
                q.bind(x)
            }};
        }
        q = match t {
            PType::Bool => {
                let x = match v.map(|s| s.trim().to_ascii_lowercase()) {
                    None => None,
                    Some(s) if ["t", "true", "yes", "on", "1"].contains(&s.as_str()) => Some(true),
                    Some(s) if ["f", "false", "no", "off", "0"].contains(&s.as_str()) => Some(false),
                    Some(s) => {
                        return Err(Failure::query(
                            "22P02",
                            format!("invalid input syntax for type boolean: \"{}\" (refused by the adapter)", s),
                        ))
                    }
                };
                q.bind(x)
            }
            PType::I16 => typed!(i16, "smallint"),
            PType::I32 => typed!(i32, "integer"),
            PType::I64 => typed!(i64, "bigint"),
            PType::F32 => typed!(f32, "real"),
            PType::F64 => typed!(f64, "double precision"),
            PType::Numeric => typed!(Decimal, "numeric"),
            PType::Text => q.bind(v),
        };
    }
    Ok(q)
}

/// The server ended the connection (admin_shutdown, crash_shutdown, cannot_connect_now).
fn gone(code: &str) -> bool {
    code == "57P01" || code == "57P02" || code == "57P03"
}

/// An error of sqlx's: the server's refusal is kind query with its
/// SQLSTATE; a broken or ended connection io; anything else sqlx refused protocol.
fn classify(e: &sqlx::Error) -> Failure {
    match e {
        sqlx::Error::Database(db) => {
            let code = db.code().map(|c| c.to_string()).unwrap_or_default();
            if gone(&code) {
                Failure::new("io", format!("{}: {}", code, db.message()))
            } else {
                Failure::query(&code, db.message())
            }
        }
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::WorkerCrashed => {
            Failure::new("io", format!("sqlx: {}", e))
        }
        _ => Failure::protocol(format!("sqlx: {}", e)),
    }
}

pub struct SqlxClient {
    test_before_acquire: bool,
    one: Option<PgConnection>,
    pool: Option<PgPool>,
    size: usize,
    /// Connections the pool has opened (its after_connect hook): more than
    /// `size` means it replaced a broken one.
    opened: Arc<AtomicUsize>,
    stmts: HashMap<i64, SStmt>,
}

impl SqlxClient {
    pub fn new(opts: &HashMap<String, String>) -> Result<SqlxClient, Failure> {
        check_options("sqlx", opts, &["test_before_acquire"])?;
        let test_before_acquire = match opts.get("test_before_acquire") {
            Some(v) => yes_no("sqlx", "test_before_acquire", v)?,
            None => true,
        };
        Ok(SqlxClient {
            test_before_acquire,
            one: None,
            pool: None,
            size: 0,
            opened: Arc::new(AtomicUsize::new(0)),
            stmts: HashMap::new(),
        })
    }

    fn options(conn: &Value) -> Result<PgConnectOptions, Failure> {
        let s = |k: &str| conn.get(k).and_then(Value::as_str);
        // PgConnectOptions reads PG* variables for what is not set below
        // (the bridge passes host, port, user and dbname always).
        let mut o = PgConnectOptions::new_without_pgpass().host(s("host").unwrap_or("/var/run/postgresql"));
        if let Some(p) = s("port") {
            o = o.port(p.parse().map_err(|_| Failure::new("connect", format!("port \"{}\" is not a port number", p)))?);
        }
        if let Some(u) = s("user") {
            o = o.username(u);
        }
        if let Some(d) = s("dbname") {
            o = o.database(d);
        }
        if let Some(pw) = s("password") {
            set_secret(pw);
            o = o.password(pw);
        }
        if let Some(a) = s("application_name") {
            o = o.application_name(a);
        }
        if let Some(opt) = s("options") {
            o = o.options(startup_options(opt)?);
        }
        match s("sslmode") {
            None | Some("disable") => Ok(o.ssl_mode(PgSslMode::Disable)),
            Some(m) => Err(Failure::new(
                "connect",
                format!("sslmode {}: the Rust adapter's sqlx is built without TLS (no tls feature)", m),
            )),
        }
    }

    /// The connection a run uses: the one, or one acquired from the pool.
    fn conn<'a>(
        &'a mut self,
        rt: &Runtime,
        held: &'a mut Option<sqlx::pool::PoolConnection<Postgres>>,
    ) -> Result<&'a mut PgConnection, Failure> {
        if let Some(c) = self.one.as_mut() {
            return Ok(c);
        }
        let p = self.pool.as_ref().ok_or_else(|| Failure::protocol("sqlx: not connected"))?;
        *held = Some(rt.block_on(p.acquire()).map_err(|e| classify(&e))?);
        Ok(&mut **held.as_mut().unwrap())
    }
}

/// The options string ("-c a=b -c x=y", "--a=b") as PgConnectOptions::options's pairs.
fn startup_options(s: &str) -> Result<Vec<(String, String)>, Failure> {
    let mut out = Vec::new();
    let mut words = s.split_whitespace();
    while let Some(w) = words.next() {
        let kv = if w == "-c" {
            words.next().unwrap_or("")
        } else {
            w.strip_prefix("-c").or_else(|| w.strip_prefix("--")).unwrap_or_default()
        };
        match kv.split_once('=') {
            Some((k, v)) if !k.is_empty() => out.push((k.replace('-', "_"), v.to_string())),
            _ => {
                return Err(Failure::new(
                    "connect",
                    format!("options \"{}\": sqlx takes only -c name=value settings", s),
                ))
            }
        }
    }
    Ok(out)
}

async fn rollback(c: &mut PgConnection, f: Failure) -> Failure {
    match c.execute("ROLLBACK").await {
        Ok(_) => f,
        Err(e) => Failure::new(classify(&e).kind, format!("{}; then ROLLBACK: {}", f.msg, e)),
    }
}

/// One execution: its rows, converted and folded into h.
async fn execute(
    c: &mut PgConnection,
    st: &SStmt,
    args: Option<&[Option<String>]>,
    f: &mut Folder,
    h: u32,
    keep: &mut Option<Vec<Vec<PgRow>>>,
) -> Result<(u32, u32), Failure> {
    let rows = query(st, args)?.fetch_all(&mut *c).await.map_err(|e| classify(&e))?;
    f.start(st.ct.len());
    for row in &rows {
        fold_row(f, row, &st.ct)?;
    }
    if let Some(k) = keep.as_mut() {
        k.push(rows);
    }
    Ok((f.finish(h), f.nrows))
}

/// Batch i of plan p: its depth executions one after another (begin and commit around it with tx).
async fn batch(
    c: &mut PgConnection,
    st: &SStmt,
    tx: Option<(&SStmt, &SStmt)>,
    p: &mut Plan,
    i: usize,
    keep: &mut Option<Vec<Vec<PgRow>>>,
) -> Result<(u64, u32), Failure> {
    if let Some((b, _)) = tx {
        query(b, None)?.execute(&mut *c).await.map_err(|e| classify(&e))?;
    }
    let mut h = FNV_OFFSET;
    let mut total = 0u64;
    let mut r = Ok(());
    for k in 0..p.depth {
        let args = p.args.as_ref().map(|a| a[i * p.depth + k].as_slice());
        match execute(c, st, args, &mut p.fold, h, keep).await {
            Ok((nh, n)) => {
                h = nh;
                total += n as u64;
            }
            Err(f) => {
                r = Err(f);
                break;
            }
        }
    }
    let r = match (r, tx) {
        (Ok(()), Some((_, commit))) => {
            query(commit, None)?.execute(&mut *c).await.map(|_| ()).map_err(|e| classify(&e))
        }
        (r, _) => r,
    };
    match (r, tx) {
        (Ok(()), _) => Ok((total, h)),
        (Err(f), Some(_)) if f.kind != "io" => Err(rollback(c, f).await),
        (Err(f), _) => Err(f),
    }
}

/// A stream's result read (streamed: fetch, else fetch_all), each row folded.
async fn stream_rows(
    c: &mut PgConnection,
    st: &SStmt,
    s: &StreamSpec,
    f: &mut Folder,
    tm: &mut Timer,
) -> Result<(), Failure> {
    let q = query(st, s.args.as_deref())?;
    if s.streamed {
        let mut rows = q.fetch(&mut *c);
        while let Some(row) = rows.try_next().await.map_err(|e| classify(&e))? {
            fold_row(f, &row, &st.ct)?;
            tm.row();
        }
    } else {
        let rows = q.fetch_all(&mut *c).await.map_err(|e| classify(&e))?;
        for row in &rows {
            fold_row(f, row, &st.ct)?;
            tm.row();
        }
    }
    Ok(())
}

impl Client for SqlxClient {
    fn info(&self) -> HelloInfo {
        // At most 170 bytes: the bridge keeps that much of links.
        HelloInfo {
            client: "sqlx",
            client_version: version("sqlx").to_string(),
            links: format!(
                "sqlx {} (sqlx-postgres {}; statement cache; binary; one query at a time; pools: PgPool); rust_decimal {}; \
                 tokio {} current-thread; Rust {}",
                version("sqlx"),
                version("sqlx-postgres"),
                version("rust_decimal"),
                version("tokio"),
                version("rustc")
            ),
            pipeline: false,
            no_io: false,
            load: true,
            stream: true,
            wire: Some(Wire { result_format: "binary", describe: "once", sync: "per_query", statements: "named" }),
        }
    }

    fn connect(&mut self, rt: &Runtime, conn: &Value, pool: usize) -> Result<(), Failure> {
        // In the runtime's context: sqlx's pool spawns tasks (its maintenance,
        // a PoolConnection's return when dropped) outside block_on too.
        let _in_rt = rt.enter();
        if !conn.is_object() {
            return Err(Failure::protocol("sqlx: connect without conn"));
        }
        let o = SqlxClient::options(conn)?;
        let refused = |e: sqlx::Error| Failure::new("connect", format!("sqlx: {}", e));
        if pool == 0 {
            self.one = Some(rt.block_on(PgConnection::connect_with(&o)).map_err(refused)?);
            return Ok(());
        }
        let p = PgPoolOptions::new()
            .max_connections(pool as u32)
            .min_connections(pool as u32)
            .test_before_acquire(self.test_before_acquire)
            .after_connect({
                let opened = self.opened.clone();
                move |_, _| {
                    opened.fetch_add(1, Ordering::Relaxed);
                    Box::pin(async { Ok(()) })
                }
            })
            .connect_lazy_with(o);
        // All P connections at once (each held until all are open).
        let held = rt.block_on(futures_util::future::try_join_all((0..pool).map(|_| p.acquire()))).map_err(refused)?;
        drop(held);
        self.pool = Some(p);
        self.size = pool;
        Ok(())
    }

    fn prepare(&mut self, rt: &Runtime, id: i64, sql: &str) -> Result<StmtInfo, Failure> {
        let _in_rt = rt.enter();
        let sql: Arc<str> = sql.into();
        let prep = |c: &mut PgConnection| {
            rt.block_on(c.prepare(AssertSqlSafe(sql.clone()).into_sql_str())).map_err(|e| classify(&e))
        };
        let st = if let Some(c) = self.one.as_mut() {
            prep(c)?
        } else {
            // On every connection of the pool: all of them held at once.
            let p = self.pool.as_ref().ok_or_else(|| Failure::protocol("sqlx: not connected"))?;
            let mut held = rt
                .block_on(futures_util::future::try_join_all((0..self.size).map(|_| p.acquire())))
                .map_err(|e| classify(&e))?;
            let mut first = None;
            for c in held.iter_mut() {
                let st = prep(c)?;
                first.get_or_insert(st);
            }
            first.unwrap()
        };
        let params: Vec<PType> = match st.parameters() {
            Some(Either::Left(ts)) => ts.iter().map(ptype).collect(),
            Some(Either::Right(n)) => vec![PType::Text; n],
            None => Vec::new(),
        };
        let ct = st.columns().iter().map(|c| sqlx_type(c.type_info())).collect();
        let cols = st
            .columns()
            .iter()
            .map(|c| json!({"name": c.name(), "type": c.type_info().oid().map_or(0, |o| o.0)}))
            .collect();
        let info = StmtInfo { ncols: st.columns().len(), server_params: Some(params.len()) };
        self.stmts.insert(id, SStmt { sql, params, ct, cols });
        Ok(info)
    }

    fn run(&mut self, rt: &Runtime, p: &mut Plan, n: usize) -> BlockResult {
        let _in_rt = rt.enter();
        let mut held = None;
        let stmts = std::mem::take(&mut self.stmts);
        let res = (|| {
            let c = match self.conn(rt, &mut held) {
                Ok(c) => c,
                Err(f) => return BlockResult::failed(f),
            };
            let st = &stmts[&p.stmt];
            let tx = p.begin.map(|b| (&stmts[&b], &stmts[&p.commit.unwrap()]));
            let mut keep = if p.dump { Some(Vec::new()) } else { None };
            let mut res = rt.block_on(async { timed_block!(n, |i| batch(&mut *c, st, tx, p, i, &mut keep).await) });
            if let (Some(results), None) = (&keep, &res.fail) {
                let mut out = Vec::with_capacity(results.len());
                for rows in results {
                    let mut rs = Vec::with_capacity(rows.len());
                    for row in rows {
                        match (0..st.ct.len()).map(|j| dump_value(row, j, st.ct[j])).collect::<Result<Vec<_>, _>>() {
                            Ok(v) => rs.push(Value::Array(v)),
                            Err(f) => {
                                res.fail = Some(f);
                                return res;
                            }
                        }
                    }
                    out.push(json!({"columns": st.cols, "rows": rs}));
                }
                res.results = Some(Value::Array(out));
            }
            res
        })();
        self.stmts = stmts;
        drop(held); // back to the pool
        res
    }

    fn load(&mut self, rt: &Runtime, s: &LoadSpec) -> LoadResult {
        let _in_rt = rt.enter();
        let (pool, st) = match (&self.pool, self.stmts.get(&s.stmt)) {
            (Some(p), Some(st)) => (p, st),
            _ => return LoadResult::failed(Failure::protocol("load of a statement that was not prepared")),
        };
        // A connection the pool replaced (its ping on acquire found it
        // broken, and it opened another) fails the load as the client's own
        // error would: the load no longer runs on the connections it began with.
        let (opened, size) = (&*self.opened, self.size);
        let base = opened.load(Ordering::Relaxed);
        let replaced = move || -> Result<(), Failure> {
            match opened.load(Ordering::Relaxed) - base {
                n if n > 0 => Err(Failure::new(
                    "io",
                    format!(
                        "sqlx's PgPool replaced {} of its {} connections during the load (one broke: its ping \
                         on acquire failed)",
                        n, size
                    ),
                )),
                _ => Ok(()),
            }
        };
        let one = |i: usize, mut f: Folder| async move {
            let r = match query(st, s.args_for(i)).and_then(|q| replaced().map(|()| q)) {
                Ok(q) => match q.fetch_all(pool).await {
                    Ok(rows) => replaced().and_then(|()| {
                        f.start(st.ct.len());
                        rows.iter()
                            .try_for_each(|row| fold_row(&mut f, row, &st.ct))
                            .map(|()| (f.nrows as u64, f.finish(FNV_OFFSET)))
                    }),
                    Err(e) => Err(classify(&e)),
                },
                Err(e) => Err(e),
            };
            (f, r)
        };
        let mut res = rt.block_on(run_load(s, one));
        if let (None, Some(at)) = (&res.fail, s.bad_at) {
            if res.lat.len() as u64 == s.limit {
                // The query whose count of parameters is not the statement's: the server's answer.
                let r = match query(st, s.args_for(at)) {
                    Ok(q) => rt.block_on(q.fetch_all(pool)).map_err(|e| classify(&e)),
                    Err(f) => Err(f),
                };
                res.fail = Some(r.err().unwrap_or_else(|| {
                    Failure::protocol("sqlx: an execution with the wrong count of parameters succeeded")
                }));
            }
        }
        res
    }

    fn stream(&mut self, rt: &Runtime, s: &StreamSpec) -> StreamResult {
        let _in_rt = rt.enter();
        let mut held = None;
        let stmts = std::mem::take(&mut self.stmts);
        let res = match self.conn(rt, &mut held) {
            Err(f) => StreamResult::failed(f),
            Ok(c) => {
                let st = &stmts[&s.stmt];
                let mut f = Folder::new(st.ct.iter().map(|&t| stream_kind(t)).collect(), st.ct.len());
                f.start(st.ct.len());
                let idiom = if s.streamed {
                    format!(
                        "sqlx Query::fetch, its BoxStream of PgRow read row by row (futures-util {} \
                         TryStreamExt::try_next); no cursor: fetch ignored",
                        version("futures-util")
                    )
                } else {
                    "sqlx Query::fetch_all (the whole result as a Vec<PgRow>); no cursor: fetch ignored".to_string()
                };
                rt.block_on(async {
                    let mut tm = Timer::start();
                    let r = stream_rows(c, st, s, &mut f, &mut tm).await;
                    tm.end(&f, idiom, r)
                })
            }
        };
        self.stmts = stmts;
        drop(held); // back to the pool
        res
    }

    fn close(&mut self, rt: &Runtime) {
        let _in_rt = rt.enter();
        self.stmts.clear();
        if let Some(c) = self.one.take() {
            let _ = rt.block_on(c.close()); // Terminate
        }
        if let Some(p) = self.pool.take() {
            rt.block_on(p.close());
        }
    }
}
