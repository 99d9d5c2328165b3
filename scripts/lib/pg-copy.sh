# shellcheck shell=bash
# scripts/lib/pg-copy.sh -- sourced by scripts/gate-power.sh and
# tests/server/ab_gate.sh: two module directories of node-postgres for an
# A/B of a bridged client, each the bridge's module_dir.
#
#   pg_module_dirs NODE_MODULES BASE_DIR HEAD_DIR
#       BASE_DIR/node_modules and HEAD_DIR/node_modules get a symbolic link
#       to every package of NODE_MODULES (the adapter's install), and
#       HEAD_DIR's pg is then a copy of the real one, to be planted in
#       (HEAD_DIR/node_modules/pg/lib/...). Returns 1 with a line on stderr
#       when NODE_MODULES has no pg.
pg_module_dirs() {
    local nm=$1 base=$2 head=$3 side p
    [ -d "$nm/pg" ] || { echo "$nm/pg: not installed (scripts/install-deps.sh)" >&2; return 1; }
    for side in "$base" "$head"; do
        mkdir -p "$side/node_modules"
        for p in "$nm"/*; do ln -sfn "$(readlink -f "$p")" "$side/node_modules/"; done
    done
    rm -f "$head/node_modules/pg"
    cp -r "$(readlink -f "$nm/pg")" "$head/node_modules/pg"
}
