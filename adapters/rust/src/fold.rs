//! fold.rs -- the fold of a batch (docs/bridge-protocol.md, "The fold"):
//! FNV-1a's step on 32 bits over each execution's row count and, per
//! column, its null count and the sum of its values' contributions, by the
//! kinds the bridge sent. The caller reads each value from the row the
//! client returned and passes its contribution (None for a null), which
//! the value's Rust type gives (Contribution). tests/vectors.rs checks both
//! against the shared vectors (tests/vectors/folds.json).

use serde_json::Value;

/// What a column's non-null values contribute to the fold.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    Any,
    Int,
    Bool,
    Str,
}

impl Kind {
    /// The protocol's name of the kind ("any", "int", "bool", "str").
    pub fn name(self) -> &'static str {
        match self {
            Kind::Any => "any",
            Kind::Int => "int",
            Kind::Bool => "bool",
            Kind::Str => "str",
        }
    }
}

/// What a non-null value contributes to its column's sum, by the column's
/// kind (docs/bridge-protocol.md, "The fold"): under kind int an integer
/// its value mod 2^32 (a negative one's two's complement), under kind bool
/// a boolean 1 if true, under kind str a string its length in UTF-8 bytes
/// (hello's text_length "bytes"); anything else 0. Every Rust type a
/// client delivers implements it, taking the value as the client gave it:
/// the integers, bool and &str below, the opaque ones (floats, bytes,
/// arrays here; dates, decimals, uuids, JSON in values.rs and
/// values_sqlx.rs) with the default, 0.
pub trait Contribution: Sized {
    #[inline]
    fn contribution(self, _k: Kind) -> u32 {
        0
    }
}

impl Contribution for bool {
    #[inline]
    fn contribution(self, k: Kind) -> u32 {
        (k == Kind::Bool && self) as u32
    }
}

/// int2 (i16), int4 (i32), int8 (i64), oid (u32), "char" (i8): `as u32`
/// is the value mod 2^32, sign-extended first.
macro_rules! int_contribution {
    ($($t:ty),*) => {$(
        impl Contribution for $t {
            #[inline]
            fn contribution(self, k: Kind) -> u32 {
                if k == Kind::Int { self as u32 } else { 0 }
            }
        }
    )*};
}
int_contribution!(i8, i16, i32, i64, u32);

impl Contribution for &str {
    #[inline]
    fn contribution(self, k: Kind) -> u32 {
        if k == Kind::Str {
            self.len() as u32
        } else {
            0
        }
    }
}

impl Contribution for f32 {}
impl Contribution for f64 {}
impl Contribution for &[u8] {}
impl<T> Contribution for Vec<Option<T>> {}

pub const FNV_OFFSET: u32 = 2166136261;
const FNV_PRIME: u32 = 16777619;

#[inline]
pub fn mix(h: u32, x: u32) -> u32 {
    (h ^ x).wrapping_mul(FNV_PRIME)
}

/// The run's kinds (null, or one per column, each possibly null); anything
/// unknown is Any.
pub fn parse_kinds(v: Option<&Value>) -> Vec<Kind> {
    let a = match v.and_then(Value::as_array) {
        Some(a) => a,
        None => return Vec::new(),
    };
    a.iter()
        .map(|k| match k.as_str() {
            Some("int") => Kind::Int,
            Some("bool") => Kind::Bool,
            Some("str") => Kind::Str,
            _ => Kind::Any,
        })
        .collect()
}

/// One execution's per-column counts; sized once per run, so that folding
/// allocates nothing.
#[derive(Clone, Default)]
pub struct Folder {
    kinds: Vec<Kind>,
    nulls: Vec<u32>,
    sums: Vec<u32>,
    ncols: usize,
    pub nrows: u32,
}

impl Folder {
    pub fn new(kinds: Vec<Kind>, ncols: usize) -> Folder {
        let mut f = Folder { kinds, ..Folder::default() };
        f.size(ncols);
        f
    }

    fn size(&mut self, ncols: usize) {
        if self.kinds.len() < ncols {
            self.kinds.resize(ncols, Kind::Any);
        }
        if self.nulls.len() < ncols {
            self.nulls.resize(ncols, 0);
            self.sums.resize(ncols, 0);
        }
    }

    /// The kind of column j (Any beyond the bridge's kinds).
    #[inline]
    pub fn kind(&self, j: usize) -> Kind {
        self.kinds[j]
    }

    /// Begin an execution whose result has ncols columns.
    pub fn start(&mut self, ncols: usize) {
        self.size(ncols);
        self.ncols = ncols;
        for j in 0..ncols {
            self.nulls[j] = 0;
            self.sums[j] = 0;
        }
        self.nrows = 0;
    }

    #[inline]
    pub fn row(&mut self) {
        self.nrows += 1;
    }

    /// Column j's value of the current row: None a null, else its
    /// contribution (0 for kind Any).
    #[inline]
    pub fn value(&mut self, j: usize, c: Option<u32>) {
        match c {
            None => self.nulls[j] += 1,
            Some(x) => self.sums[j] = self.sums[j].wrapping_add(x),
        }
    }

    /// The current execution's column j: its kind, count of nulls and sum
    /// of contributions (a stream's reply), j < the ncols of start.
    pub fn column(&self, j: usize) -> (Kind, u32, u32) {
        (self.kinds[j], self.nulls[j], self.sums[j])
    }

    /// The current execution's columns (start's ncols).
    pub fn ncols(&self) -> usize {
        self.ncols
    }

    /// Mix the execution into the batch's fold h.
    pub fn finish(&self, mut h: u32) -> u32 {
        h = mix(h, self.nrows);
        if self.nrows > 0 {
            for j in 0..self.ncols {
                h = mix(h, self.nulls[j]);
                h = mix(h, self.sums[j]);
            }
        }
        h
    }
}
