# shellcheck shell=sh disable=SC2034
# adapters/go/release-src.sh -- sourced by release.sh and install.sh: the Go
# toolchain, and the sources of the adapter built for one client's release.
#
#   gr_go                      sets GO: $GO, else /usr/local/go/bin/go, else go
#   gr_client CLIENT RELEASE   sets GR_MODULE (the client's Go module),
#                              GR_FILES (its files, relative to the source
#                              directory) and GR_FLAGS (the -X versions to
#                              read with `go list -m`, as VAR=MODULE words);
#                              returns 1 for a client or release it cannot
#                              build (GR_WHY says why)
#   gr_assemble SRC DIR        copies the adapter's common files of SRC (the
#                              checkout's adapters/go) and GR_FILES into DIR
#
# A release binary holds the common files (frames, fold, dump, run, load,
# conninfo, main and the null client) and that one client's: pgx v5's
# client_pgx.go + pgx_values.go + pgx_stream.go, pgx v4's _pgxv4/ (the
# adapter's pgx client before pgx v5, in a directory the go command skips;
# without the stream request: its hello says stream: false), or
# client_pq.go + pq_stream.go.

gr_go() {
    GO=${GO:-}
    if [ -z "$GO" ]; then
        if [ -x /usr/local/go/bin/go ]; then GO=/usr/local/go/bin/go; else GO=go; fi
    fi
}

gr_client() {
    GR_WHY=
    case $1 in
    pgx)
        case ${2#v} in
        4.*)
            GR_MODULE=github.com/jackc/pgx/v4
            GR_FILES="_pgxv4/client_pgx.go _pgxv4/pgx_values.go"
            GR_FLAGS="pgxVersion=github.com/jackc/pgx/v4 pgconnVersion=github.com/jackc/pgconn"
            GR_FLAGS="$GR_FLAGS pgtypeVersion=github.com/jackc/pgtype pgproto3Version=github.com/jackc/pgproto3/v2"
            ;;
        5.*)
            GR_MODULE=github.com/jackc/pgx/v5
            GR_FILES="client_pgx.go pgx_values.go pgx_stream.go"
            GR_FLAGS="pgxVersion=github.com/jackc/pgx/v5 puddleVersion=github.com/jackc/puddle/v2"
            ;;
        *)
            GR_WHY="pgx@$2: the go adapter builds pgx releases v4.x.y and v5.x.y"
            return 1
            ;;
        esac
        ;;
    pq)
        GR_MODULE=github.com/lib/pq
        GR_FILES="client_pq.go pq_stream.go"
        GR_FLAGS=pqVersion=github.com/lib/pq
        ;;
    *)
        GR_WHY="$1 is not a client of the go adapter (pgx, pq)"
        return 1
        ;;
    esac
}

gr_assemble() {
    for f in "$1"/*.go; do
        case ${f##*/} in
        client_pgx.go | pgx_values.go | pgx_stream.go | client_pq.go | pq_stream.go | *_test.go) ;;
        *) cp "$f" "$2/" ;;
        esac
    done
    for f in $GR_FILES; do
        cp "$1/$f" "$2/"
    done
}
