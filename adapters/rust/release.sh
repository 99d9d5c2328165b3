#!/bin/sh
# adapters/rust/release.sh CLIENT RELEASE DEST -- the Rust adapter built
# against one release of tokio-postgres or sqlx from crates.io, as
# DEST/adapter, for `client = tokio-postgres@0.7.7` (drivers/bridge/br_release.c
# states the contract, adapters/release-lib.sh the shared steps). The bridge
# then runs DEST/adapter instead of the shipped binary.
#
# How: a copy of the adapter's crate (DEST/crate: Cargo.toml, Cargo.lock,
# the sources) whose requirement for CLIENT is "=RELEASE"; its Cargo.lock is
# the committed one of adapters/rust/releases/CLIENT@RELEASE/ when there is
# one (Cargo.toml and Cargo.lock, installed --locked), else the shipped
# Cargo.lock moved by `cargo update -p CLIENT --precise RELEASE` (and, when
# another crate's requirement stands in the way, by `cargo update` of the
# whole lock), then `cargo build --release --locked` against crates.io into
# the shipped CARGO_HOME (build/adapters/rust/cargo-home: what it already
# holds is not fetched again). For tokio-postgres before 0.7.9 the copy also
# lets deadpool-postgres go back to 0.10 (deadpool-postgres 0.12+ needs
# tokio-postgres >= 0.7.9). The target directory is shared by the releases
# (DEST/../rust-target: the crates they have in common compiled once), one
# build at a time. An unknown release fails with cargo's answer in one line.
# A release build: 1.5 to 3 minutes on 2 CPUs (the crates that differ from
# the last one built, and the adapter).
#
# The Rust sources: this script runs from build/adapters/rust/ (make copies
# it there), where no source is: PGCB_RUST_SRC if set; else the directory of
# this script if it holds the crate (adapters/rust/ itself); else
# ../../../adapters/rust from here (BUILD/adapters/rust/ -> the checkout's
# adapters/rust/, BUILD being build/ or build-san/ at the checkout's root).
# The crate is recognised by its Cargo.toml naming pgcb-adapter-rust.
#
# Known limit: the adapter's code is written against sqlx 0.9 (its
# SqlSafeStr/AssertSqlSafe API): sqlx@0.8.x and older do not compile, and
# fail with the compiler's first error.
set -eu
# shellcheck source=adapters/release-lib.sh
. "$(dirname "$0")/../release-lib.sh"
rl_begin "$@"

case $RL_CLIENT in
tokio-postgres | sqlx) ;;
*) rl_unknown "crates.io: $RL_CLIENT is not a client of the rust adapter (tokio-postgres, sqlx)" ;;
esac

is_crate() { [ -f "$1/Cargo.toml" ] && grep -q '^name = "pgcb-adapter-rust"' "$1/Cargo.toml"; }
src=
for d in ${PGCB_RUST_SRC:-} "$RL_HERE" "$RL_HERE/../../../adapters/rust"; do
    if is_crate "$d"; then
        src=$(cd "$d" && pwd)
        break
    fi
done
[ -n "$src" ] || rl_fail "rust release.sh: the adapter's sources (adapters/rust/Cargo.toml) are neither in $RL_HERE nor in $RL_HERE/../../../adapters/rust: set PGCB_RUST_SRC"
# shellcheck source=adapters/rust/toolchain.sh
. "$src/toolchain.sh" || rl_fail "rust release.sh: no rustup cargo (~/.cargo/bin) to build $RL_CLIENT@$RL_RELEASE"

crate=$RL_TMP/crate
mkdir -p "$crate"
cp -R "$src/src" "$src/standalone" "$src/versions.rs" "$src/Cargo.toml" "$src/Cargo.lock" "$crate/"
home=$(cd "$RL_HERE" && pwd)/cargo-home
[ -d "$home" ] || home=$(cd "$src/../.." && pwd)/build/adapters/rust/cargo-home
mkdir -p "$home"
log=$RL_TMP/.cargo.log
cargo_in() { env CARGO_HOME="$home" RUSTC="$rustc" PATH="$bindir:$PATH" "$cargo" "$@" --manifest-path "$crate/Cargo.toml"; }
# cargo's reason, in one line: its first "error" line and the line after
# ("failed to select a version for the requirement `sqlx = "=9.9.9"`" ...).
why() { grep -m1 -A1 -E '^error' "$log" | tr '\n' ' ' | sed -E 's/ +/ /g; s/ $//'; }

if [ -n "$RL_PINNED" ]; then
    if [ ! -f "$RL_PINNED/Cargo.lock" ] || [ ! -f "$RL_PINNED/Cargo.toml" ]; then
        rl_fail "rust release.sh: $RL_PINNED must hold Cargo.toml and Cargo.lock"
    fi
    cp "$RL_PINNED/Cargo.toml" "$RL_PINNED/Cargo.lock" "$crate/"
    how="the committed lock of releases/$RL_CLIENT@$RL_RELEASE"
else
    # The client's requirement: "=RELEASE" (the line `NAME = { version = "..."`).
    sed -i -E "s/^($RL_CLIENT = \\{ version = )\"[^\"]*\"/\\1\"=$RL_RELEASE\"/" "$crate/Cargo.toml"
    grep -q "^$RL_CLIENT = { version = \"=$RL_RELEASE\"" "$crate/Cargo.toml" ||
        rl_fail "rust release.sh: no line '$RL_CLIENT = { version = ...' in $src/Cargo.toml"
    if [ "$RL_CLIENT" = tokio-postgres ]; then
        sed -i -E 's/^(deadpool-postgres = \{ version = )"[^"]*"/\1">=0.10, <0.15"/' "$crate/Cargo.toml"
    fi
    how="cargo update -p $RL_CLIENT --precise $RL_RELEASE"
    # Not a version crates.io has (cargo's answer in $log): exit 2.
    no_such() {
        if grep -qE 'did not match any versions|failed to select a version for the requirement `'"$RL_CLIENT"' = "='"$RL_RELEASE"'"`' "$log"; then
            rl_unknown "crates.io ($how): $(why)"
        fi
    }
    if ! cargo_in update -p "$RL_CLIENT" --precise "$RL_RELEASE" >"$log" 2>&1; then
        cat "$log" >&2
        no_such
        # Another crate's requirement stands in the way: the whole lock again.
        how="cargo update (after $how failed)"
        if ! cargo_in update >"$log" 2>&1; then
            cat "$log" >&2
            no_such
            rl_fail "crates.io: $RL_CLIENT@$RL_RELEASE: $(why)"
        fi
    fi
fi
cp "$crate/Cargo.lock" "$RL_TMP/Cargo.lock"

# One build at a time in the shared target directory; the binaries copied out under the lock.
target=$(dirname "$RL_DEST")/rust-target
exec 8>"$target.lock" || rl_fail "cannot open $target.lock"
flock 8 || rl_fail "cannot lock $target.lock"
if ! PGCB_RUST_SRC=$crate PGCB_CARGO_HOME=$home PGCB_CARGO_TARGET=$target PGCB_RUST_BINS=pgcb-adapter-rust \
    "$src/build.sh" --online "$RL_TMP" >"$log" 2>&1; then
    cat "$log" >&2
    rl_fail "rust release.sh: $RL_CLIENT@$RL_RELEASE ($how) does not build: $(why)"
fi
exec 8>&-
mv "$RL_TMP/pgcb-adapter-rust" "$RL_TMP/adapter"
rm -f "$log"
rl_commit
