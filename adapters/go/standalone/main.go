// pgcb-standalone-go -- one Go client, pgx or lib/pq, timed in the
// tightest plain loop Go allows, outside pgclientbench: no benchmark
// library, no bridge. scripts/compare-standalone.sh runs it before and after
// the runner measures the same client through the bridge, on the same
// server, query and pinning, to show that the bridge adds nothing to what it
// measures. It shares only the query text with the adapter (adapters/go/,
// its own main package: nothing of the adapter is compiled in): each client
// is set up here with its public API the way the adapter's client file sets
// it up for its default options (docs/clients.md).
//
// pgx (adapters/go/client_pgx.go, pipeline=yes): one *pgx.Conn from
// pgx.ConnectConfig of a keyword=value string (connect); the statement
// prepared with conn.Prepare(ctx, name, sql) and run by name (prepare);
// runBatch and consume: DEPTH 1, conn.Query and rows.Values() for every
// row (pgx's default conversion: binary format for the types pgx knows);
// DEPTH > 1, a new pgx.Batch of the DEPTH queries, conn.SendBatch (one
// write, one Sync), each result read in order with br.Query(), then
// br.Close().
//
// pq (adapters/go/client_pq.go, default options; pq.go here): lib/pq
// through database/sql: sql.OpenDB of pq.NewConnector(the keyword=value
// string, the password in it), SetMaxOpenConns(1), SetMaxIdleConns(1), no
// lifetime or idle limit, the one connection opened and pinged before the
// statement is prepared with db.PrepareContext(ctx, sql) (an *sql.Stmt);
// every batch DEPTH executions one after another (lib/pq runs one query at
// a time), each stmt.QueryContext(ctx), rows.Next() and rows.Scan() of
// every row into typed values chosen once from the first result's column
// types as the adapter chooses them (sql.Null[int32] for an int4,
// sql.Null[string] for a text, sql.Null[bool] for a bool ...), rows.Close()
// and rows.Err(). lib/pq asks binary results for int2/4/8, bytea and uuid,
// text for the rest.
//
// Both: the PG* variables removed from the environment once the connection
// string is built, as the adapter's clearPGEnv does.
//
//	pgcb-standalone-go pgx|pq DEPTH TIME_MS SQL
//
// Built by adapters/go/build.sh OUT standalone (module mode, offline, from
// the adapter's go.mod and the module cache install.sh filled, the module
// versions set with -ldflags -X as for the adapter: main.pgxVersion,
// main.pqVersion); make builds it into build/adapters/go/pgcb-standalone-go.
// CLIENT: pgx or pq. DEPTH: executions per batch (>= 1). TIME_MS: how long
// the timed loop runs. Connection: PGHOST (a socket directory; default
// /var/run/postgresql), PGPORT (default 5432), PGUSER, PGDATABASE,
// PGPASSWORD if set (else PGPASSFILE, or the client's own ~/.pgpass), PGSSLMODE if
// set (else disable, what the bridge hands the adapter for a connection
// without TLS). One priming batch, runtime.GC(), then an untimed warm-up of
// 1 s and at least 200 batches (no collection between it and the timed
// loop), then batches for TIME_MS: one time.Now() (monotonic) per batch, the
// end of one is the start of the next, each sample stored in a preallocated
// array (outside Go's heap: sampleStore), every row consumed with the public
// benchmark's consume() (every value read, the sum checked: 1340 a row of
// benchmark_rows). The process's CPU time (getrusage RUSAGE_SELF: every
// thread, the collector's included) is read just before the first batch and
// just after the last. Prints one JSON line: client, depth, batches,
// median_ns, mean_ns, p90_ns, cpu_ns_per_query, sink, links (the client's
// and Go's versions, as the adapter's hello says them: pgx v5 is one module,
// pgconn, pgtype and pgproto3 its packages; lib/pq through database/sql).
// Bad arguments: a usage line, exit 2; a failure: one line, exit 1.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unsafe"

	"github.com/jackc/pgx/v5"
)

// The version of pgx compiled in, set by build.sh with -ldflags -X
// ("unknown" if built otherwise).
var pgxVersion = "unknown"

const (
	prog     = "pgcb-standalone-go"
	usage    = "usage: pgcb-standalone-go pgx|pq DEPTH TIME_MS SQL"
	stmtName = "standalone"
	capacity = 1 << 22 // samples at most, as the Node.js script
)

// clientName is the client measured (pgx or pq), for fail's messages.
var clientName = "pgx"

func fail(format string, args ...interface{}) {
	msg := strings.Join(strings.Fields(fmt.Sprintf(format, args...)), " ")
	fmt.Fprintf(os.Stderr, "%s: %s: %s\n", prog, clientName, msg)
	os.Exit(1)
}

// cpuNS is the process's CPU time (user + system, all threads).
func cpuNS() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		fail("getrusage: %v", err)
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// dsnValue quotes a value for a keyword=value connection string.
func dsnValue(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// connInfo is the keyword=value connection string of the PG* variables
// (without the password, returned apart: no quoting to get wrong), which
// it then removes from the environment (so that the client adds nothing
// of its own).
func connInfo() (dsn string, password string, hasPassword bool) {
	get := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return def
	}
	var b strings.Builder
	add := func(k, v string) {
		if v == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "=" + dsnValue(v))
	}
	add("host", get("PGHOST", "/var/run/postgresql"))
	add("port", get("PGPORT", "5432"))
	add("user", get("PGUSER", ""))
	add("dbname", get("PGDATABASE", ""))
	add("sslmode", get("PGSSLMODE", "disable"))
	password, hasPassword = os.LookupEnv("PGPASSWORD")
	if !hasPassword {
		add("passfile", get("PGPASSFILE", ""))
	}
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "PG") {
			os.Unsetenv(k)
		}
	}
	return b.String(), password, hasPassword
}

// connect opens pgx's connection from the PG* variables (connInfo).
func connect(ctx context.Context) *pgx.Conn {
	dsn, password, hasPassword := connInfo()
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		fail("%v", err)
	}
	if hasPassword {
		cfg.Password = password // not through the string: no quoting to get wrong
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		fail("%v", err)
	}
	return conn
}

// Positions of benchmark_rows' columns in the result, from their names.
var iInt, iStr, iNull, iBool int

func bindColumns(names []string) {
	pos := func(name string) int {
		for j, n := range names {
			if n == name {
				return j
			}
		}
		fail("the query's columns %s are not benchmark_rows' (int_value, string_value, null_value, bool_value)",
			strings.Join(names, ", "))
		return -1
	}
	iInt, iStr, iNull, iBool = pos("int_value"), pos("string_value"), pos("null_value"), pos("bool_value")
}

// integer is an integer value as rows.Values() gives it, nil as 0.
func integer(v interface{}) (int64, bool) {
	switch x := v.(type) {
	case int32:
		return int64(x), true
	case int64:
		return x, true
	case int16:
		return int64(x), true
	case nil:
		return 0, true
	}
	return 0, false
}

var sink int64

// consume is the public benchmark's consume() on pgx's rows: every value
// of every row (rows.Values(), as the adapter's consume), the sum checked;
// it closes rows. (lib/pq's: pqScanner.consume, pq.go.)
func consume(rows pgx.Rows) error {
	var sum, n int64
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return err
		}
		iv, ok1 := integer(vals[iInt])
		sv, ok2 := vals[iStr].(string)
		nv, ok3 := integer(vals[iNull])
		bv, ok4 := vals[iBool].(bool)
		if !ok1 || !ok2 || !ok3 || !ok4 {
			rows.Close()
			return fmt.Errorf("unexpected values %T %T %T %T", vals[iInt], vals[iStr], vals[iNull], vals[iBool])
		}
		sum += iv
		sum += int64(len(sv))
		sum += nv
		if bv {
			sum++
		}
		n++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	return settle(n, sum)
}

// settle checks a result's sum (1340 a row of benchmark_rows: the public
// benchmark's consume()) and keeps it in the sink, for either client.
func settle(n, sum int64) error {
	if 1340*n != sum {
		return fmt.Errorf("unexpected sum %d for %d rows", sum, n)
	}
	sink += sum
	return nil
}

// sampleStore is the preallocated sample array, outside Go's heap (an
// anonymous mapping, as Node.js keeps a Float64Array's store outside V8's):
// 32 MiB of live heap would raise the collector's heap goal and so make it
// run less often in the timed loop than in the adapter, whose sample slices
// are those of a 10 ms block.
func sampleStore() []int64 {
	mem, err := syscall.Mmap(-1, 0, capacity*8, syscall.PROT_READ|syscall.PROT_WRITE,
		syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		fail("mmap of the samples: %v", err)
	}
	return unsafe.Slice((*int64)(unsafe.Pointer(&mem[0])), capacity)
}

type output struct {
	Client        string `json:"client"`
	Depth         int    `json:"depth"`
	Batches       int    `json:"batches"`
	MedianNS      int64  `json:"median_ns"`
	MeanNS        int64  `json:"mean_ns"`
	P90NS         int64  `json:"p90_ns"`
	CPUNSPerQuery int64  `json:"cpu_ns_per_query"`
	Sink          bool   `json:"sink"`
	Links         string `json:"links"`
}

// pgxSetup connects, prepares and returns pgx's batch of depth executions
// and what closes the connection.
func pgxSetup(ctx context.Context, depth int, sql string) (batch func() error, done func()) {
	conn := connect(ctx)
	sd, err := conn.Prepare(ctx, stmtName, sql)
	if err != nil {
		fail("%v", err)
	}
	names := make([]string, len(sd.Fields))
	for j := range sd.Fields {
		names[j] = sd.Fields[j].Name
	}
	bindColumns(names)

	if depth == 1 {
		batch = func() error {
			rows, err := conn.Query(ctx, stmtName)
			if err != nil {
				rows.Close()
				return err
			}
			return consume(rows)
		}
	} else {
		batch = func() error {
			b := &pgx.Batch{}
			for k := 0; k < depth; k++ {
				b.Queue(stmtName)
			}
			br := conn.SendBatch(ctx, b)
			for k := 0; k < depth; k++ {
				rows, err := br.Query()
				if err != nil {
					rows.Close()
					br.Close()
					return err
				}
				if err := consume(rows); err != nil {
					br.Close()
					return err
				}
			}
			return br.Close()
		}
	}
	return batch, func() { conn.Close(ctx) }
}

// As the adapter's hello says it (pgxClient.info, pipeline=yes).
func pgxLinks() string {
	return fmt.Sprintf("pgx %s (its pgconn, pgtype, pgproto3; pure Go; binary format for the types pgx knows; "+
		"depth > 1 as one pgx.Batch (SendBatch)); Go %s",
		pgxVersion, strings.TrimPrefix(runtime.Version(), "go"))
}

func main() {
	args := os.Args[1:]
	if len(args) != 4 || (args[0] != "pgx" && args[0] != "pq") || args[3] == "" {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	depth, err1 := strconv.Atoi(args[1])
	timeMs, err2 := strconv.ParseFloat(args[2], 64)
	if err1 != nil || err2 != nil || depth < 1 || !(timeMs > 0) || math.IsInf(timeMs, 1) {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	sql := args[3]
	clientName = args[0]

	ctx := context.Background()
	var batch func() error
	var done func()
	var links string
	if clientName == "pq" {
		batch, done = pqSetup(ctx, depth, sql)
		links = pqLinks()
	} else {
		batch, done = pgxSetup(ctx, depth, sql)
		links = pgxLinks()
	}

	// Priming, then a collection, then the warm-up: 1 s and at least 200
	// batches.
	if err := batch(); err != nil {
		fail("%v", err)
	}
	runtime.GC()
	warmUntil := time.Now().Add(time.Second)
	for i := 0; i < 200 || time.Now().Before(warmUntil); i++ {
		if err := batch(); err != nil {
			fail("%v", err)
		}
	}

	samples := sampleStore()
	n := 0
	cpu0 := cpuNS()
	stop := time.Now().Add(time.Duration(math.Round(timeMs * 1e6)))
	t0 := time.Now()
	for {
		if err := batch(); err != nil {
			fail("%v", err)
		}
		t1 := time.Now()
		samples[n] = int64(t1.Sub(t0))
		n++
		t0 = t1
		if !t1.Before(stop) || n == capacity {
			break
		}
	}
	cpu1 := cpuNS()
	done()

	s := samples[:n]
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	var median float64
	if n%2 == 1 {
		median = float64(s[n/2])
	} else {
		median = float64(s[n/2-1]+s[n/2]) / 2
	}
	var total float64
	for _, v := range s {
		total += float64(v)
	}
	p90 := s[int(math.Min(float64(n-1), math.Floor(0.9*float64(n))))]
	round := func(x float64) int64 { return int64(math.Floor(x + 0.5)) } // JavaScript's Math.round
	// One line; ">" as is, not \u003e.
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(output{
		Client: clientName, Depth: depth, Batches: n, MedianNS: round(median), MeanNS: round(total / float64(n)),
		P90NS: p90, CPUNSPerQuery: round(float64(cpu1-cpu0) / float64(n*depth)), Sink: sink > 0,
		Links: links,
	}); err != nil {
		fail("%v", err)
	}
}
