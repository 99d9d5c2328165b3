#!/bin/sh
# Build the Rust adapter and its standalone counterpart, offline, in
# release, from the crates adapters/rust/install.sh fetched from crates.io:
#
#   adapters/rust/build.sh [OUTDIR]           (default build/adapters/rust)
#   adapters/rust/build.sh --lint [OUTDIR]    rustfmt --check, then cargo clippy
#                                             -D warnings (target OUTDIR/clippy-target)
#                                             of the binaries and tests/vectors.rs
#   adapters/rust/build.sh --fmt [OUTDIR]     rustfmt --check only
#   adapters/rust/build.sh --online [OUTDIR]  --locked, but what CARGO_HOME lacks is
#                                             fetched (release.sh: a release's crates)
#
# -> OUTDIR/pgcb-adapter-rust (the bridge's `adapter = rust`),
#    OUTDIR/pgcb-standalone-rust (scripts/compare-standalone.sh) and
#    OUTDIR/pgcb-vectors-rust (the self-test against tests/vectors/*.json:
#    tests/vectors.rs; run it from the checkout's top), with the
#    cargo target directory in OUTDIR/target. The crates: OUTDIR/cargo-home
#    (a CARGO_HOME of its own, filled by install.sh from the committed
#    Cargo.lock; run here first when its stamp does not match Cargo.lock).
#    `cargo build --release --locked --offline`: nothing is resolved again,
#    nothing fetched. Toolchain: rustup's (toolchain.sh: cargo on PATH unless
#    Debian's, else ~/.cargo/bin), its rustfmt and clippy for --lint.
# The library versions for `links` are read from Cargo.lock, rustc's from
# `rustc --version`, and compiled in (option_env!, versions.rs).
# A release build from nothing: about 100 s of wall time on this 2-CPU
# machine (200 crates; 101 s user CPU), while others were idle.
#
# Environment: CARGO, RUSTC (toolchain.sh), PGCB_RUST_SRC (the crate to
# build, default this directory: release.sh builds a copy pinned to a release),
# PGCB_CARGO_HOME (default OUTDIR/cargo-home, filled by install.sh; when set,
# install.sh is not run), PGCB_CARGO_TARGET (default OUTDIR/target).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src=${PGCB_RUST_SRC:-$here}
lint=0
offline=--offline
case ${1:-} in
--lint) lint=1; shift ;;
--fmt) lint=2; shift ;; # rustfmt --check only (make check: no clippy build)
--online) offline=; shift ;;
esac
out=${1:-build/adapters/rust}
# shellcheck source=adapters/rust/toolchain.sh
. "$here/toolchain.sh"

mkdir -p "$out"
outabs=$(cd "$out" && pwd)
home=${PGCB_CARGO_HOME:-$outabs/cargo-home}

# The version Cargo.lock resolved for crate $1.
locked() {
    awk -v n="$1" '$1 == "name" && $3 == "\"" n "\"" {getline; gsub(/"/, "", $3); print $3; exit}' \
        "$src/Cargo.lock" 2>/dev/null || true
}
PGCB_V_TOKIO_POSTGRES=$(locked tokio-postgres)
PGCB_V_POSTGRES_PROTOCOL=$(locked postgres-protocol)
PGCB_V_POSTGRES_TYPES=$(locked postgres-types)
PGCB_V_TOKIO=$(locked tokio)
PGCB_V_DEADPOOL_POSTGRES=$(locked deadpool-postgres)
PGCB_V_RUST_DECIMAL=$(locked rust_decimal)
PGCB_V_SQLX=$(locked sqlx)
PGCB_V_SQLX_POSTGRES=$(locked sqlx-postgres)
PGCB_V_FUTURES_UTIL=$(locked futures-util)
PGCB_V_RUSTC=$("$rustc" --version | awk '{print $2}')
export PGCB_V_TOKIO_POSTGRES PGCB_V_POSTGRES_PROTOCOL PGCB_V_POSTGRES_TYPES PGCB_V_TOKIO \
    PGCB_V_DEADPOOL_POSTGRES PGCB_V_RUST_DECIMAL PGCB_V_SQLX PGCB_V_SQLX_POSTGRES PGCB_V_FUTURES_UTIL \
    PGCB_V_RUSTC

if [ "$lint" != 0 ]; then
    # rustup's rustfmt and clippy (components rustfmt and clippy), found by
    # cargo fmt / cargo clippy beside cargo: PATH starts with its directory.
    if [ ! -x "$bindir/rustfmt" ] || [ ! -x "$bindir/cargo-clippy" ]; then
        echo "build.sh: rustfmt or cargo-clippy not beside $cargo (rustup component add rustfmt clippy)" >&2
        exit 1
    fi
    "$bindir/rustfmt" --edition 2021 --check --config-path "$src/rustfmt.toml" \
        "$src/src/main.rs" "$src/standalone/main.rs" "$src/tests/vectors.rs"
    [ "$lint" = 1 ] || exit 0
fi

# The crates of Cargo.lock, once (install.sh is a no-op when its stamp matches).
if [ -z "${PGCB_CARGO_HOME:-}" ]; then
    "$here/install.sh" "$outabs"
fi

if [ "$lint" = 1 ]; then
    exec env PATH="$bindir:/usr/bin:/bin" CARGO_HOME="$home" RUSTC="$rustc" RUSTFLAGS="" \
        "$cargo" clippy --release --locked --offline --quiet --manifest-path "$src/Cargo.toml" \
        --target-dir "$outabs/clippy-target" --bins --test vectors -- -D warnings
fi

# PGCB_RUST_BINS: the binaries to build (release.sh: the adapter only).
bins=${PGCB_RUST_BINS:-pgcb-adapter-rust pgcb-standalone-rust}
set --
for b in $bins; do set -- "$@" --bin "$b"; done
env PATH="$bindir:$PATH" CARGO_HOME="$home" RUSTC="$rustc" RUSTFLAGS="" CARGO_BUILD_RUSTC_WRAPPER="" \
    "$cargo" build --release --locked $offline --quiet --manifest-path "$src/Cargo.toml" \
    --target-dir "${PGCB_CARGO_TARGET:-$outabs/target}" "$@"
copy() { # A private name, then a rename: a concurrent build (make's two build
    # directories) never sees a half-copied binary.
    cp "$1" "$outabs/$2.tmp.$$"
    mv -f "$outabs/$2.tmp.$$" "$outabs/$2"
}
for b in $bins; do
    copy "${PGCB_CARGO_TARGET:-$outabs/target}/release/$b" "$b"
done

# The self-test against the shared vectors (tests/vectors.rs), unless
# PGCB_RUST_BINS chose the binaries (release.sh: the adapter alone): `cargo
# test --no-run` in the release profile, from the crates just compiled
# (nothing rebuilt but the test: about 6 s), its executable named in
# cargo's JSON.
[ -z "${PGCB_RUST_BINS:-}" ] || exit 0
json=$outabs/.vectors.json.$$
if ! env PATH="$bindir:$PATH" CARGO_HOME="$home" RUSTC="$rustc" RUSTFLAGS="" CARGO_BUILD_RUSTC_WRAPPER="" \
    "$cargo" test --release --locked $offline --quiet --no-run --test vectors \
    --message-format=json-render-diagnostics --manifest-path "$src/Cargo.toml" \
    --target-dir "${PGCB_CARGO_TARGET:-$outabs/target}" >"$json"; then
    rm -f "$json"
    exit 1
fi
vectors=$(grep '"kind":\["test"\]' "$json" | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -n 1)
rm -f "$json"
[ -n "$vectors" ] || { echo "build.sh: cargo test --no-run named no executable for tests/vectors.rs" >&2; exit 1; }
copy "$vectors" pgcb-vectors-rust
