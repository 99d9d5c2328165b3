//! pgcb-standalone-rust -- one Rust client, tokio-postgres or sqlx, timed in
//! the tightest plain loop Rust allows, outside pgclientbench: no benchmark
//! library, no bridge. scripts/compare-standalone.sh runs it before and
//! after the runner measures the same client through the bridge, on the same
//! server, query and pinning. It shares only the query text with the adapter
//! (its own binary: nothing of adapters/rust/src is compiled in, only
//! ../versions.rs, the versions build.sh compiles in): each client is set
//! up here with its public API the way the adapter sets it up for its
//! default options, on a current-thread tokio runtime (as the adapter's).
//!
//! tokio-postgres, as adapters/rust/src/client_pg.rs (pipeline=yes;
//! docs/clients.md): one Client from Config::connect(NoTls), its Connection
//! future spawned on the runtime; the statement prepared with
//! client.prepare(sql); DEPTH 1, client.query(&statement, &[]) per batch;
//! DEPTH > 1, the DEPTH client.query futures polled together (try_join_all:
//! pipelined), each result then consumed in order.
//!
//! sqlx, as adapters/rust/src/client_sqlx.rs (its single connection: no
//! pool, as the bridge's connect without "pool"): one PgConnection from
//! PgConnection::connect_with(PgConnectOptions::new_without_pgpass(), the
//! settings below set on it, sslmode disable); the statement put in sqlx's
//! statement cache with Executor::prepare; each execution
//! sqlx::query(sql).fetch_all(&mut conn) (the cached named statement: Bind,
//! Execute, Close, Sync), the DEPTH executions of a batch one after another
//! (sqlx has no pipelining), each result consumed before the next.
//!
//!   pgcb-standalone-rust tokio-postgres|sqlx DEPTH TIME_MS SQL
//!
//! Connection: PGHOST (a socket directory or a host; default
//! /var/run/postgresql), PGPORT (default 5432), PGUSER, PGDATABASE,
//! PGPASSWORD if set. One priming batch, then an untimed warm-up of 1 s and
//! at least 200 batches, then batches for TIME_MS: one Instant::now()
//! (CLOCK_MONOTONIC) per batch, the end of one is the start of the next,
//! each sample stored in a preallocated Vec, every row consumed with the
//! public benchmark's consume() (every value read with row.try_get as its
//! Rust type, the id too -- tokio-postgres: i32, &str, Option<&str>, bool;
//! sqlx: each as an Option of it, as the adapter's values_sqlx.rs reads
//! every column, a NULL where none belongs a failure -- the sum checked:
//! 1340 a row of benchmark_rows). The process's CPU time (getrusage
//! RUSAGE_SELF) is read just before the first batch and just after the
//! last. Prints one JSON line: client, depth, batches, median_ns, mean_ns,
//! p90_ns, cpu_ns_per_query, sink, links. Bad arguments: a usage line,
//! exit 2; a failure: one line, exit 1.

use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use futures_util::future::try_join_all;
use serde_json::json;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgRow, PgSslMode};
use sqlx::{AssertSqlSafe, Column, Connection, Executor, SqlSafeStr, Statement as _};
use tokio_postgres::{Client, Config, NoTls, Row, Statement};

#[path = "../versions.rs"]
mod versions;
use versions::version as v;

const PROG: &str = "pgcb-standalone-rust";
const USAGE: &str = "usage: pgcb-standalone-rust tokio-postgres|sqlx DEPTH TIME_MS SQL";
const CAPACITY: usize = 1 << 22; // samples at most, as the Node.js script

/// The client measured, for fail's messages.
static CLIENT: OnceLock<&'static str> = OnceLock::new();

fn fail(msg: impl std::fmt::Display) -> ! {
    let m = msg.to_string().split_whitespace().collect::<Vec<_>>().join(" ");
    eprintln!("{}: {}: {}", PROG, CLIENT.get().copied().unwrap_or("?"), m);
    std::process::exit(1);
}

fn cpu_ns() -> i64 {
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    if unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut ru) } != 0 {
        fail("getrusage failed");
    }
    let tv = |t: libc::timeval| t.tv_sec * 1_000_000_000 + t.tv_usec * 1000;
    tv(ru.ru_utime) + tv(ru.ru_stime)
}

/// PG variable k, unless unset or empty.
fn env(k: &str) -> Option<String> {
    std::env::var(k).ok().filter(|s| !s.is_empty())
}

fn host() -> String {
    env("PGHOST").unwrap_or_else(|| "/var/run/postgresql".into())
}

fn port() -> u16 {
    env("PGPORT").map_or(5432, |p| p.parse().unwrap_or_else(|_| fail(format!("PGPORT={}", p))))
}

/// The priming batch, the warm-up, then the timed batches of BATCH (an
/// expression, which may .await) for TIME_MS: (the samples, the CPU time
/// over them, ns).
macro_rules! measure {
    ($time_ms:expr, $batch:expr) => {{
        $batch; // priming
        let warm_until = Instant::now() + Duration::from_secs(1);
        let mut i = 0;
        while i < 200 || Instant::now() < warm_until {
            $batch;
            i += 1;
        }

        let mut samples: Vec<i64> = Vec::with_capacity(CAPACITY);
        let cpu0 = cpu_ns();
        let stop = Instant::now() + Duration::from_nanos(($time_ms * 1e6).round() as u64);
        let mut t0 = Instant::now();
        loop {
            $batch;
            let t1 = Instant::now();
            samples.push(t1.duration_since(t0).as_nanos() as i64);
            t0 = t1;
            if t1 >= stop || samples.len() == CAPACITY {
                break;
            }
        }
        let cpu1 = cpu_ns();
        (samples, cpu1 - cpu0)
    }};
}

/// The JSON line of a measurement.
fn report(client: &str, depth: usize, mut samples: Vec<i64>, cpu: i64, sink: i64, links: String) {
    let n = samples.len();
    samples.sort_unstable();
    let median = if n % 2 == 1 { samples[n / 2] as f64 } else { (samples[n / 2 - 1] + samples[n / 2]) as f64 / 2.0 };
    let mean = samples.iter().map(|&x| x as f64).sum::<f64>() / n as f64;
    let p90 = samples[((0.9 * n as f64).floor() as usize).min(n - 1)];
    let round = |x: f64| (x + 0.5).floor() as i64; // JavaScript's Math.round
    println!(
        "{}",
        json!({
            "client": client, "depth": depth, "batches": n, "median_ns": round(median),
            "mean_ns": round(mean), "p90_ns": p90, "cpu_ns_per_query": round(cpu as f64 / (n * depth) as f64),
            "sink": sink > 0, "links": links,
        })
    );
}

/// Positions of benchmark_rows' columns, from their names.
struct Cols {
    id: usize,
    int: usize,
    s: usize,
    null: usize,
    b: usize,
}

fn columns(names: &[&str]) -> Cols {
    let pos = |name: &str| {
        names.iter().position(|&c| c == name).unwrap_or_else(|| {
            fail("the query's columns are not benchmark_rows' (id, int_value, string_value, null_value, bool_value)")
        })
    };
    Cols { id: pos("id"), int: pos("int_value"), s: pos("string_value"), null: pos("null_value"), b: pos("bool_value") }
}

// ---- tokio-postgres

async fn connect() -> Client {
    let mut cfg = Config::new();
    let host = host();
    cfg.host(host.as_str()); // &str: Config::host's argument in every 0.7 release
    cfg.port(port());
    if let Some(u) = env("PGUSER") {
        cfg.user(&u);
    }
    if let Some(d) = env("PGDATABASE") {
        cfg.dbname(&d);
    }
    if let Some(p) = env("PGPASSWORD") {
        cfg.password(p);
    }
    let (client, conn) = cfg.connect(NoTls).await.unwrap_or_else(|e| fail(e));
    tokio::spawn(async move {
        let _ = conn.await;
    });
    client
}

/// The public benchmark's consume(): every value of every row, the sum
/// checked; the id too, which the public benchmark's consume() skips: its
/// Node.js clients decode every column when the result arrives, whereas
/// tokio-postgres decodes a value when row.get reads it (as pgjdbc's getters
/// do: the Java loop reads the id for the same reason), and the adapter's
/// fold reads every column.
fn consume(rows: &[Row], c: &Cols, sink: &mut i64) {
    let mut sum = 0i64;
    let mut ids = 0i64;
    for row in rows {
        let id: i32 = row.try_get(c.id).unwrap_or_else(|e| fail(e));
        ids += id as i64;
        let iv: i32 = row.try_get(c.int).unwrap_or_else(|e| fail(e));
        let sv: &str = row.try_get(c.s).unwrap_or_else(|e| fail(e));
        let nv: Option<&str> = row.try_get(c.null).unwrap_or_else(|e| fail(e));
        let bv: bool = row.try_get(c.b).unwrap_or_else(|e| fail(e));
        sum += iv as i64 + sv.len() as i64 + nv.map_or(0, |s| s.len() as i64) + bv as i64;
    }
    if sum != 1340 * rows.len() as i64 {
        fail(format!("unexpected sum {} for {} rows", sum, rows.len()));
    }
    *sink += sum + ids;
}

async fn batch(client: &Client, st: &Statement, depth: usize, c: &Cols, sink: &mut i64) {
    if depth == 1 {
        let rows = client.query(st, &[]).await.unwrap_or_else(|e| fail(e));
        consume(&rows, c, sink);
    } else {
        let all = try_join_all((0..depth).map(|_| client.query(st, &[]))).await.unwrap_or_else(|e| fail(e));
        for rows in &all {
            consume(rows, c, sink);
        }
    }
}

async fn run_pg(depth: usize, time_ms: f64, sql: &str) {
    let client = connect().await;
    let st = client.prepare(sql).await.unwrap_or_else(|e| fail(e));
    let c = columns(&st.columns().iter().map(|c| c.name()).collect::<Vec<_>>());
    let mut sink = 0i64;
    let (samples, cpu) = measure!(time_ms, batch(&client, &st, depth, &c, &mut sink).await);
    drop(client);
    // As the adapter's hello says it (client_pg.rs, pipeline=yes).
    let links = format!(
        "tokio-postgres {} (postgres-protocol {}, postgres-types {}; binary results; pipelined: concurrent \
         query futures); tokio {} current-thread; Rust {}",
        v("tokio-postgres"),
        v("postgres-protocol"),
        v("postgres-types"),
        v("tokio"),
        v("rustc")
    );
    report("tokio-postgres", depth, samples, cpu, sink, links);
}

// ---- sqlx

/// The adapter's SqlxClient::options with the connect request the bridge
/// sends for these settings: host, port, user and dbname set (PGUSER and
/// PGDATABASE when set, else sqlx's defaults, those of libpq: the OS user,
/// the database of the user's name), the password if any, sslmode disable.
async fn sqlx_connect() -> PgConnection {
    let mut o = PgConnectOptions::new_without_pgpass().host(&host()).port(port());
    if let Some(u) = env("PGUSER") {
        o = o.username(&u);
    }
    if let Some(d) = env("PGDATABASE") {
        o = o.database(&d);
    }
    if let Some(p) = env("PGPASSWORD") {
        o = o.password(&p);
    }
    PgConnection::connect_with(&o.ssl_mode(PgSslMode::Disable)).await.unwrap_or_else(|e| fail(e))
}

/// consume() for sqlx's rows: every value read with row.try_get as an
/// Option of its column's Rust type (values_sqlx.rs's fold_row), the id
/// too: sqlx, as tokio-postgres, decodes a value when try_get reads it.
fn sqlx_consume(rows: &[PgRow], c: &Cols, sink: &mut i64) {
    use sqlx::Row as _;
    fn some<T>(v: Option<T>, col: &str) -> T {
        v.unwrap_or_else(|| fail(format!("{} is NULL", col)))
    }
    let mut sum = 0i64;
    let mut ids = 0i64;
    for row in rows {
        let id = row.try_get::<Option<i32>, usize>(c.id).unwrap_or_else(|e| fail(e));
        ids += some(id, "id") as i64;
        let iv = row.try_get::<Option<i32>, usize>(c.int).unwrap_or_else(|e| fail(e));
        let sv = row.try_get::<Option<&str>, usize>(c.s).unwrap_or_else(|e| fail(e));
        let nv = row.try_get::<Option<&str>, usize>(c.null).unwrap_or_else(|e| fail(e));
        let bv = row.try_get::<Option<bool>, usize>(c.b).unwrap_or_else(|e| fail(e));
        sum += some(iv, "int_value") as i64
            + some(sv, "string_value").len() as i64
            + nv.map_or(0, |s| s.len() as i64)
            + some(bv, "bool_value") as i64;
    }
    if sum != 1340 * rows.len() as i64 {
        fail(format!("unexpected sum {} for {} rows", sum, rows.len()));
    }
    *sink += sum + ids;
}

/// A batch: DEPTH executions one after another, each result consumed before the next.
async fn sqlx_batch(conn: &mut PgConnection, sql: &Arc<str>, depth: usize, c: &Cols, sink: &mut i64) {
    for _ in 0..depth {
        let rows = sqlx::query(AssertSqlSafe(sql.clone())).fetch_all(&mut *conn).await.unwrap_or_else(|e| fail(e));
        sqlx_consume(&rows, c, sink);
    }
}

async fn run_sqlx(depth: usize, time_ms: f64, sql: &str) {
    let mut conn = sqlx_connect().await;
    let sql: Arc<str> = sql.into();
    // Executor::prepare: Parse, Describe statement, Sync; the statement cached.
    let st = conn.prepare(AssertSqlSafe(sql.clone()).into_sql_str()).await.unwrap_or_else(|e| fail(e));
    let c = columns(&st.columns().iter().map(|c| c.name()).collect::<Vec<_>>());
    let mut sink = 0i64;
    let (samples, cpu) = measure!(time_ms, sqlx_batch(&mut conn, &sql, depth, &c, &mut sink).await);
    // Terminate, as the adapter's close.
    let _ = conn.close().await;
    // As the adapter's hello says it (client_sqlx.rs).
    let links = format!(
        "sqlx {} (sqlx-postgres {}; statement cache; binary; one query at a time; pools: PgPool); rust_decimal {}; \
         tokio {} current-thread; Rust {}",
        v("sqlx"),
        v("sqlx-postgres"),
        v("rust_decimal"),
        v("tokio"),
        v("rustc")
    );
    report("sqlx", depth, samples, cpu, sink, links);
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = || -> ! {
        eprintln!("{}", USAGE);
        std::process::exit(2)
    };
    if args.len() != 4 || args[3].is_empty() {
        usage();
    }
    let client = match args[0].as_str() {
        "tokio-postgres" => "tokio-postgres",
        "sqlx" => "sqlx",
        _ => usage(),
    };
    let depth: usize = args[1].parse().unwrap_or_else(|_| usage());
    let time_ms: f64 = args[2].parse().unwrap_or_else(|_| usage());
    if depth < 1 || time_ms.is_nan() || time_ms <= 0.0 || time_ms.is_infinite() {
        usage();
    }
    let _ = CLIENT.set(client);
    let sql = args[3].clone();
    let rt =
        tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build().unwrap_or_else(|e| fail(e));
    rt.block_on(async move {
        if client == "sqlx" {
            run_sqlx(depth, time_ms, &sql).await
        } else {
            run_pg(depth, time_ms, &sql).await
        }
    });
}
