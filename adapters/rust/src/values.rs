//! values.rs -- every value of a tokio-postgres Row converted into the Rust
//! type tokio-postgres delivers for its column type (Row::try_get, binary
//! format), for the fold, and encoded for a dump (docs/bridge-protocol.md,
//! "Dumps"). The Rust type of each column is chosen once per result from
//! its type, with FromSql::accepts, as a Rust user picks the type of
//! row.get::<_, T>: bool, i16, i32, i64, u32 (oid), i8 ("char"), f32, f64,
//! &str (text, varchar, bpchar, name, unknown), &[u8] (bytea), uuid::Uuid,
//! serde_json::Value (json, jsonb), chrono's NaiveDate, NaiveTime,
//! NaiveDateTime (timestamp) and DateTime<Utc> (timestamptz), and
//! Vec<Option<T>> of int4[], int8[], text[] and float8[], and numeric as
//! rust_decimal's Decimal (its db-tokio-postgres feature: the binary
//! numeric read into a 96-bit mantissa and a scale; NaN, the infinities and
//! more than 28 digits are refused). tokio-postgres has no Rust type for
//! the other columns (interval none at all): such a column fails the batch
//! (kind protocol), as row.get fails for a Rust user. The dump helpers
//! (int_json ... stamp_text) are shared with the sqlx client (values_sqlx.rs).

use chrono::{DateTime, Datelike, NaiveDate, NaiveDateTime, NaiveTime, Timelike, Utc};
use rust_decimal::Decimal;
use serde_json::{json, Value};
use tokio_postgres::types::{FromSql, Type};
use tokio_postgres::Row;

use crate::fold::{Contribution, Folder, Kind};
use crate::frames::Failure;

/// The Rust type a column's values are read as.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ColType {
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
    Numeric,
    ArrI32,
    ArrI64,
    ArrText,
    ArrF64,
    Unsupported,
}

pub fn coltype(ty: &Type) -> ColType {
    macro_rules! pick {
        ($($t:ty => $c:expr),*) => {
            $(if <$t as FromSql>::accepts(ty) { return $c; })*
        };
    }
    pick!(bool => ColType::Bool, i8 => ColType::Char, i16 => ColType::I16, i32 => ColType::I32,
          i64 => ColType::I64, u32 => ColType::Oid, f32 => ColType::F32, f64 => ColType::F64,
          &str => ColType::Text, &[u8] => ColType::Bytea, uuid::Uuid => ColType::Uuid,
          Value => ColType::Json, NaiveDate => ColType::Date, NaiveTime => ColType::Time,
          NaiveDateTime => ColType::Timestamp, DateTime<Utc> => ColType::Timestamptz,
          Decimal => ColType::Numeric,
          Vec<Option<i32>> => ColType::ArrI32, Vec<Option<i64>> => ColType::ArrI64,
          Vec<Option<String>> => ColType::ArrText, Vec<Option<f64>> => ColType::ArrF64);
    ColType::Unsupported
}

/// The column types of a result (from its first row's columns, or a statement's).
pub fn coltypes(cols: &[tokio_postgres::Column]) -> Vec<ColType> {
    cols.iter().map(|c| coltype(c.type_())).collect()
}

/// The kind (docs/bridge-protocol.md, "stream") of every non-null value of
/// a column read as t: bool a boolean, i16, i32, i64 and u32 (oid) an
/// integer, &str a string; anything else any, i8 ("char") included: the
/// bridge takes kind int for int2, int4, int8 and oid columns only.
pub fn stream_kind(t: ColType) -> Kind {
    match t {
        ColType::Bool => Kind::Bool,
        ColType::I16 | ColType::I32 | ColType::I64 | ColType::Oid => Kind::Int,
        ColType::Text => Kind::Str,
        _ => Kind::Any,
    }
}

/// A failure to convert column j of a row: a 2-D array is unsupported (as
/// libpq_sync refuses it), anything else the client's refusal (protocol).
fn conv_failure(row: &Row, j: usize, e: tokio_postgres::Error) -> Failure {
    let col = &row.columns()[j];
    // tokio-postgres's Display says "error deserializing column N"; the
    // conversion's own reason is its source.
    let why = std::error::Error::source(&e).map(|s| format!(": {}", s)).unwrap_or_default();
    let msg = format!("tokio-postgres: column {} ({}): {}{}", col.name(), col.type_().name(), e, why);
    if msg.contains("too many dimensions") || msg.contains("multi-dimensional") {
        Failure::new("unsupported", msg)
    } else {
        Failure::protocol(msg)
    }
}

fn unsupported(row: &Row, j: usize) -> Failure {
    let col = &row.columns()[j];
    Failure::protocol(format!(
        "tokio-postgres has no Rust type (FromSql) for column {} of type {}: cast it to text",
        col.name(),
        col.type_().name()
    ))
}

/// The opaque types tokio-postgres and sqlx deliver: kind any, 0.
impl Contribution for uuid::Uuid {}
impl Contribution for Value {}
impl Contribution for NaiveDate {}
impl Contribution for NaiveTime {}
impl Contribution for NaiveDateTime {}
impl Contribution for DateTime<Utc> {}
impl Contribution for Decimal {}

/// Convert every value of row (types ct) and fold it with f.
pub fn fold_row(f: &mut Folder, row: &Row, ct: &[ColType]) -> Result<(), Failure> {
    f.row();
    for (j, &t) in ct.iter().enumerate() {
        let k = f.kind(j);
        macro_rules! get {
            ($t:ty) => {{
                match row.try_get::<_, Option<$t>>(j) {
                    Ok(Some(v)) => Some(v.contribution(k)),
                    Ok(None) => None,
                    Err(e) => return Err(conv_failure(row, j, e)),
                }
            }};
        }
        let c: Option<u32> = match t {
            ColType::Bool => get!(bool),
            ColType::Char => get!(i8),
            ColType::I16 => get!(i16),
            ColType::I32 => get!(i32),
            ColType::I64 => get!(i64),
            ColType::Oid => get!(u32),
            ColType::F32 => get!(f32),
            ColType::F64 => get!(f64),
            ColType::Text => get!(&str),
            ColType::Bytea => get!(&[u8]),
            ColType::Uuid => get!(uuid::Uuid),
            ColType::Json => get!(Value),
            ColType::Date => get!(NaiveDate),
            ColType::Time => get!(NaiveTime),
            ColType::Timestamp => get!(NaiveDateTime),
            ColType::Timestamptz => get!(DateTime<Utc>),
            ColType::Numeric => get!(Decimal),
            ColType::ArrI32 => get!(Vec<Option<i32>>),
            ColType::ArrI64 => get!(Vec<Option<i64>>),
            ColType::ArrText => get!(Vec<Option<String>>),
            ColType::ArrF64 => get!(Vec<Option<f64>>),
            ColType::Unsupported => return Err(unsupported(row, j)),
        };
        f.value(j, c);
    }
    Ok(())
}

/// The largest magnitude a JSON number (an IEEE double) holds exactly for
/// every integer up to it.
const MAX_EXACT: i64 = 1 << 53;

pub fn int_json(x: i64) -> Value {
    if (-MAX_EXACT..=MAX_EXACT).contains(&x) {
        json!(x)
    } else {
        json!({"int": x.to_string()})
    }
}

/// A float: the shortest form that reads back as the same float of its
/// size, or {"float": ...} for what JSON has no number for.
pub fn float_json(x: f64, f32_text: Option<String>) -> Value {
    if x.is_nan() {
        json!({"float": "NaN"})
    } else if x.is_infinite() {
        json!({"float": if x > 0.0 { "Infinity" } else { "-Infinity" }})
    } else if x == 0.0 && x.is_sign_negative() {
        json!({"float": "-0"})
    } else if let Some(t) = f32_text {
        // an f32's shortest digits (Display), as an f64 that prints them
        json!(t.parse::<f64>().unwrap_or(x))
    } else {
        json!(x)
    }
}

pub fn other(text: String, ty: &str) -> Value {
    json!({"other": text, "type": ty})
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|c| format!("{:02x}", c)).collect()
}

/// HH:MM:SS[.ffffff], as the server prints a time.
pub fn clock_text(t: &NaiveTime) -> String {
    let mut s = format!("{:02}:{:02}:{:02}", t.hour(), t.minute(), t.second());
    let us = t.nanosecond() / 1000;
    if us != 0 {
        s += format!(".{:06}", us).trim_end_matches('0');
    }
    s
}

/// A date as the server prints it (a year <= 0 as 1 - year and " BC" at the end).
pub fn date_text(d: &NaiveDate) -> (String, bool) {
    let y = d.year();
    let (y, bc) = if y <= 0 { (1 - y, true) } else { (y, false) };
    (format!("{:04}-{:02}-{:02}", y, d.month(), d.day()), bc)
}

pub fn stamp_text(t: &NaiveDateTime, tz: bool) -> String {
    let (d, bc) = date_text(&t.date());
    let mut s = format!("{} {}", d, clock_text(&t.time()));
    if tz {
        s += "+00";
    }
    if bc {
        s += " BC";
    }
    s
}

pub fn arr<T>(v: Vec<Option<T>>, f: impl Fn(T) -> Value) -> Value {
    Value::Array(v.into_iter().map(|x| x.map(&f).unwrap_or(Value::Null)).collect())
}

/// Column j of row as the dump shows what the client delivered.
pub fn dump_value(row: &Row, j: usize, t: ColType) -> Result<Value, Failure> {
    macro_rules! get {
        ($t:ty, $c:expr) => {{
            match row.try_get::<_, Option<$t>>(j) {
                Ok(Some(v)) => $c(v),
                Ok(None) => Value::Null,
                Err(e) => return Err(conv_failure(row, j, e)),
            }
        }};
    }
    Ok(match t {
        ColType::Bool => get!(bool, |v: bool| json!(v)),
        ColType::Char => get!(i8, |v: i8| json!(v)),
        ColType::I16 => get!(i16, |v: i16| json!(v)),
        ColType::I32 => get!(i32, |v: i32| json!(v)),
        ColType::I64 => get!(i64, int_json),
        ColType::Oid => get!(u32, |v: u32| json!(v)),
        ColType::F32 => get!(f32, |v: f32| float_json(v as f64, Some(v.to_string()))),
        ColType::F64 => get!(f64, |v: f64| float_json(v, None)),
        ColType::Text => get!(&str, |v: &str| json!(v)),
        ColType::Bytea => get!(&[u8], |v: &[u8]| json!({ "bytes": hex(v) })),
        ColType::Uuid => get!(uuid::Uuid, |v: uuid::Uuid| other(v.hyphenated().to_string(), "uuid::Uuid")),
        ColType::Json => get!(Value, |v: Value| other(v.to_string(), "serde_json::Value")),
        ColType::Date => get!(NaiveDate, |v: NaiveDate| {
            let (d, bc) = date_text(&v);
            other(if bc { d + " BC" } else { d }, "chrono::NaiveDate")
        }),
        ColType::Time => get!(NaiveTime, |v: NaiveTime| other(clock_text(&v), "chrono::NaiveTime")),
        ColType::Timestamp => {
            get!(NaiveDateTime, |v: NaiveDateTime| other(stamp_text(&v, false), "chrono::NaiveDateTime"))
        }
        ColType::Timestamptz => {
            get!(DateTime<Utc>, |v: DateTime<Utc>| other(stamp_text(&v.naive_utc(), true), "chrono::DateTime<Utc>"))
        }
        ColType::Numeric => get!(Decimal, |v: Decimal| other(v.to_string(), "rust_decimal::Decimal")),
        ColType::ArrI32 => get!(Vec<Option<i32>>, |v| arr(v, |x: i32| json!(x))),
        ColType::ArrI64 => get!(Vec<Option<i64>>, |v| arr(v, int_json)),
        ColType::ArrText => get!(Vec<Option<String>>, |v| arr(v, |x: String| json!(x))),
        ColType::ArrF64 => get!(Vec<Option<f64>>, |v| arr(v, |x: f64| float_json(x, None))),
        ColType::Unsupported => return Err(unsupported(row, j)),
    })
}
