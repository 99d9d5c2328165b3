// pgcb-adapter-go -- the Go adapter of pgclientbench's bridge driver
// (docs/bridge-protocol.md, protocol 1). Clients: "pgx" (github.com/
// jackc/pgx/v5, one *pgx.Conn, pgxpool for loads), "pq" (github.com/lib/pq
// through database/sql) and "null" (no I/O: the benchmark table's rows
// built in Go). Build: adapters/go/build.sh, in module mode against the
// modules adapters/go/install.sh downloaded (README.md beside it).
//
// Files: frames.go (frames, requests, the JSON writer), fold.go (the
// fold), dump.go (dumps), run.go (a block of batches, timed), load.go
// (a timed load over a pool), stream.go (one whole result, buffered or
// streamed, timed), client_pgx.go with pgx_values.go and pgx_stream.go,
// client_pq.go with pq_stream.go, and client_null.go (the clients),
// main.go (the requests, in order). Each client registers itself
// (clients, below), so that a release build (release.sh) compiles the
// common files with one client's only: _pgxv4/ holds the pgx v4 client (a
// directory the go command skips), built by release.sh for client =
// pgx@v4.x.y.
//
// GOMAXPROCS is Go's default, never set here: the number of CPUs in the
// process's affinity mask when it starts (the bridge starts it from the
// measuring thread, so with that thread's; 1 when it is pinned to one CPU),
// and hello's links say it.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

const (
	protocolVersion = 1
	adapterVersion  = "1.0.0"
)

// clients are the client libraries compiled in, by hello's name: each
// client file adds its own in an init().
var clients = map[string]func(opts map[string]string, resultFormat *string) (client, *failure){}

// goVersion is the runtime's version, "Go 1.26.8".
func goVersion() string {
	return "Go " + strings.TrimPrefix(runtime.Version(), "go")
}

// helloInfo is the client-dependent part of the hello reply.
type helloInfo struct {
	client, clientVersion, links string
	pipeline, noIO               bool
	// load: connect with a pool and the load request (pooled below).
	load bool
	// wire: hello's "wire", what the client really sends the server
	// (docs/bridge-protocol.md); nil: nothing to say (no I/O).
	wire *wireInfo
}

// wireInfo is hello's "wire" object: result_format text | binary, describe
// per_execution | once, sync per_query | per_batch, statements named |
// unnamed (checked on the wire by tests/server/test_wire_claims.c).
type wireInfo struct {
	resultFormat, describe, sync, statements string
}

// client is one client library behind the protocol.
type client interface {
	info() helloInfo
	// connect opens one connection (pool 0) or the client's pool of `pool`
	// connections, all open before it returns.
	connect(c *connRequest, pool int) *failure
	// prepare makes st ready (a named prepared statement) and sets st.ncols.
	prepare(st *statement) *failure
	// runBatch runs batch i of the plan: its rows, its fold, or a failure
	// after which (kind query) the connection is usable.
	runBatch(p *plan, i int) (uint64, uint32, *failure)
	// dumpValue encodes one delivered value of a column of type oid for a
	// dump (dump.go).
	dumpValue(b []byte, v interface{}, oid uint32) []byte
	close()
}

// pooled is what a client with a pool (hello load: true) adds.
type pooled interface {
	// hold takes one of the pool's connections for a run's batches, outside
	// the timing; unhold gives it back after the reply is written.
	hold() *failure
	unhold()
	// query is how query i of a load of st runs (args nil, or per query).
	query(st *statement, args [][]interface{}) loadQuery
	// refusal is the failure of query k, whose count of parameters is not
	// the statement's (the server's, as run reports it).
	refusal(st *statement, args []interface{}) *failure
}

// statement is one prepared statement, by the bridge's number.
type statement struct {
	name, sql string
	nparams   int // as the bridge said
	ncols     int // result columns as prepared (sizes the fold)
	// serverParams: the parameters the server says the statement takes;
	// -1: any count (the null client ignores them).
	serverParams int
	rows         [][]interface{} // null client: the rows of one execution
	columns      []column        // null client: their columns
	impl         interface{}     // the client's own (pq: its *sql.Stmt)
}

// adapter is the state of the one connection this process serves.
type adapter struct {
	ch        *channel
	cl        client
	connected bool
	pool      int // connect's pool size; 0: one connection
	stmts     map[int]*statement
}

// secret is the connection's password, never to appear in a reply.
var secret string

func scrub(s string) string {
	if secret != "" && strings.Contains(s, secret) {
		s = strings.ReplaceAll(s, secret, "***")
	}
	return s
}

func main() {
	fd := 3
	if s := os.Getenv("PGCB_BRIDGE_FD"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n >= 0 {
			fd = n
		}
	}
	a := &adapter{ch: openChannel(fd), stmts: map[int]*statement{}}
	for {
		payload, err := a.ch.read()
		if err != nil {
			if err != errEOF {
				fmt.Fprintln(os.Stderr, "pgcb-adapter-go:", err)
			}
			a.shutdown()
			os.Exit(0) // end of file on fd 3: the bridge is gone
		}
		w := newJW()
		exit := a.handle(payload, w)
		if err := a.ch.write(w); err != nil {
			fmt.Fprintln(os.Stderr, "pgcb-adapter-go: cannot write a reply:", err)
			a.shutdown()
			os.Exit(1)
		}
		if exit {
			os.Exit(0)
		}
	}
}

func (a *adapter) shutdown() {
	if a.cl != nil {
		a.cl.close()
	}
}

// handle answers one request into w; true: exit after sending it.
func (a *adapter) handle(payload []byte, w *jw) bool {
	rq, err := decodeRequest(payload)
	if err != nil {
		w.failure(&failure{kind: "protocol", msg: "request is not a JSON object: " + err.Error()})
		w.finish()
		return false
	}
	if rq.Op != "hello" && rq.Op != "close" && a.cl == nil {
		w.failure(&failure{kind: "protocol", msg: fmt.Sprintf("%q before hello", rq.Op)})
		w.finish()
		return false
	}
	var f *failure
	exit := false
	switch rq.Op {
	case "hello":
		f = a.hello(rq, w)
	case "connect":
		f = a.connect(rq, w)
	case "prepare":
		f = a.prepare(rq, w)
	case "run":
		f = a.run(rq, w) // writes its own failure (with the completed batches)
	case "load":
		f = a.load(rq, w) // likewise
	case "stream":
		f = a.stream(rq, w) // likewise
	case "phase":
		// Garbage is collected before a group's warm-up only, never right
		// before an execution order: each order runs in the state the
		// warm-up left (docs/bridge-protocol.md, "phase").
		collect := rq.Phase == "warmup"
		if collect {
			runtime.GC()
		}
		w.boolean("ok", true)
		w.boolean("gc", collect)
	case "close":
		a.shutdown()
		a.cl = nil
		w.boolean("ok", true)
		exit = true
	default:
		f = &failure{kind: "protocol", msg: fmt.Sprintf("unknown request %q", rq.Op)}
	}
	if f != nil {
		w.failure(f)
	}
	w.finish()
	return exit
}

func (a *adapter) hello(rq *request, w *jw) *failure {
	if a.cl != nil {
		return &failure{kind: "protocol", msg: "a second hello"}
	}
	if rq.Protocol == nil || *rq.Protocol != protocolVersion {
		v := "none"
		if rq.Protocol != nil {
			v = strconv.Itoa(*rq.Protocol)
		}
		return &failure{kind: "unsupported", msg: "the Go adapter speaks bridge protocol 1, not " + v}
	}
	opts := map[string]string{}
	for k, v := range rq.Options {
		switch x := v.(type) {
		case string:
			opts[k] = x
		default:
			opts[k] = fmt.Sprint(x)
		}
	}
	if rq.ResultFormat != nil && *rq.ResultFormat != "text" && *rq.ResultFormat != "binary" {
		return &failure{kind: "protocol", msg: fmt.Sprintf("hello: result_format must be \"text\" or \"binary\", not %q", *rq.ResultFormat)}
	}
	mk := clients[rq.Client]
	if mk == nil {
		var names []string
		for n := range clients {
			names = append(names, n)
		}
		sort.Strings(names)
		return &failure{kind: "config", msg: fmt.Sprintf("unknown client %q: the Go adapter knows %s", rq.Client, strings.Join(names, ", "))}
	}
	cl, f := mk(opts, rq.ResultFormat)
	if f != nil {
		return f
	}
	a.cl = cl
	in := cl.info()
	w.boolean("ok", true)
	w.int("protocol", protocolVersion)
	w.str("adapter", "go")
	w.str("adapter_version", adapterVersion)
	w.str("runtime", goVersion())
	w.str("client", in.client)
	w.str("client_version", in.clientVersion)
	w.str("links", in.links)
	w.boolean("pipeline", in.pipeline)
	w.boolean("no_io", in.noIO)
	w.boolean("load", in.load)
	_, streams := cl.(streamer) // a client with the stream request (stream.go)
	w.boolean("stream", streams)
	w.str("text_length", "bytes")
	if in.wire != nil {
		w.key("wire")
		o := newJW()
		o.str("result_format", in.wire.resultFormat)
		o.str("describe", in.wire.describe)
		o.str("sync", in.wire.sync)
		o.str("statements", in.wire.statements)
		w.b = append(w.b, o.finish()...)
	}
	return nil
}

// checkOptions rejects option keys a client does not know.
func checkOptions(client string, opts map[string]string, known ...string) *failure {
	var bad []string
	for k := range opts {
		ok := false
		for _, kk := range known {
			ok = ok || k == kk
		}
		if !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return nil
	}
	sort.Strings(bad)
	knows := strings.Join(known, ", ")
	if knows == "" {
		knows = "no options"
	}
	return &failure{kind: "config", msg: fmt.Sprintf("unknown option %q for client %s: it knows %s", bad[0], client, knows)}
}

func (a *adapter) connect(rq *request, w *jw) *failure {
	if a.connected {
		return &failure{kind: "protocol", msg: "a second connect"}
	}
	pool := 0
	if rq.Pool != nil {
		if *rq.Pool < 1 {
			return &failure{kind: "protocol", msg: fmt.Sprintf("connect: pool must be >= 1, not %d", *rq.Pool)}
		}
		if !a.cl.info().load {
			return &failure{kind: "unsupported", msg: "this client has no pool (hello said load: false)"}
		}
		pool = *rq.Pool
	}
	if f := a.cl.connect(rq.Conn, pool); f != nil {
		return f
	}
	a.connected = true
	a.pool = pool
	w.boolean("ok", true)
	return nil
}

func (a *adapter) prepare(rq *request, w *jw) *failure {
	if !a.connected {
		return &failure{kind: "protocol", msg: "prepare before connect"}
	}
	if rq.Stmt == nil || *rq.Stmt < 0 {
		return &failure{kind: "protocol", msg: "prepare without a stmt number"}
	}
	name := rq.Name
	if name == "" {
		name = "pgcb_go_" + strconv.Itoa(*rq.Stmt)
	}
	st := &statement{name: name, sql: rq.SQL, nparams: rq.Nparams}
	if f := a.cl.prepare(st); f != nil {
		return f
	}
	a.stmts[*rq.Stmt] = st
	w.boolean("ok", true)
	return nil
}
