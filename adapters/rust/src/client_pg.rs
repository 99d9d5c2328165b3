//! client_pg.rs -- the "tokio-postgres" client: tokio-postgres (crates.io,
//! Cargo.lock's release), its Connection futures spawned on the adapter's
//! current-thread runtime. One connection (no pool): a tokio_postgres::Client
//! from Config::connect(NoTls); a statement is prepared with
//! client.prepare(sql) (a named statement, "s0", "s1" ...: tokio-postgres
//! names them itself; the bridge's name is not used) and run with
//! client.query(&statement, params): Bind, Execute, Sync, binary results
//! (tokio-postgres asks for binary for every column; hello's result_format
//! cannot change that: its typed Row::get reads binary), each Row's values
//! read with row.try_get as the column's Rust type (values.rs). Depth > 1:
//! the depth client.query futures polled together (futures' try_join_all),
//! so that all depth requests are written before the first reply is read
//! (tokio-postgres's pipelining, as its docs describe it), then the results
//! folded in order. Option pipeline=no: the depth queries one after
//! another. begin and commit: client.query of those statements before and
//! after the batch (a failure in between rolls back). Parameters: text
//! format (a ToSql of our own that says Format::Text, as the bridge's values
//! are text); a count other than the statement's is refused before sending
//! (tokio-postgres asserts the count, it would panic), with 08P01 as the
//! server would.
//!
//! A pool (connect with "pool": P): deadpool-postgres's Pool of max_size P
//! (RecyclingMethod::Fast, its default: a returned connection is checked
//! with is_closed only), all P connections opened at connect; statements
//! prepared on each with its StatementCache (prepare_cached). A load's query
//! does what its users write: pool.get(), prepare_cached(sql) (a cache
//! hit), query, fold, drop the Object (back to the pool); a run holds one
//! Object for its block.
//!
//! A stream (stream.rs): buffered, client.query(&statement, params), the
//! Vec<Row> folded row by row; streamed, client.query_raw(&statement,
//! params), its RowStream pinned and read with futures-util's
//! TryStreamExt::try_next, each Row folded as it arrives and dropped. Both
//! are one Bind/Execute/Sync of the named statement, no cursor and no
//! transaction: the Connection task hands the rows over as the socket
//! delivers them, through a channel of one batch of messages per query
//! (it stops reading the socket while the batch is not taken), so a
//! streamed result is held a socket read at a time; `fetch` is ignored. A
//! failure mid-result leaves nothing to undo: the server ends the query
//! with its ErrorResponse and ReadyForQuery, and the Connection task drains
//! what a dropped RowStream would not read.
//!
//! On the wire (hello's "wire"): prepare sends Parse, Describe statement,
//! Sync; every execution Bind (result format 1 for all columns), Execute,
//! Sync: no Describe per execution, a Sync per query.

use std::collections::HashMap;
use std::error::Error as StdError;
use std::pin::pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use bytes::BytesMut;
use deadpool_postgres::{Manager, ManagerConfig, Object, Pool, RecyclingMethod, Runtime as DpRuntime};
use futures_util::future::try_join_all;
use futures_util::TryStreamExt;
use serde_json::{json, Value};
use tokio::runtime::Runtime;
use tokio_postgres::config::SslMode;
use tokio_postgres::types::{to_sql_checked, Format, IsNull, ToSql, Type};
use tokio_postgres::{Client as PgConn, Config, Error, NoTls, Row, Statement};

use crate::fold::{Folder, FNV_OFFSET};
use crate::frames::{set_secret, Failure};
use crate::load::{run_load, LoadResult, LoadSpec};
use crate::run::{BlockResult, Plan};
use crate::stream::{StreamResult, StreamSpec, Timer};
use crate::values::{coltypes, dump_value, fold_row, stream_kind, ColType};
use crate::{check_options, timed_block, version, yes_no, Client, HelloInfo, StmtInfo, Wire};

/// A parameter as the bridge gives it: text (None: NULL), sent in text format.
#[derive(Debug)]
struct TextParam<'a>(Option<&'a str>);

impl ToSql for TextParam<'_> {
    fn to_sql(&self, _: &Type, out: &mut BytesMut) -> Result<IsNull, Box<dyn StdError + Sync + Send>> {
        match self.0 {
            None => Ok(IsNull::Yes),
            Some(s) => {
                out.extend_from_slice(s.as_bytes());
                Ok(IsNull::No)
            }
        }
    }
    fn accepts(_: &Type) -> bool {
        true
    }
    fn encode_format(&self, _: &Type) -> Format {
        Format::Text
    }
    to_sql_checked!();
}

fn text_params(a: &[Option<String>]) -> Vec<TextParam<'_>> {
    a.iter().map(|v| TextParam(v.as_deref())).collect()
}

fn param_refs<'a>(ps: &'a [TextParam<'a>]) -> Vec<&'a (dyn ToSql + Sync)> {
    ps.iter().map(|p| p as &(dyn ToSql + Sync)).collect()
}

pub struct PgClient {
    pipeline: bool,
    /// The one connection (connect without a pool).
    one: Option<PgConn>,
    /// deadpool-postgres's pool (connect with "pool": P).
    pool: Option<Pool>,
    /// Connections the pool has opened (its post_create hook): one opened
    /// during a load means it replaced a broken one (RecyclingMethod::Fast
    /// drops a closed connection on get and opens another, silently).
    opened: Arc<AtomicUsize>,
    /// Per bridge statement number: its SQL (prepare_cached on a pool's
    /// connections) and its statement on the one connection.
    sqls: HashMap<i64, String>,
    stmts: HashMap<i64, Statement>,
}

/// The server ended the connection (admin_shutdown, crash_shutdown, cannot_connect_now).
fn gone(code: &str) -> bool {
    code == "57P01" || code == "57P02" || code == "57P03"
}

/// An error of c's: a broken or ended connection is kind io; the server's
/// refusal query with its SQLSTATE; anything else tokio-postgres refused protocol.
fn classify(c: &PgConn, e: &Error) -> Failure {
    let closed = c.is_closed() || e.is_closed();
    match e.as_db_error() {
        Some(db) if closed || gone(db.code().code()) => {
            Failure::new("io", format!("{}: {}", db.code().code(), db.message()))
        }
        Some(db) => Failure::query(db.code().code(), db.message()),
        None if closed => Failure::new("io", format!("tokio-postgres: {}", e)),
        None => Failure::protocol(format!("tokio-postgres: {}", e)),
    }
}

/// One result's rows, every value converted and folded into h: the new
/// fold and the rows.
fn consume(f: &mut Folder, rows: &[Row], ct: &[ColType], h: u32) -> Result<(u32, u32), Failure> {
    f.start(ct.len());
    for row in rows {
        fold_row(f, row, ct)?;
    }
    Ok((f.finish(h), f.nrows))
}

/// The refusal of an execution whose count of parameters is not the statement's.
fn count_refusal(got: usize, want: usize) -> Failure {
    Failure::query(
        "08P01",
        format!(
            "bind message supplies {} parameters, but prepared statement requires {} (refused by the adapter: \
         tokio-postgres asserts the count and would not send it)",
            got, want
        ),
    )
}

impl PgClient {
    pub fn new(opts: &HashMap<String, String>) -> Result<PgClient, Failure> {
        check_options("tokio-postgres", opts, &["pipeline"])?;
        let pipeline = match opts.get("pipeline") {
            Some(v) => yes_no("tokio-postgres", "pipeline", v)?,
            None => true,
        };
        Ok(PgClient {
            pipeline,
            one: None,
            pool: None,
            opened: Arc::new(AtomicUsize::new(0)),
            sqls: HashMap::new(),
            stmts: HashMap::new(),
        })
    }

    fn config(conn: &Value) -> Result<Config, Failure> {
        let s = |k: &str| conn.get(k).and_then(Value::as_str);
        let mut cfg = Config::new();
        cfg.host(s("host").unwrap_or("/var/run/postgresql"));
        if let Some(p) = s("port") {
            cfg.port(p.parse().map_err(|_| Failure::new("connect", format!("port \"{}\" is not a port number", p)))?);
        }
        if let Some(u) = s("user") {
            cfg.user(u);
        }
        if let Some(d) = s("dbname") {
            cfg.dbname(d);
        }
        if let Some(pw) = s("password") {
            set_secret(pw);
            cfg.password(pw);
        }
        if let Some(a) = s("application_name") {
            cfg.application_name(a);
        }
        if let Some(o) = s("options") {
            cfg.options(o);
        }
        match s("sslmode") {
            None | Some("disable") => {
                cfg.ssl_mode(SslMode::Disable);
            }
            Some(m) => {
                return Err(Failure::new(
                    "connect",
                    format!(
                        "sslmode {}: the Rust adapter's tokio-postgres connects without TLS (NoTls: no TLS \
                     connector is built in)",
                        m
                    ),
                ))
            }
        }
        Ok(cfg)
    }

    /// The load's failure of a pool connection.
    fn load_failure(c: &PgConn, e: &Error) -> Failure {
        let f = classify(c, e);
        if f.kind == "io" {
            return Failure::new("io", format!("a connection of the pool: {}", f.msg));
        }
        f
    }

    /// The failure of the pool's get.
    fn pool_failure(e: deadpool_postgres::PoolError) -> Failure {
        match e {
            deadpool_postgres::PoolError::Backend(e) if e.as_db_error().is_some() => {
                let db = e.as_db_error().unwrap();
                Failure::new("io", format!("deadpool-postgres: {}: {}", db.code().code(), db.message()))
            }
            e => Failure::new("io", format!("deadpool-postgres: {}", e)),
        }
    }
}

async fn rollback(c: &PgConn, f: Failure) -> Failure {
    match c.batch_execute("ROLLBACK").await {
        Ok(()) => f,
        Err(e) => {
            let kind = if c.is_closed() { "io" } else { "protocol" };
            Failure::new(kind, format!("{}; then ROLLBACK: {}", f.msg, e))
        }
    }
}

/// What every batch of a run uses: the connection, the statement, its
/// columns' Rust types, and whether depth > 1 is pipelined.
struct Exec<'a> {
    c: &'a PgConn,
    st: &'a Statement,
    ct: &'a [ColType],
    pipeline: bool,
}

/// Batch i of plan p (begin and commit around it with tx); keep: a dump's rows.
async fn batch(
    x: &Exec<'_>,
    tx: Option<(&Statement, &Statement)>,
    p: &mut Plan,
    i: usize,
    keep: &mut Option<Vec<Vec<Row>>>,
) -> Result<(u64, u32), Failure> {
    let c = x.c;
    if let Some((b, e)) = p.bad {
        if b == i {
            let got = p.args.as_ref().map_or(0, |a| a[e].len());
            return Err(count_refusal(got, x.st.params().len()));
        }
    }
    if let Some((begin, _)) = tx {
        c.query(begin, &[]).await.map_err(|e| classify(c, &e))?;
    }
    let r = executions(x, p, i, keep).await;
    let r = match (r, tx) {
        (Ok(x), Some((_, commit))) => match c.query(commit, &[]).await {
            Ok(_) => Ok(x),
            Err(e) => Err(classify(c, &e)),
        },
        (r, _) => r,
    };
    match (r, tx) {
        (Err(f), Some(_)) if f.kind != "io" => Err(rollback(c, f).await),
        (r, _) => r,
    }
}

/// The depth executions of batch i, each result converted and folded.
async fn executions(
    x: &Exec<'_>,
    p: &mut Plan,
    i: usize,
    keep: &mut Option<Vec<Vec<Row>>>,
) -> Result<(u64, u32), Failure> {
    let (c, st, ct, pipeline) = (x.c, x.st, x.ct, x.pipeline);
    let mut h = FNV_OFFSET;
    let mut total = 0u64;
    let (depth, args, folder) = (p.depth, &p.args, &mut p.fold);
    let owned: Vec<Vec<TextParam>> = match args {
        None => Vec::new(),
        Some(a) => (0..depth).map(|k| text_params(&a[i * depth + k])).collect(),
    };
    let refs: Vec<Vec<&(dyn ToSql + Sync)>> = owned.iter().map(|ps| param_refs(ps)).collect();
    let params = |k: usize| -> &[&(dyn ToSql + Sync)] { refs.get(k).map_or(&[], |v| v.as_slice()) };
    let mut fold = |rows: Vec<Row>, h: &mut u32, total: &mut u64| -> Result<(), Failure> {
        let (nh, n) = consume(folder, &rows, ct, *h)?;
        *h = nh;
        *total += n as u64;
        if let Some(k) = keep.as_mut() {
            k.push(rows);
        }
        Ok(())
    };
    if depth == 1 || !pipeline {
        for k in 0..depth {
            let rows = c.query(st, params(k)).await.map_err(|e| classify(c, &e))?;
            fold(rows, &mut h, &mut total)?;
        }
    } else {
        let all = try_join_all((0..depth).map(|k| c.query(st, params(k)))).await.map_err(|e| classify(c, &e))?;
        for rows in all {
            fold(rows, &mut h, &mut total)?;
        }
    }
    Ok((total, h))
}

/// A dump's "results": each execution's columns and rows as delivered.
fn dump(st: &Statement, ct: &[ColType], results: &[Vec<Row>]) -> Result<Value, Failure> {
    let cols: Vec<Value> = st.columns().iter().map(|c| json!({"name": c.name(), "type": c.type_().oid()})).collect();
    let mut out = Vec::with_capacity(results.len());
    for rows in results {
        let mut rs = Vec::with_capacity(rows.len());
        for row in rows {
            let vals = (0..ct.len()).map(|j| dump_value(row, j, ct[j])).collect::<Result<Vec<_>, _>>()?;
            rs.push(Value::Array(vals));
        }
        out.push(json!({"columns": cols, "rows": rs}));
    }
    Ok(Value::Array(out))
}

/// A stream's buffered read: client.query's Vec<Row>, then each row folded.
async fn buffered(
    c: &PgConn,
    st: &Statement,
    params: &[&(dyn ToSql + Sync)],
    ct: &[ColType],
    f: &mut Folder,
    tm: &mut Timer,
) -> Result<(), Failure> {
    let rows = c.query(st, params).await.map_err(|e| classify(c, &e))?;
    for row in &rows {
        fold_row(f, row, ct)?;
        tm.row();
    }
    Ok(())
}

/// A stream's streamed read: client.query_raw's RowStream, each row folded
/// as it arrives, then dropped.
async fn streamed(
    c: &PgConn,
    st: &Statement,
    params: &[&(dyn ToSql + Sync)],
    ct: &[ColType],
    f: &mut Folder,
    tm: &mut Timer,
) -> Result<(), Failure> {
    let rows = c.query_raw(st, params.iter().copied()).await.map_err(|e| classify(c, &e))?;
    let mut rows = pin!(rows);
    while let Some(row) = rows.try_next().await.map_err(|e| classify(c, &e))? {
        fold_row(f, &row, ct)?;
        tm.row();
    }
    Ok(())
}

/// A connection of a run: the one connection, or an Object held from the pool.
enum Held<'a> {
    One(&'a PgConn),
    Pooled(Box<Object>),
}

impl Held<'_> {
    fn client(&self) -> &PgConn {
        match self {
            Held::One(c) => c,
            Held::Pooled(o) => o,
        }
    }
}

impl PgClient {
    /// The connection a run uses, and statement id on it.
    fn held(&self, rt: &Runtime) -> Result<Held<'_>, Failure> {
        match (&self.one, &self.pool) {
            (Some(c), _) => Ok(Held::One(c)),
            (None, Some(p)) => rt.block_on(p.get()).map(|o| Held::Pooled(Box::new(o))).map_err(PgClient::pool_failure),
            (None, None) => Err(Failure::protocol("tokio-postgres: not connected")),
        }
    }

    fn statement(&self, rt: &Runtime, h: &Held<'_>, id: i64) -> Result<Statement, Failure> {
        match h {
            Held::One(_) => Ok(self.stmts[&id].clone()),
            Held::Pooled(o) => rt.block_on(o.prepare_cached(&self.sqls[&id])).map_err(|e| classify(o, &e)),
        }
    }
}

impl Client for PgClient {
    fn info(&self) -> HelloInfo {
        // At most 170 bytes: the bridge keeps that much of links.
        let how = if self.pipeline { "pipelined" } else { "one query at a time" };
        HelloInfo {
            client: "tokio-postgres",
            client_version: version("tokio-postgres").to_string(),
            links: format!(
                "tokio-postgres {} (postgres-protocol {}; binary; {}); deadpool-postgres {}; rust_decimal {}; \
                 tokio {} current-thread; Rust {}",
                version("tokio-postgres"),
                version("postgres-protocol"),
                how,
                version("deadpool-postgres"),
                version("rust_decimal"),
                version("tokio"),
                version("rustc")
            ),
            pipeline: self.pipeline,
            no_io: false,
            load: true,
            stream: true,
            wire: Some(Wire { result_format: "binary", describe: "once", sync: "per_query", statements: "named" }),
        }
    }

    fn connect(&mut self, rt: &Runtime, conn: &Value, pool: usize) -> Result<(), Failure> {
        if !conn.is_object() {
            return Err(Failure::protocol("tokio-postgres: connect without conn"));
        }
        let cfg = PgClient::config(conn)?;
        if pool == 0 {
            let (client, connection) =
                rt.block_on(cfg.connect(NoTls)).map_err(|e| Failure::new("connect", e.to_string()))?;
            rt.spawn(async move {
                let _ = connection.await; // ends when the Client is dropped or the server closes
            });
            self.one = Some(client);
            return Ok(());
        }
        let mgr = Manager::from_config(cfg, NoTls, ManagerConfig { recycling_method: RecyclingMethod::Fast });
        let opened = self.opened.clone();
        let p = Pool::builder(mgr)
            .max_size(pool)
            .post_create(deadpool_postgres::Hook::sync_fn(move |_, _| {
                opened.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }))
            .runtime(DpRuntime::Tokio1)
            .build()
            .map_err(|e| Failure::new("connect", format!("deadpool-postgres: {}", e)))?;
        // All P connections at once (each Object held until all are open).
        let objs = rt.block_on(try_join_all((0..pool).map(|_| p.get()))).map_err(|e| match e {
            deadpool_postgres::PoolError::Backend(e) => Failure::new("connect", e.to_string()),
            e => Failure::new("connect", format!("deadpool-postgres: {}", e)),
        })?;
        drop(objs);
        self.pool = Some(p);
        Ok(())
    }

    fn prepare(&mut self, rt: &Runtime, id: i64, sql: &str) -> Result<StmtInfo, Failure> {
        let st = if let Some(c) = &self.one {
            let st = rt.block_on(c.prepare(sql)).map_err(|e| classify(c, &e))?;
            self.stmts.insert(id, st.clone());
            st
        } else {
            // On every connection of the pool: all of them held at once.
            let p = self.pool.as_ref().ok_or_else(|| Failure::protocol("tokio-postgres: not connected"))?;
            let n = p.status().max_size;
            let objs = rt.block_on(try_join_all((0..n).map(|_| p.get()))).map_err(PgClient::pool_failure)?;
            let mut first = None;
            for o in &objs {
                let st = rt.block_on(o.prepare_cached(sql)).map_err(|e| classify(o, &e))?;
                first.get_or_insert(st);
            }
            first.unwrap()
        };
        self.sqls.insert(id, sql.to_string());
        Ok(StmtInfo { ncols: st.columns().len(), server_params: Some(st.params().len()) })
    }

    fn run(&mut self, rt: &Runtime, p: &mut Plan, n: usize) -> BlockResult {
        let h = match self.held(rt) {
            Ok(h) => h,
            Err(f) => return BlockResult::failed(f),
        };
        let sts = (|| -> Result<_, Failure> {
            let st = self.statement(rt, &h, p.stmt)?;
            let tx = match p.begin {
                Some(b) => Some((self.statement(rt, &h, b)?, self.statement(rt, &h, p.commit.unwrap())?)),
                None => None,
            };
            Ok((st, tx))
        })();
        let (st, tx) = match sts {
            Ok(x) => x,
            Err(f) => return BlockResult::failed(f),
        };
        let tx = tx.as_ref().map(|(b, c)| (b, c));
        let ct = coltypes(st.columns());
        let mut keep = if p.dump { Some(Vec::new()) } else { None };
        let x = Exec { c: h.client(), st: &st, ct: &ct, pipeline: self.pipeline };
        let mut res = rt.block_on(async { timed_block!(n, |i| batch(&x, tx, p, i, &mut keep).await) });
        if let (Some(rows), None) = (&keep, &res.fail) {
            match dump(&st, &ct, rows) {
                Ok(v) => res.results = Some(v),
                Err(f) => res.fail = Some(f),
            }
        }
        res
    }

    fn load(&mut self, rt: &Runtime, s: &LoadSpec) -> LoadResult {
        let (pool, sql) = match (&self.pool, self.sqls.get(&s.stmt)) {
            (Some(p), Some(q)) => (p, q.as_str()),
            _ => return LoadResult::failed(Failure::protocol("load of a statement that was not prepared")),
        };
        let want = match rt.block_on(pool.get()).map_err(PgClient::pool_failure) {
            Ok(o) => match rt.block_on(o.prepare_cached(sql)) {
                Ok(st) => st,
                Err(e) => return LoadResult::failed(classify(&o, &e)),
            },
            Err(f) => return LoadResult::failed(f),
        };
        let ct = coltypes(want.columns());
        let ct = &ct;
        // A connection the pool replaced fails the load as the client's own
        // error would: the load no longer runs on the connections it began with.
        let (opened, size) = (&*self.opened, pool.status().max_size);
        let base = opened.load(Ordering::Relaxed);
        let replaced = move || -> Result<(), Failure> {
            match opened.load(Ordering::Relaxed) - base {
                0 => Ok(()),
                n => Err(Failure::new(
                    "io",
                    format!(
                        "deadpool-postgres replaced {} of its {} connections during the load (one was \
                         closed: its server process ended)",
                        n, size
                    ),
                )),
            }
        };
        let query = |i: usize, mut f: Folder| async move {
            let o = match pool.get().await {
                Ok(o) => o,
                Err(e) => return (f, Err(PgClient::pool_failure(e))),
            };
            if let Err(e) = replaced() {
                return (f, Err(e));
            }
            let owned = s.args_for(i).map(text_params).unwrap_or_default();
            let refs = param_refs(&owned);
            let r = match o.prepare_cached(sql).await {
                Ok(st) => match o.query(&st, &refs).await {
                    Ok(rows) => consume(&mut f, &rows, ct, FNV_OFFSET).map(|(h, n)| (n as u64, h)),
                    Err(e) => Err(PgClient::load_failure(&o, &e)),
                },
                Err(e) => Err(PgClient::load_failure(&o, &e)),
            };
            drop(o); // back to the pool
            (f, r)
        };
        let mut res = rt.block_on(run_load(s, query));
        if let (None, Some(at)) = (&res.fail, s.bad_at) {
            if res.lat.len() as u64 == s.limit {
                let got = s.args_for(at).map_or(0, |a| a.len());
                res.fail = Some(count_refusal(got, want.params().len()));
            }
        }
        res
    }

    fn stream(&mut self, rt: &Runtime, s: &StreamSpec) -> StreamResult {
        let h = match self.held(rt) {
            Ok(h) => h,
            Err(f) => return StreamResult::failed(f),
        };
        let st = match self.statement(rt, &h, s.stmt) {
            Ok(st) => st,
            Err(f) => return StreamResult::failed(f),
        };
        let (got, want) = (s.args.as_ref().map_or(0, Vec::len), st.params().len());
        if got != want {
            return StreamResult::failed(count_refusal(got, want));
        }
        let owned = s.args.as_deref().map(text_params).unwrap_or_default();
        let params = param_refs(&owned);
        let ct = coltypes(st.columns());
        let mut f = Folder::new(ct.iter().map(|&t| stream_kind(t)).collect(), ct.len());
        f.start(ct.len());
        let idiom = if s.streamed {
            format!(
                "tokio-postgres Client::query_raw, its RowStream read row by row (futures-util {} \
                 TryStreamExt::try_next); no cursor: fetch ignored",
                version("futures-util")
            )
        } else {
            "tokio-postgres Client::query (the whole result as a Vec<Row>); no cursor: fetch ignored".to_string()
        };
        let c = h.client();
        rt.block_on(async {
            let mut tm = Timer::start();
            let r = if s.streamed {
                streamed(c, &st, &params, &ct, &mut f, &mut tm).await
            } else {
                buffered(c, &st, &params, &ct, &mut f, &mut tm).await
            };
            tm.end(&f, idiom, r)
        })
    }

    fn close(&mut self, rt: &Runtime) {
        self.stmts.clear();
        self.one = None; // its Connection task sends Terminate and ends
        if let Some(p) = self.pool.take() {
            p.close(); // the idle connections dropped: each Connection task ends
        }
        rt.block_on(tokio::task::yield_now());
    }
}
