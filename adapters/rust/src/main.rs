//! pgcb-adapter-rust -- the Rust adapter of pgclientbench's bridge driver
//! (docs/bridge-protocol.md, protocol 1). Clients: "tokio-postgres" (one
//! tokio_postgres::Client on a current-thread tokio runtime, its Connection
//! future spawned on it; deadpool-postgres for a pool), "sqlx" (a
//! PgConnection, PgPool for a pool) and "null" (no I/O: the benchmark
//! table's rows built in Rust). Build: adapters/rust/build.sh (README.md
//! beside it).
//!
//! Files: frames.rs (frames, failures, replies), fold.rs (the fold),
//! values.rs (each value converted as tokio-postgres delivers it; dumps),
//! values_sqlx.rs (the same for sqlx's rows),
//! run.rs (a block of batches, timed; the plan), load.rs (a timed load),
//! stream.rs (one whole result, buffered or streamed, timed),
//! client_pg.rs, client_sqlx.rs and client_null.rs (the clients), main.rs
//! (the requests);
//! ../versions.rs (the versions compiled in, shared with the standalone program).
//!
//! One thread runs everything: the requests, the runtime (block_on per
//! request) and the client's Connection task. The bridge pins it, and any
//! thread started later inherits the pin (tokio starts a blocking-pool
//! thread only to resolve a host name, never for a socket path or an IP).

mod client_null;
mod client_pg;
mod client_sqlx;
mod fold;
mod frames;
mod load;
mod run;
mod stream;
mod values;
mod values_sqlx;
#[path = "../versions.rs"]
mod versions;

use std::collections::HashMap;

use serde_json::Value;
use tokio::runtime::Runtime;

use frames::{int_field, str_field, Channel, Failure, Reply};
use load::{LoadResult, LoadSpec};
use run::{BlockResult, Plan};
use stream::{StreamResult, StreamSpec};
pub use versions::version;

const PROTOCOL: i64 = 1;
pub const ADAPTER_VERSION: &str = "1.0.0";

/// "Rust 1.95.0 (rustc, release build)".
pub fn runtime_text() -> String {
    format!("Rust {} (rustc, release build)", version("rustc"))
}

/// hello's "wire" (docs/bridge-protocol.md).
pub struct Wire {
    pub result_format: &'static str,
    pub describe: &'static str,
    pub sync: &'static str,
    pub statements: &'static str,
}

/// The client-dependent part of the hello reply.
pub struct HelloInfo {
    pub client: &'static str,
    pub client_version: String,
    pub links: String,
    pub pipeline: bool,
    pub no_io: bool,
    pub load: bool,
    /// The client answers stream requests (hello's "stream").
    pub stream: bool,
    pub wire: Option<Wire>,
}

/// A prepared statement as the adapter knows it, by the bridge's number.
pub struct StmtInfo {
    pub ncols: usize,
    /// The parameters the server says it takes (None: any count, null client).
    pub server_params: Option<usize>,
}

/// One client library behind the protocol.
pub trait Client {
    fn info(&self) -> HelloInfo;
    /// One connection (pool 0) or the client's pool of `pool`, all open on return.
    fn connect(&mut self, rt: &Runtime, conn: &Value, pool: usize) -> Result<(), Failure>;
    /// Make statement `id` ready (a named prepared statement) on every connection.
    fn prepare(&mut self, rt: &Runtime, id: i64, sql: &str) -> Result<StmtInfo, Failure>;
    /// A timed block of batches (run.rs's plan).
    fn run(&mut self, rt: &Runtime, p: &mut Plan, batches: usize) -> BlockResult;
    /// A timed load over the pool.
    fn load(&mut self, rt: &Runtime, s: &LoadSpec) -> LoadResult;
    /// One whole result, buffered or streamed, timed (stream.rs).
    fn stream(&mut self, rt: &Runtime, s: &StreamSpec) -> StreamResult;
    fn close(&mut self, rt: &Runtime);
}

/// Options the client knows: an unknown key is kind config, listing them.
pub fn check_options(client: &str, opts: &HashMap<String, String>, known: &[&str]) -> Result<(), Failure> {
    let mut bad: Vec<&String> = opts.keys().filter(|k| !known.contains(&k.as_str())).collect();
    bad.sort();
    match bad.first() {
        None => Ok(()),
        Some(k) => Err(Failure::new(
            "config",
            format!(
                "unknown option \"{}\" for client {}: it knows {}",
                k,
                client,
                if known.is_empty() { "no options".to_string() } else { known.join(", ") }
            ),
        )),
    }
}

/// A yes/no option.
pub fn yes_no(client: &str, key: &str, v: &str) -> Result<bool, Failure> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "on" | "true" | "1" => Ok(true),
        "no" | "off" | "false" | "0" => Ok(false),
        _ => Err(Failure::new("config", format!("{}: {} = \"{}\": say yes or no", client, key, v))),
    }
}

struct Adapter {
    rt: Runtime,
    cl: Option<Box<dyn Client>>,
    connected: bool,
    pool: usize,
    stmts: HashMap<i64, StmtInfo>,
}

fn main() {
    let fd = std::env::var("PGCB_BRIDGE_FD").ok().and_then(|s| s.parse::<i32>().ok()).filter(|&n| n >= 0).unwrap_or(3);
    let mut ch = match Channel::open(fd) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("pgcb-adapter-rust: fd {}: {}", fd, e);
            std::process::exit(1);
        }
    };
    // One thread: the current-thread runtime, I/O and timers (connect
    // timeouts, a load's rate and settle time).
    let rt = match tokio::runtime::Builder::new_current_thread().enable_io().enable_time().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("pgcb-adapter-rust: cannot start the tokio runtime: {}", e);
            std::process::exit(1);
        }
    };
    let mut a = Adapter { rt, cl: None, connected: false, pool: 0, stmts: HashMap::new() };
    loop {
        let payload = match ch.read() {
            Ok(Some(p)) => p,
            Ok(None) => {
                a.shutdown();
                std::process::exit(0); // end of file on fd 3: the bridge is gone
            }
            Err(e) => {
                eprintln!("pgcb-adapter-rust: {}", e);
                a.shutdown();
                std::process::exit(0);
            }
        };
        let (reply, exit) = a.handle(&payload);
        if let Err(e) = ch.write(&reply) {
            eprintln!("pgcb-adapter-rust: cannot write a reply: {}", e);
            a.shutdown();
            std::process::exit(1);
        }
        if exit {
            std::process::exit(0);
        }
    }
}

impl Adapter {
    fn shutdown(&mut self) {
        if let Some(mut c) = self.cl.take() {
            c.close(&self.rt);
        }
    }

    /// The reply to one request; true: exit after sending it.
    fn handle(&mut self, payload: &[u8]) -> (Reply, bool) {
        let rq = match frames::decode(payload) {
            Ok(v) => v,
            Err(f) => return (fail(&f), false),
        };
        let op = str_field(&rq, "op").unwrap_or("").to_string();
        if op != "hello" && op != "close" && self.cl.is_none() {
            return (fail(&Failure::protocol(format!("\"{}\" before hello", op))), false);
        }
        let r = match op.as_str() {
            "hello" => self.hello(&rq),
            "connect" => self.connect(&rq),
            "prepare" => self.prepare(&rq),
            "run" => Ok(self.run(&rq)),
            "load" => Ok(self.load(&rq)),
            "stream" => Ok(self.stream(&rq)),
            "phase" => {
                // Rust has no collector: nothing to collect before a warm-up.
                let mut r = Reply::ok();
                r.set("gc", false);
                Ok(r)
            }
            "close" => {
                self.shutdown();
                return (Reply::ok(), true);
            }
            _ => Err(Failure::protocol(format!("unknown request \"{}\"", op))),
        };
        (r.unwrap_or_else(|f| fail(&f)), false)
    }

    fn hello(&mut self, rq: &Value) -> Result<Reply, Failure> {
        if self.cl.is_some() {
            return Err(Failure::protocol("a second hello"));
        }
        match int_field(rq, "protocol") {
            Some(PROTOCOL) => {}
            v => {
                return Err(Failure::new(
                    "unsupported",
                    format!(
                        "the Rust adapter speaks bridge protocol 1, not {}",
                        v.map(|x| x.to_string()).unwrap_or_else(|| "none".to_string())
                    ),
                ))
            }
        }
        let mut opts = HashMap::new();
        if let Some(Value::Object(o)) = rq.get("options") {
            for (k, v) in o {
                opts.insert(k.clone(), v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()));
            }
        }
        match rq.get("result_format") {
            None | Some(Value::Null) => {}
            Some(Value::String(s)) if s == "text" || s == "binary" => {}
            Some(v) => {
                return Err(Failure::protocol(format!(
                    "hello: result_format must be \"text\" or \"binary\", not {}",
                    v
                )))
            }
        }
        let cl: Box<dyn Client> = match str_field(rq, "client").unwrap_or("") {
            "tokio-postgres" => Box::new(client_pg::PgClient::new(&opts)?),
            "sqlx" => Box::new(client_sqlx::SqlxClient::new(&opts)?),
            "null" => Box::new(client_null::NullClient::new(&opts)?),
            c => {
                return Err(Failure::new(
                    "config",
                    format!("unknown client \"{}\": the Rust adapter knows tokio-postgres, sqlx, null", c),
                ))
            }
        };
        let inf = cl.info();
        self.cl = Some(cl);
        let mut r = Reply::ok();
        r.set("protocol", PROTOCOL);
        r.set("adapter", "rust");
        r.set("adapter_version", ADAPTER_VERSION);
        r.set("runtime", runtime_text());
        r.set("client", inf.client);
        r.set("client_version", inf.client_version);
        r.set("links", inf.links);
        r.set("pipeline", inf.pipeline);
        r.set("no_io", inf.no_io);
        r.set("load", inf.load);
        r.set("stream", inf.stream);
        r.set("text_length", "bytes");
        if let Some(w) = inf.wire {
            r.set(
                "wire",
                serde_json::json!({"result_format": w.result_format, "describe": w.describe,
                                             "sync": w.sync, "statements": w.statements}),
            );
        }
        Ok(r)
    }

    fn connect(&mut self, rq: &Value) -> Result<Reply, Failure> {
        if self.connected {
            return Err(Failure::protocol("a second connect"));
        }
        let cl = self.cl.as_mut().unwrap();
        let mut pool = 0;
        if let Some(p) = rq.get("pool").filter(|v| !v.is_null()) {
            let n = p.as_i64().unwrap_or(0);
            if n < 1 {
                return Err(Failure::protocol(format!("connect: pool must be >= 1, not {}", p)));
            }
            if !cl.info().load {
                return Err(Failure::new("unsupported", "this client has no pool (hello said load: false)"));
            }
            pool = n as usize;
        }
        cl.connect(&self.rt, rq.get("conn").unwrap_or(&Value::Null), pool)?;
        self.connected = true;
        self.pool = pool;
        Ok(Reply::ok())
    }

    fn prepare(&mut self, rq: &Value) -> Result<Reply, Failure> {
        if !self.connected {
            return Err(Failure::protocol("prepare before connect"));
        }
        let id = match int_field(rq, "stmt") {
            Some(n) if n >= 0 => n,
            _ => return Err(Failure::protocol("prepare without a stmt number")),
        };
        let sql = str_field(rq, "sql").ok_or_else(|| Failure::protocol("prepare without sql"))?;
        let info = self.cl.as_mut().unwrap().prepare(&self.rt, id, sql)?;
        self.stmts.insert(id, info);
        Ok(Reply::ok())
    }

    fn run(&mut self, rq: &Value) -> Reply {
        let (mut p, n) = match run::plan(rq, self.connected, &self.stmts) {
            Ok(x) => x,
            Err(f) => return fail(&f),
        };
        let res = self.cl.as_mut().unwrap().run(&self.rt, &mut p, n);
        run::reply(res, p.dump)
    }

    fn load(&mut self, rq: &Value) -> Reply {
        let spec = match load::spec(rq, self.connected, self.pool, &self.stmts) {
            Ok(s) => s,
            Err(f) => {
                let mut r = fail(&f);
                for k in ["done", "wall_ns", "cpu_ns", "late_ns"] {
                    r.set(k, 0);
                }
                return r;
            }
        };
        let res = self.cl.as_mut().unwrap().load(&self.rt, &spec);
        load::reply(res)
    }

    fn stream(&mut self, rq: &Value) -> Reply {
        let res = match stream::spec(rq, self.connected, &self.stmts) {
            Ok(s) => self.cl.as_mut().unwrap().stream(&self.rt, &s),
            Err(f) => StreamResult::failed(f),
        };
        stream::reply(res)
    }
}

fn fail(f: &Failure) -> Reply {
    let mut r = Reply::new();
    r.failure(f);
    r
}
