//! versions.rs -- the library and compiler versions compiled in, set by
//! build.sh from Cargo.lock and `rustc --version` ("unknown" if built
//! otherwise). Build metadata only, no client code: the adapter
//! (src/main.rs) and the standalone program (standalone/main.rs) both
//! include it, so that their links say the same versions.

pub fn version(which: &str) -> &'static str {
    let v = match which {
        "tokio-postgres" => option_env!("PGCB_V_TOKIO_POSTGRES"),
        "postgres-protocol" => option_env!("PGCB_V_POSTGRES_PROTOCOL"),
        "postgres-types" => option_env!("PGCB_V_POSTGRES_TYPES"),
        "tokio" => option_env!("PGCB_V_TOKIO"),
        "deadpool-postgres" => option_env!("PGCB_V_DEADPOOL_POSTGRES"),
        "rust_decimal" => option_env!("PGCB_V_RUST_DECIMAL"),
        "sqlx" => option_env!("PGCB_V_SQLX"),
        "sqlx-postgres" => option_env!("PGCB_V_SQLX_POSTGRES"),
        "futures-util" => option_env!("PGCB_V_FUTURES_UTIL"),
        "rustc" => option_env!("PGCB_V_RUSTC"),
        _ => None,
    };
    v.unwrap_or("unknown")
}
