#!/bin/sh
# adapters/rust/install.sh OUTDIR -- the Rust adapter's crates from crates.io,
# exactly those of the committed adapters/rust/Cargo.lock (`cargo fetch
# --locked`, for the host target only), into a CARGO_HOME of its own,
# OUTDIR/cargo-home (never ~/.cargo): tokio-postgres, deadpool-postgres,
# rust_decimal, sqlx and what they depend on (about 200 crates, 138 MB of
# .crate files). adapters/rust/build.sh then builds offline from there (it
# runs this script first, a no-op when stamped). Run by
# scripts/install-deps.sh with OUTDIR build/adapters/rust.
#
# Toolchain: rustup's cargo and rustc (cargo on PATH, else ~/.cargo/bin);
# Debian's cargo (1.63) cannot build these crates. A quick no-op when
# OUTDIR/cargo-home/.pgcb-cargo-lock equals Cargo.lock. Here: 6 s from
# nothing (the downloads), 0.03 s when already installed. On failure one
# line naming crates.io and the lockfile, and exit 1. Never prompts.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:?usage: adapters/rust/install.sh OUTDIR}
lock=$here/Cargo.lock

# shellcheck source=adapters/rust/toolchain.sh
. "$here/toolchain.sh"

mkdir -p "$out/cargo-home"
home=$(cd "$out/cargo-home" && pwd)
stamp=$home/.pgcb-cargo-lock
if [ -f "$stamp" ] && cmp -s "$stamp" "$lock"; then
    exit 0
fi
# A config.toml left by the Debian build (crates.io replaced by Debian's
# registry, offline) would defeat the fetch.
rm -f "$home/config.toml" "$stamp"
host=$("$rustc" -vV 2>/dev/null | sed -n 's/^host: //p')
log=$home/.fetch.log
if ! CARGO_HOME="$home" RUSTC="$rustc" "$cargo" fetch --locked --manifest-path "$here/Cargo.toml" \
    ${host:+--target "$host"} >"$log" 2>&1; then
    cat "$log" >&2
    why=$(grep -m1 -E '^error' "$log" || true)
    echo "install.sh: cargo could not fetch adapters/rust/Cargo.lock from crates.io (crates into $home)${why:+: $why}" >&2
    exit 1
fi
rm -f "$log"
cp "$lock" "$stamp"
