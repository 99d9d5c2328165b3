#!/usr/bin/env bash
# pgcb-test: plain build only: the page's scripts and the browser are the same in every build
# The HTML report in a real browser (tests/report/report_page.js: its header
# says what it checks): the pages aggregate --html writes from the fixtures
# in tests/aggregate/, and the page runner --html writes from a short run on
# the test server (conf/quick.ini's libpq_sync, rawwire and floor, two queries). Needs node,
# playwright-core (build/report/node_modules) and Debian's chromium, which
# scripts/install-deps.sh installs: missing is a failure, never a skip.
#           tests/server/report_page.sh BUILD_DIR [SCREENSHOT.png]
set -euo pipefail
(($# >= 1 && $# <= 2)) || { printf 'usage: %s BUILD_DIR [SCREENSHOT.png]\n' "$0" >&2; exit 2; }
root=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")/../.." && pwd)
build=$(cd -- "$1" && pwd)
command -v node >/dev/null 2>&1 || { printf 'report_page: FAIL: node not found (scripts/install-deps.sh installs it)\n' >&2; exit 1; }
command -v chromium >/dev/null 2>&1 || [[ -n ${PGCB_CHROMIUM:-} ]] \
    || { printf 'report_page: FAIL: chromium not found: install the Debian package chromium (scripts/install-deps.sh does)\n' >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# conf/quick.ini cut down to three drivers, two groups and a tiny budget.
"$build/runner" -c "$root/conf/quick.ini" --only libpq_sync,rawwire,floor --suite sequential \
    --query limit_1,limit_100 --time-ms 40 --queries 20 -q -o "$tmp/run.json" --html "$tmp/run.html" 2>"$tmp/runner.err" \
    || { printf 'report_page: FAIL: runner --html failed:\n' >&2; cat "$tmp/runner.err" >&2; exit 1; }
[[ -s $tmp/run.html ]] || { printf 'report_page: FAIL: runner --html wrote no page\n' >&2; exit 1; }
PGCB_REPORT_RUNNER_PAGE=$tmp/run.html PGCB_REPORT_RUNNER_JSON=$tmp/run.json \
    node "$root/tests/report/report_page.js" "$build" ${2:+"$2"}
