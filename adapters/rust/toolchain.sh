# shellcheck shell=sh
# adapters/rust/toolchain.sh -- sourced by install.sh, build.sh and
# release.sh: rustup's toolchain (cargo 1.95 here), never Debian's.
# Sets $cargo, $rustc and $bindir (their directory, put first on PATH where
# cargo runs rustfmt, cargo-clippy or rustc). CARGO overrides; else cargo on
# PATH unless it is Debian's /usr/bin/cargo; else ~/.cargo/bin/cargo (where
# rustup puts it, as for root on this machine and in CI). Missing: one line
# and exit 1.
cargo=${CARGO:-$(command -v cargo 2>/dev/null || true)}
if [ -z "$cargo" ] || [ "$cargo" = /usr/bin/cargo ]; then
    cargo=${HOME:-/root}/.cargo/bin/cargo
fi
if [ ! -x "$cargo" ]; then
    echo "$(basename "$0"): no rustup cargo (none on PATH but Debian's, none in ~/.cargo/bin): install Rust with rustup (https://rustup.rs)" >&2
    exit 1
fi
bindir=$(dirname "$cargo")
rustc=${RUSTC:-$bindir/rustc}
[ -x "$rustc" ] || { echo "$(basename "$0"): $rustc not found beside $cargo" >&2; exit 1; }
