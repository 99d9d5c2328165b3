#!/bin/sh
# Build the Rust adapter and its standalone counterpart, offline, in
# release, against Debian's packaged crates:
#
#   adapters/rust/build.sh [OUTDIR]           (default build/adapters/rust)
#   adapters/rust/build.sh --lint [OUTDIR]    rustfmt --check, then cargo clippy
#                                             -D warnings (target OUTDIR/clippy-target)
#   adapters/rust/build.sh --fmt [OUTDIR]     rustfmt --check only
#
# -> OUTDIR/pgcb-adapter-rust (the bridge's `adapter = rust`) and
#    OUTDIR/pgcb-standalone-rust (scripts/compare-standalone.sh), with the
#    cargo target directory in OUTDIR/target and a CARGO_HOME in
#    OUTDIR/cargo-home whose config.toml replaces crates.io by Debian's
#    crate directory (/usr/share/cargo/registry): nothing is fetched.
# Needs: apt-get install --no-install-recommends cargo rustc librust-tokio-dev
# librust-tokio-postgres-dev librust-futures-util-dev librust-serde-json-dev
# librust-chrono-dev librust-uuid-dev librust-bytes-dev librust-libc-dev
# (Debian 12: rustc 1.63, tokio-postgres 0.7.7, tokio 1.24.2). Debian's
# cargo and rustc, never a rustup toolchain on PATH: the build is what a
# fresh Debian machine builds. Cargo.lock (committed) pins what Debian 12's
# registry resolves to; should Debian's crates move, cargo re-resolves
# offline and rewrites it (git then shows the change).
# The library versions for `links` are read from Cargo.lock, rustc's from
# `rustc --version`, and compiled in (option_env!).
#
# Environment: CARGO (default /usr/bin/cargo), RUSTC (default
# /usr/bin/rustc), PGCB_CARGO_REGISTRY (default /usr/share/cargo/registry).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
lint=0
case ${1:-} in
--lint) lint=1; shift ;;
--fmt) lint=2; shift ;; # rustfmt --check only (make check: no clippy build)
esac
out=${1:-build/adapters/rust}
cargo=${CARGO:-/usr/bin/cargo}
rustc=${RUSTC:-/usr/bin/rustc}
registry=${PGCB_CARGO_REGISTRY:-/usr/share/cargo/registry}
pkgs="cargo rustc librust-tokio-dev librust-tokio-postgres-dev librust-futures-util-dev librust-serde-json-dev librust-chrono-dev librust-uuid-dev librust-bytes-dev librust-libc-dev"

if [ ! -x "$cargo" ] || [ ! -x "$rustc" ]; then
    echo "build.sh: $cargo or $rustc not found (apt-get install $pkgs)" >&2
    exit 1
fi
ls -d "$registry"/tokio-postgres-0.7.* >/dev/null 2>&1 ||
    { echo "build.sh: $registry has no tokio-postgres 0.7 (apt-get install $pkgs)" >&2; exit 1; }

mkdir -p "$out/cargo-home"
outabs=$(cd "$out" && pwd)
cat >"$outabs/cargo-home/config.toml" <<CONF
# Written by adapters/rust/build.sh: Debian's crates, offline.
[source.crates-io]
replace-with = "debian"
[source.debian]
directory = "$registry"
[net]
offline = true
CONF

# The version Cargo.lock resolved for crate $1.
locked() {
    awk -v n="$1" '$1 == "name" && $3 == "\"" n "\"" {getline; gsub(/"/, "", $3); print $3; exit}' \
        "$here/Cargo.lock" 2>/dev/null || true
}
PGCB_V_TOKIO_POSTGRES=$(locked tokio-postgres)
PGCB_V_POSTGRES_PROTOCOL=$(locked postgres-protocol)
PGCB_V_POSTGRES_TYPES=$(locked postgres-types)
PGCB_V_TOKIO=$(locked tokio)
PGCB_V_RUSTC=$("$rustc" --version | awk '{print $2}')
export PGCB_V_TOKIO_POSTGRES PGCB_V_POSTGRES_PROTOCOL PGCB_V_POSTGRES_TYPES PGCB_V_TOKIO PGCB_V_RUSTC

if [ "$lint" != 0 ]; then
    # Debian's rustfmt and clippy (rustfmt, rust-clippy), never rustup's: PATH
    # is Debian's only, as cargo clippy runs the cargo-clippy it finds there.
    rustfmt=$(dirname "$rustc")/rustfmt
    if [ ! -x "$rustfmt" ] || [ ! -x "$(dirname "$cargo")/cargo-clippy" ]; then
        echo "build.sh: rustfmt or cargo-clippy not found (apt-get install rustfmt rust-clippy)" >&2
        exit 1
    fi
    "$rustfmt" --edition 2018 --check --config-path "$here/rustfmt.toml" \
        "$here/src/main.rs" "$here/standalone/main.rs"
    [ "$lint" = 1 ] || exit 0
    exec env PATH="$(dirname "$cargo"):/usr/bin:/bin" CARGO_HOME="$outabs/cargo-home" RUSTC="$rustc" \
        RUSTFLAGS="" "$cargo" clippy --release --offline --quiet --manifest-path "$here/Cargo.toml" \
        --target-dir "$outabs/clippy-target" -- -D warnings
fi

CARGO_HOME="$outabs/cargo-home" RUSTC="$rustc" RUSTFLAGS="" CARGO_BUILD_RUSTC_WRAPPER="" \
    "$cargo" build --release --offline --quiet --manifest-path "$here/Cargo.toml" \
    --target-dir "$outabs/target"
for b in pgcb-adapter-rust pgcb-standalone-rust; do
    # A private name, then a rename: a concurrent build (make's two build
    # directories) never sees a half-copied binary.
    cp "$outabs/target/release/$b" "$outabs/$b.tmp.$$"
    mv -f "$outabs/$b.tmp.$$" "$outabs/$b"
done
