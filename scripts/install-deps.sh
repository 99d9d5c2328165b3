#!/usr/bin/env bash
# Install the Debian packages the project needs that are missing.
# Quiet no-op when everything is installed. Never prompts: as root it runs
# apt-get directly; otherwise through sudo (without a password prompt when
# there is no terminal); without sudo it prints the command to run and fails.
set -euo pipefail

prog=install-deps.sh
pkgs=(
    build-essential pkg-config libpq-dev libinih-dev libjansson-dev libssl-dev
    libcmocka-dev postgresql postgresql-client valgrind shellcheck clang git jq
)
# make lint: Debian's docker-compose (checks docker/docker-compose.yml) and
# Node.js with npm (the workflow linters). Only when the command is missing:
# a Node.js from elsewhere (NodeSource, CI images) bundles its own npm, which
# Debian's npm package would conflict with.
command -v docker-compose >/dev/null 2>&1 || pkgs+=(docker-compose)
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

missing=()
for p in "${pkgs[@]}"; do
    [[ -n ${installed[$p]:-} ]] || missing+=("$p")
done
((${#missing[@]})) || exit 0

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
