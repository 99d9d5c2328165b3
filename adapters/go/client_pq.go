// client_pq.go -- the "pq" client: github.com/lib/pq through database/sql,
// as Go code that does not use pgx calls PostgreSQL. One *sql.DB from
// sql.OpenDB(pq connector) of exactly the connect request's settings, with
// SetMaxOpenConns(1) (one connection) or SetMaxOpenConns(P) for a pool
// (concurrency suites: sql.DB is the pool its users have). Statements:
// db.PrepareContext(ctx, sql), an *sql.Stmt; every execution
// stmt.QueryContext(ctx, args...), then rows.Next() and rows.Scan() of every
// row into typed Go values chosen once per statement from the result's
// column types (rows.ColumnTypes(), the first time: sql.Null[int32] for an
// int4, sql.Null[string] for a text, []byte for a bytea, sql.Null[time.Time]
// for a timestamp, pq.Array of []sql.NullInt64 for an int4[] ...: the
// struct fields a Go program scans into), folded as pgx's values are.
// lib/pq runs one query at a time on a connection: a batch of depth > 1 is
// depth queries one after another (hello pipeline: false).
//
// On the wire (hello's "wire", checked by tests/server/test_wire_claims.c):
// db.Prepare is lib/pq's conn.Prepare: Parse of a named statement ("1",
// "2" ... per connection), Describe statement and Sync, once; each
// execution is Bind (result formats: binary for bytea, int2, int4, int8 and
// uuid, the types lib/pq decodes in binary, text for the rest; all text
// with result_format text, lib/pq's disable_prepared_binary_result),
// Execute and Sync: no Describe per execution. database/sql prepares an
// *sql.Stmt again on each pool connection it first runs on there (in a
// load's warm-up).
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"runtime"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/lib/pq"
	"github.com/lib/pq/oid"
)

// pqVersion is lib/pq's version, set by build.sh with -ldflags -X from
// `go list -m` ("unknown" if built otherwise).
var pqVersion = "unknown"

func init() { clients["pq"] = newPqClient }

type pqClient struct {
	db     *sql.DB
	ctx    context.Context
	text   bool // result_format text: disable_prepared_binary_result
	pool   int
	oidOf  map[string]uint32 // lib/pq's type names -> OIDs
	conn   *countingConnector
	opened int64 // connections open after connect: more later is a lost one replaced
}

// countingConnector is lib/pq's connector, counting the connections
// database/sql opens: database/sql replaces a broken pool connection
// (lib/pq's driver.ErrBadConn, a terminated backend) without a word and
// retries the query on a new one, which a load must report (kind io:
// docs/bridge-protocol.md, "load").
type countingConnector struct {
	driver.Connector
	n atomic.Int64
}

func (c *countingConnector) Connect(ctx context.Context) (driver.Conn, error) {
	c.n.Add(1)
	return c.Connector.Connect(ctx)
}

// pqStmt is a statement's *sql.Stmt and, once its first result was seen,
// the scanner of a run (loads: one per goroutine, in its folder).
type pqStmt struct {
	st   *sql.Stmt
	scan *pqScanner
}

func newPqClient(opts map[string]string, resultFormat *string) (client, *failure) {
	if f := checkOptions("pq", opts); f != nil {
		return nil, f
	}
	c := &pqClient{ctx: context.Background(), oidOf: map[string]uint32{}}
	c.text = resultFormat != nil && *resultFormat == "text"
	for o, n := range oid.TypeName {
		c.oidOf[n] = uint32(o)
	}
	return c, nil
}

func (c *pqClient) info() helloInfo {
	format, how := "binary", "binary for int2/4/8, bytea, uuid"
	if c.text {
		format, how = "text", "text results"
	}
	return helloInfo{
		client:        "pq",
		clientVersion: pqVersion,
		links: fmt.Sprintf("lib/pq %s (pure Go, through database/sql; %s; rows.Scan into typed values; one query at a time; pools: sql.DB); %s, GOMAXPROCS %d",
			pqVersion, how, goVersion(), runtime.GOMAXPROCS(0)),
		pipeline: false,
		load:     true,
		wire:     &wireInfo{resultFormat: format, describe: "once", sync: "per_query", statements: "named"},
	}
}

func (c *pqClient) connect(r *connRequest, pool int) *failure {
	if r == nil {
		return &failure{kind: "protocol", msg: "pq: connect without conn"}
	}
	if r.Password != nil {
		secret = *r.Password
	}
	clearPGEnv()
	// Through the string, which every lib/pq release parses (its Config
	// struct is 1.11's): the password quoted as any value.
	var extra []string
	if r.Password != nil {
		extra = append(extra, "password", *r.Password)
	}
	if c.text {
		extra = append(extra, "disable_prepared_binary_result", "yes")
	}
	pc, err := pq.NewConnector(connString(r, extra...))
	if err != nil {
		return &failure{kind: "connect", msg: "pq: " + err.Error()}
	}
	c.conn = &countingConnector{Connector: pc}
	n := pool
	if n == 0 {
		n = 1
	}
	db := sql.OpenDB(c.conn)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	db.SetConnMaxLifetime(0) // reused forever
	db.SetConnMaxIdleTime(0)
	c.db, c.pool = db, pool
	// Open all n now: hold n connections at once, then give them back.
	held := make([]*sql.Conn, 0, n)
	defer func() {
		for _, h := range held {
			h.Close()
		}
	}()
	for k := 0; k < n; k++ {
		h, err := db.Conn(c.ctx)
		if err != nil {
			return &failure{kind: "connect", msg: "pq: " + err.Error()}
		}
		held = append(held, h)
		if err := h.PingContext(c.ctx); err != nil {
			return &failure{kind: "connect", msg: "pq: " + err.Error()}
		}
	}
	c.opened = c.conn.n.Load()
	return nil
}

func (c *pqClient) prepare(st *statement) *failure {
	s, err := c.db.PrepareContext(c.ctx, st.sql)
	if err != nil {
		return c.fail(err)
	}
	st.impl = &pqStmt{st: s}
	// The server's count of parameters is lib/pq's statement's, which
	// database/sql checks every execution against (pqCount): any here.
	st.serverParams = -1
	return nil
}

// expected is database/sql's refusal of a count of arguments other than
// the driver statement's (lib/pq's: the server's count).
var expected = regexp.MustCompile(`^sql: expected (\d+) arguments?, got (\d+)$`)

// fail classifies an error and makes the connection usable again where it
// can (an aborted transaction rolled back). A broken connection is kind
// io; the server's refusal kind query with its SQLSTATE; database/sql's
// refusal of a count of parameters the server's 08P01, as its message says
// (database/sql checks the count before lib/pq sends anything, so the
// server never sees it); anything else lib/pq refused protocol.
func (c *pqClient) fail(err error) *failure {
	if m := expected.FindStringSubmatch(err.Error()); m != nil {
		return &failure{kind: "query", sqlstate: "08P01", msg: fmt.Sprintf("bind message supplies %s parameters, but prepared statement requires %s (refused by the adapter: database/sql checks the count against lib/pq's statement, so lib/pq cannot send it)", m[2], m[1])}
	}
	var pe *pq.Error
	isPg := errors.As(err, &pe)
	if broken(err) || isPg && goneCode(string(pe.Code)) {
		return &failure{kind: "io", msg: err.Error()}
	}
	if isPg {
		if c.pool == 0 {
			// An error in a transaction (begin/commit) leaves it aborted:
			// ROLLBACK on the one connection (a no-op warning outside one).
			if _, rerr := c.db.ExecContext(c.ctx, "ROLLBACK"); rerr != nil {
				kind := "protocol"
				if broken(rerr) {
					kind = "io"
				}
				return &failure{kind: kind, msg: err.Error() + "; then ROLLBACK: " + rerr.Error()}
			}
		}
		return &failure{kind: "query", sqlstate: string(pe.Code), msg: pe.Message}
	}
	return &failure{kind: "protocol", msg: "pq: " + err.Error()}
}

// broken: the connection is gone (lib/pq's ErrBadConn, an I/O error).
func broken(err error) bool {
	var ne net.Error
	return errors.Is(err, driver.ErrBadConn) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, sql.ErrConnDone) || errors.As(err, &ne)
}

// goneCode: the server ended the connection (admin_shutdown,
// crash_shutdown, cannot_connect_now).
func goneCode(code string) bool {
	return code == "57P01" || code == "57P02" || code == "57P03"
}

// pqCol is how one result column is scanned and delivered.
type pqCol struct {
	dest interface{}        // what rows.Scan fills
	get  func() interface{} // the value delivered (nil for NULL)
}

// pqScanner is one statement's scan destinations, made from its columns'
// types once, and the row they make.
type pqScanner struct {
	cols  []pqCol
	dests []interface{}
	vals  []interface{}
	oids  []uint32
	names []string
}

func nullOf[T any]() pqCol {
	v := &sql.Null[T]{}
	return pqCol{dest: v, get: func() interface{} {
		if !v.Valid {
			return nil
		}
		return v.V
	}}
}

// arrayOf scans an array with pq.Array into a slice of E (sql.NullInt64
// ...), delivered as []interface{} of the elements (nil for NULL).
func arrayOf[E any](val func(*E) interface{}) pqCol {
	var a []E
	arr := pq.Array(&a)
	null := true
	return pqCol{dest: scanFunc(func(src interface{}) error {
		a, null = a[:0], src == nil
		if null {
			return nil
		}
		return arr.(sql.Scanner).Scan(src)
	}), get: func() interface{} {
		if null {
			return nil
		}
		out := make([]interface{}, len(a))
		for i := range a {
			out[i] = val(&a[i])
		}
		return out
	}}
}

// scanFunc is an sql.Scanner made of a function.
type scanFunc func(src interface{}) error

func (f scanFunc) Scan(src interface{}) error { return f(src) }

func (c *pqClient) newScanner(rows *sql.Rows) (*pqScanner, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	s := &pqScanner{cols: make([]pqCol, len(cts)), dests: make([]interface{}, len(cts)),
		vals: make([]interface{}, len(cts)), oids: make([]uint32, len(cts)), names: make([]string, len(cts))}
	for j, ct := range cts {
		name := ct.DatabaseTypeName()
		s.oids[j], s.names[j] = c.oidOf[name], ct.Name()
		var col pqCol
		switch name {
		case "INT2":
			col = nullOf[int16]()
		case "INT4":
			col = nullOf[int32]()
		case "INT8":
			col = nullOf[int64]()
		case "OID":
			col = nullOf[uint32]()
		case "FLOAT4":
			col = nullOf[float32]()
		case "FLOAT8":
			col = nullOf[float64]()
		case "BOOL":
			col = nullOf[bool]()
		case "DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIME", "TIMETZ":
			col = nullOf[time.Time]()
		case "BYTEA":
			var b []byte
			col = pqCol{dest: &b, get: func() interface{} {
				if b == nil {
					return nil
				}
				return b
			}}
		case "_INT2", "_INT4", "_INT8":
			col = arrayOf(func(e *sql.NullInt64) interface{} {
				if !e.Valid {
					return nil
				}
				return e.Int64
			})
		case "_FLOAT4", "_FLOAT8":
			col = arrayOf(func(e *sql.NullFloat64) interface{} {
				if !e.Valid {
					return nil
				}
				return e.Float64
			})
		case "_BOOL":
			col = arrayOf(func(e *sql.NullBool) interface{} {
				if !e.Valid {
					return nil
				}
				return e.Bool
			})
		case "_TEXT", "_VARCHAR", "_BPCHAR", "_NAME":
			col = arrayOf(func(e *sql.NullString) interface{} {
				if !e.Valid {
					return nil
				}
				return e.String
			})
		default: // text, varchar, numeric, uuid, json, interval ...: a string
			col = nullOf[string]()
		}
		s.cols[j], s.dests[j] = col, col.dest
	}
	return s, nil
}

// row scans the current row and returns its values (reused: valid until
// the next row).
func (s *pqScanner) row(rows *sql.Rows) ([]interface{}, error) {
	if err := rows.Scan(s.dests...); err != nil {
		return nil, err
	}
	for j := range s.cols {
		s.vals[j] = s.cols[j].get()
	}
	return s.vals, nil
}

// foldQuery runs one execution of ps with args and folds its rows with f
// into h; *scan is the scanner (made at the first result); rec, if not
// nil, receives the result for a dump.
func (c *pqClient) foldQuery(ps *pqStmt, scan **pqScanner, args []interface{}, f *folder, h uint32, rec *[]result) (uint32, uint32, error) {
	rows, err := ps.st.QueryContext(c.ctx, args...)
	if err != nil {
		return h, 0, err
	}
	if *scan == nil {
		if *scan, err = c.newScanner(rows); err != nil {
			rows.Close()
			return h, 0, err
		}
	}
	s := *scan
	ncols := len(s.cols)
	f.start(ncols)
	var r *result
	if rec != nil {
		*rec = append(*rec, result{columns: make([]column, ncols)})
		r = &(*rec)[len(*rec)-1]
		for j := range s.oids {
			r.columns[j] = column{name: s.names[j], oid: s.oids[j]}
		}
	}
	for rows.Next() {
		vals, err := s.row(rows)
		if err != nil {
			rows.Close()
			return h, 0, err
		}
		f.row(vals)
		if r != nil {
			r.rows = append(r.rows, append([]interface{}{}, vals...))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, 0, err
	}
	return f.finish(h, ncols), f.nrows, nil
}

func (c *pqClient) runBatch(p *plan, i int) (uint64, uint32, *failure) {
	ps := p.stmt.impl.(*pqStmt)
	h := fnvOffset
	var total uint64
	if p.begin != nil {
		if _, err := p.begin.impl.(*pqStmt).st.ExecContext(c.ctx); err != nil {
			return 0, 0, c.fail(err)
		}
	}
	var rec *[]result
	if p.dump {
		rec = &p.results
	}
	for k := 0; k < p.depth; k++ {
		var n uint32
		var err error
		h, n, err = c.foldQuery(ps, &ps.scan, p.argsFor(i, k), &p.fold, h, rec)
		if err != nil {
			return 0, 0, c.fail(err)
		}
		total += uint64(n)
	}
	if p.commit != nil {
		if _, err := p.commit.impl.(*pqStmt).st.ExecContext(c.ctx); err != nil {
			return 0, 0, c.fail(err)
		}
	}
	return total, h, nil
}

// hold: a run on a pool goes through the pool as a load's query does
// (database/sql picks an idle connection per execution).
func (c *pqClient) hold() *failure { return nil }
func (c *pqClient) unhold()        {}

// query is a load's query i: stmt.QueryContext (database/sql takes a pool
// connection, and gives it back at rows.Close), the rows scanned and
// folded with the goroutine's folder (its scanner kept in the folder).
func (c *pqClient) query(st *statement, args [][]interface{}) loadQuery {
	ps := st.impl.(*pqStmt)
	return func(f *folder, i int) (uint64, uint32, *failure) {
		var a []interface{}
		if args != nil {
			a = args[i]
		}
		scan, _ := f.scratch.(*pqScanner)
		h, n, err := c.foldQuery(ps, &scan, a, f, fnvOffset, nil)
		f.scratch = scan
		if err != nil {
			return 0, 0, c.fail(err)
		}
		if k := c.conn.n.Load() - c.opened; k > 0 {
			return 0, 0, &failure{kind: "io", msg: fmt.Sprintf("%d pool connection(s) lost: database/sql replaced them with new ones (lib/pq: driver.ErrBadConn)", k)}
		}
		return uint64(n), h, nil
	}
}

// refusal: a load's query whose count of parameters is not the
// statement's is refused by database/sql before anything is sent.
func (c *pqClient) refusal(st *statement, args []interface{}) *failure {
	_, _, err := c.foldQuery(st.impl.(*pqStmt), new(*pqScanner), args, &folder{}, fnvOffset, nil)
	if err == nil {
		return &failure{kind: "protocol", msg: "pq: the statement accepted " + strconv.Itoa(len(args)) + " parameters"}
	}
	return c.fail(err)
}

func (c *pqClient) dumpValue(b []byte, v interface{}, oid uint32) []byte {
	switch x := v.(type) {
	case time.Time:
		if oid == oidTime {
			return appendOther(b, clockText(int64(x.Hour())*3600000000+int64(x.Minute())*60000000+
				int64(x.Second())*1000000+int64(x.Nanosecond()/1000)), v)
		}
		return appendOther(b, timeText(x, oid), v)
	case []interface{}:
		return appendElems(b, len(x), func(b []byte, i int) []byte { return appendValue(b, x[i], nil) })
	}
	return appendValue(b, v, nil)
}

func (c *pqClient) close() {
	if c.db != nil {
		c.db.Close()
		c.db = nil
	}
}
