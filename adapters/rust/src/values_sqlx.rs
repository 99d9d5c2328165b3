//! values_sqlx.rs -- every value of an sqlx PgRow converted into the Rust
//! type sqlx decodes its column type as (Row::try_get, binary format, as
//! sqlx always asks for prepared statements), for the fold, and encoded for
//! a dump (docs/bridge-protocol.md, "Dumps"). The Rust type of each column
//! is chosen once per statement from its type with sqlx::Type::compatible,
//! as a Rust user picks the type of row.get::<T, _>: bool, i8 ("char"),
//! i16, i32, i64, Oid, f32, f64, &str (text, varchar, bpchar, name,
//! unknown), &[u8] (bytea), uuid::Uuid, serde_json::Value (json, jsonb),
//! chrono's NaiveDate, NaiveTime, NaiveDateTime and DateTime<Utc>,
//! PgInterval (months, days, microseconds), rust_decimal's Decimal (numeric:
//! NaN, the infinities and more than 28 digits are refused), and
//! Vec<Option<T>> of int4[], int8[], text[] and float8[] (sqlx refuses a
//! lower bound other than 1). Any other column fails the batch (kind
//! protocol), as row.get fails for a Rust user. The fold contributions and
//! the dump encoding are tokio-postgres's (values.rs).

use chrono::{DateTime, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use sqlx::postgres::types::{Oid, PgInterval};
use sqlx::postgres::{PgRow, PgTypeInfo, Postgres};
use sqlx::{Column, Row, Type, TypeInfo};

use crate::fold::{Contribution, Folder, Kind};
use crate::frames::Failure;
use crate::values::{arr, clock_text, date_text, float_json, hex, int_json, other, stamp_text};

/// The Rust type a column's values are read as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum SqlxType {
    Bool,
    Char,
    I16,
    I32,
    I64,
    Oid,
    F32,
    F64,
    Text,
    Bytea,
    Uuid,
    Json,
    Date,
    Time,
    Timestamp,
    Timestamptz,
    Interval,
    Numeric,
    ArrI32,
    ArrI64,
    ArrText,
    ArrF64,
    Unsupported,
}

pub fn sqlx_type(ty: &PgTypeInfo) -> SqlxType {
    macro_rules! pick {
        ($($t:ty => $c:expr),*) => {
            $(if <$t as Type<Postgres>>::compatible(ty) { return $c; })*
        };
    }
    pick!(bool => SqlxType::Bool, i8 => SqlxType::Char, i16 => SqlxType::I16, i32 => SqlxType::I32,
          i64 => SqlxType::I64, Oid => SqlxType::Oid, f32 => SqlxType::F32, f64 => SqlxType::F64,
          &str => SqlxType::Text, &[u8] => SqlxType::Bytea, uuid::Uuid => SqlxType::Uuid,
          Value => SqlxType::Json, NaiveDate => SqlxType::Date, NaiveTime => SqlxType::Time,
          NaiveDateTime => SqlxType::Timestamp, DateTime<Utc> => SqlxType::Timestamptz,
          PgInterval => SqlxType::Interval, Decimal => SqlxType::Numeric,
          Vec<Option<i32>> => SqlxType::ArrI32, Vec<Option<i64>> => SqlxType::ArrI64,
          Vec<Option<String>> => SqlxType::ArrText, Vec<Option<f64>> => SqlxType::ArrF64);
    SqlxType::Unsupported
}

/// The kind (docs/bridge-protocol.md, "stream") of every non-null value of
/// a column read as t: bool a boolean, i16, i32, i64 and Oid an integer,
/// &str a string; anything else any, i8 ("char") included (as values.rs's).
pub fn stream_kind(t: SqlxType) -> Kind {
    match t {
        SqlxType::Bool => Kind::Bool,
        SqlxType::I16 | SqlxType::I32 | SqlxType::I64 | SqlxType::Oid => Kind::Int,
        SqlxType::Text => Kind::Str,
        _ => Kind::Any,
    }
}

/// A failure to decode column j of a row: a 2-D array is unsupported (as
/// libpq_sync refuses it), anything else the client's refusal (protocol).
fn conv_failure(row: &PgRow, j: usize, e: sqlx::Error) -> Failure {
    let col = &row.columns()[j];
    let msg = format!("sqlx: column {} ({}): {}", col.name(), col.type_info().name(), e);
    if msg.contains("dimensions; only one-dimensional") {
        Failure::new("unsupported", msg)
    } else {
        Failure::protocol(msg)
    }
}

fn unsupported(row: &PgRow, j: usize) -> Failure {
    let col = &row.columns()[j];
    Failure::protocol(format!(
        "sqlx has no Rust type (Decode) for column {} of type {}: cast it to text",
        col.name(),
        col.type_info().name()
    ))
}

/// sqlx's own types: an oid an integer (kind int), an interval opaque.
impl Contribution for Oid {
    #[inline]
    fn contribution(self, k: Kind) -> u32 {
        self.0.contribution(k)
    }
}
impl Contribution for PgInterval {}

/// Convert every value of row (types ct) and fold it with f.
pub fn fold_row(f: &mut Folder, row: &PgRow, ct: &[SqlxType]) -> Result<(), Failure> {
    f.row();
    for (j, &t) in ct.iter().enumerate() {
        let k = f.kind(j);
        macro_rules! get {
            ($t:ty) => {{
                match row.try_get::<Option<$t>, usize>(j) {
                    Ok(Some(v)) => Some(v.contribution(k)),
                    Ok(None) => None,
                    Err(e) => return Err(conv_failure(row, j, e)),
                }
            }};
        }
        let c: Option<u32> = match t {
            SqlxType::Bool => get!(bool),
            SqlxType::Char => get!(i8),
            SqlxType::I16 => get!(i16),
            SqlxType::I32 => get!(i32),
            SqlxType::I64 => get!(i64),
            SqlxType::Oid => get!(Oid),
            SqlxType::F32 => get!(f32),
            SqlxType::F64 => get!(f64),
            SqlxType::Text => get!(&str),
            SqlxType::Bytea => get!(&[u8]),
            SqlxType::Uuid => get!(uuid::Uuid),
            SqlxType::Json => get!(Value),
            SqlxType::Date => get!(NaiveDate),
            SqlxType::Time => get!(NaiveTime),
            SqlxType::Timestamp => get!(NaiveDateTime),
            SqlxType::Timestamptz => get!(DateTime<Utc>),
            SqlxType::Interval => get!(PgInterval),
            SqlxType::Numeric => get!(Decimal),
            SqlxType::ArrI32 => get!(Vec<Option<i32>>),
            SqlxType::ArrI64 => get!(Vec<Option<i64>>),
            SqlxType::ArrText => get!(Vec<Option<String>>),
            SqlxType::ArrF64 => get!(Vec<Option<f64>>),
            SqlxType::Unsupported => return Err(unsupported(row, j)),
        };
        f.value(j, c);
    }
    Ok(())
}

/// An interval as the server prints it under IntervalStyle postgres
/// (PostgreSQL's EncodeInterval): "1 year 2 mons -3 days +04:05:06.789".
pub fn interval_text(iv: &PgInterval) -> String {
    let (year, mon, day) = (iv.months / 12, iv.months % 12, iv.days);
    let t = iv.microseconds;
    let (hour, min, sec, us) = (t / 3_600_000_000, (t / 60_000_000) % 60, (t / 1_000_000) % 60, t % 1_000_000);
    let mut s = String::new();
    let (mut zero, mut before) = (true, false);
    for (v, unit) in [(year as i64, "year"), (mon as i64, "mon"), (day as i64, "day")] {
        if v == 0 {
            continue;
        }
        let sep = if zero { "" } else { " " };
        let plus = if before && v > 0 { "+" } else { "" };
        s += &format!("{}{}{} {}{}", sep, plus, v, unit, if v != 1 { "s" } else { "" });
        before = v < 0;
        zero = false;
    }
    if zero || t != 0 {
        let minus = hour < 0 || min < 0 || sec < 0 || us < 0;
        let sign = if minus {
            "-"
        } else if before {
            "+"
        } else {
            ""
        };
        s += &format!("{}{}{:02}:{:02}:{:02}", if zero { "" } else { " " }, sign, hour.abs(), min.abs(), sec.abs());
        if us != 0 {
            s += format!(".{:06}", us.abs()).trim_end_matches('0');
        }
    }
    s
}

/// Column j of row as the dump shows what the client delivered.
pub fn dump_value(row: &PgRow, j: usize, t: SqlxType) -> Result<Value, Failure> {
    macro_rules! get {
        ($t:ty, $c:expr) => {{
            match row.try_get::<Option<$t>, usize>(j) {
                Ok(Some(v)) => $c(v),
                Ok(None) => Value::Null,
                Err(e) => return Err(conv_failure(row, j, e)),
            }
        }};
    }
    Ok(match t {
        SqlxType::Bool => get!(bool, |v: bool| json!(v)),
        SqlxType::Char => get!(i8, |v: i8| json!(v)),
        SqlxType::I16 => get!(i16, |v: i16| json!(v)),
        SqlxType::I32 => get!(i32, |v: i32| json!(v)),
        SqlxType::I64 => get!(i64, int_json),
        SqlxType::Oid => get!(Oid, |v: Oid| json!(v.0)),
        SqlxType::F32 => get!(f32, |v: f32| float_json(v as f64, Some(v.to_string()))),
        SqlxType::F64 => get!(f64, |v: f64| float_json(v, None)),
        SqlxType::Text => get!(&str, |v: &str| json!(v)),
        SqlxType::Bytea => get!(&[u8], |v: &[u8]| json!({ "bytes": hex(v) })),
        SqlxType::Uuid => get!(uuid::Uuid, |v: uuid::Uuid| other(v.hyphenated().to_string(), "uuid::Uuid")),
        SqlxType::Json => get!(Value, |v: Value| other(v.to_string(), "serde_json::Value")),
        SqlxType::Date => get!(NaiveDate, |v: NaiveDate| {
            let (d, bc) = date_text(&v);
            other(if bc { d + " BC" } else { d }, "chrono::NaiveDate")
        }),
        SqlxType::Time => get!(NaiveTime, |v: NaiveTime| other(clock_text(&v), "chrono::NaiveTime")),
        SqlxType::Timestamp => {
            get!(NaiveDateTime, |v: NaiveDateTime| other(stamp_text(&v, false), "chrono::NaiveDateTime"))
        }
        SqlxType::Timestamptz => {
            get!(DateTime<Utc>, |v: DateTime<Utc>| other(stamp_text(&v.naive_utc(), true), "chrono::DateTime<Utc>"))
        }
        SqlxType::Interval => get!(PgInterval, |v: PgInterval| other(interval_text(&v), "sqlx PgInterval")),
        SqlxType::Numeric => get!(Decimal, |v: Decimal| other(v.to_string(), "rust_decimal::Decimal")),
        SqlxType::ArrI32 => get!(Vec<Option<i32>>, |v| arr(v, |x: i32| json!(x))),
        SqlxType::ArrI64 => get!(Vec<Option<i64>>, |v| arr(v, int_json)),
        SqlxType::ArrText => get!(Vec<Option<String>>, |v| arr(v, |x: String| json!(x))),
        SqlxType::ArrF64 => get!(Vec<Option<f64>>, |v| arr(v, |x: f64| float_json(x, None))),
        SqlxType::Unsupported => return Err(unsupported(row, j)),
    })
}
