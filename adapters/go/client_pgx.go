// client_pgx.go -- the "pgx" client: github.com/jackc/pgx/v5, one
// *pgx.Conn (pgxpool for loads). Statements are prepared with
// conn.Prepare(ctx, name, sql) and run by name (pgx looks the name up in
// its prepared statements). Depth 1: conn.Query, then rows.Values() for
// every row: pgx's default conversion into Go values (binary format for
// the types pgx knows, text otherwise). Depth > 1: a pgx.Batch of the
// depth queries, sent with conn.SendBatch (one write, one Sync: pgx's
// pipelining), the results read in order. Option pipeline=no runs depth > 1
// as depth conn.Query calls instead.
//
// Result format: binary for the types pgx knows, text for the rest, always
// (hello's result_format is not honoured): that is what pgx asks for, and
// its batch API cannot ask for anything else (v5's SendBatch reads only a
// QueryRewriter from a queued query's arguments, not QueryResultFormats,
// which conn.Query alone honours), so a text run marks pgx as not like for
// like instead of running its batches through code of ours.
//
// On the wire (hello's "wire", checked by tests/server/test_wire_claims.c):
// the statement is named (conn.Prepare: Parse and Describe statement once);
// pgconn's ExecStatement (conn.Query) and Pipeline.SendQueryStatement
// (SendBatch) send Bind and Execute only, with the statement's description
// (a Describe portal only for a statement without result columns); a batch
// of depth > 1 is one pipeline with one Sync, a depth 1 batch or
// pipeline=no a Sync per query. pgx v4's client is _pgxv4/ (release.sh).
package main

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Versions of the modules compiled in, set by build.sh (and release.sh)
// with -ldflags -X from `go list -m` ("unknown" if built otherwise). pgx v5
// is one module: pgconn, pgtype and pgproto3 are its packages.
var (
	pgxVersion    = "unknown"
	puddleVersion = "unknown"
)

func init() { clients["pgx"] = newPgxClient }

type pgxClient struct {
	pipeline bool
	conn     *pgx.Conn // the connection, or the pool's a run holds
	ctx      context.Context
	pool     *pgxpool.Pool
	held     *pgxpool.Conn
	stmts    []*statement // prepared on every pool connection
}

// never: a pool connection's lifetime and idle time, beyond any run.
const never = time.Duration(1<<63 - 1)

func newPgxClient(opts map[string]string, resultFormat *string) (client, *failure) {
	_ = resultFormat // not honoured: see the top of this file
	if f := checkOptions("pgx", opts, "pipeline"); f != nil {
		return nil, f
	}
	c := &pgxClient{pipeline: true, ctx: context.Background()}
	if v, ok := opts["pipeline"]; ok {
		switch strings.ToLower(v) {
		case "yes", "on", "true", "1":
			c.pipeline = true
		case "no", "off", "false", "0":
			c.pipeline = false
		default:
			return nil, &failure{kind: "config", msg: fmt.Sprintf("pgx: pipeline = %q: say yes or no", v)}
		}
	}
	return c, nil
}

func (c *pgxClient) info() helloInfo {
	how := "depth > 1 as one pgx.Batch (SendBatch)"
	if !c.pipeline {
		how = "depth > 1 one query at a time"
	}
	sync := "per_batch"
	if !c.pipeline {
		sync = "per_query"
	}
	return helloInfo{
		client:        "pgx",
		clientVersion: pgxVersion,
		links: fmt.Sprintf("pgx %s (its pgconn, pgtype, pgproto3; pure Go; binary format for the types pgx knows; %s; pools: pgxpool, puddle %s); %s, GOMAXPROCS %d",
			pgxVersion, how, puddleVersion, goVersion(), runtime.GOMAXPROCS(0)),
		pipeline: c.pipeline,
		load:     true,
		wire:     &wireInfo{resultFormat: "binary", describe: "once", sync: sync, statements: "named"},
	}
}

func (c *pgxClient) connect(r *connRequest, pool int) *failure {
	if r == nil {
		return &failure{kind: "protocol", msg: "pgx: connect without conn"}
	}
	if r.Password != nil {
		secret = *r.Password
	}
	clearPGEnv()
	dsn := connString(r)
	if pool > 0 {
		return c.connectPool(dsn, r, pool)
	}
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return &failure{kind: "connect", msg: "pgx: " + err.Error()}
	}
	if r.Password != nil {
		cfg.Password = *r.Password // not through the string: no quoting to get wrong
	}
	conn, err := pgx.ConnectConfig(c.ctx, cfg)
	if err != nil {
		return &failure{kind: "connect", msg: err.Error()}
	}
	c.conn = conn
	return nil
}

func (c *pgxClient) connectPool(dsn string, r *connRequest, n int) *failure {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return &failure{kind: "connect", msg: "pgxpool: " + err.Error()}
	}
	if r.Password != nil {
		cfg.ConnConfig.Password = *r.Password
	}
	cfg.MinConns, cfg.MaxConns = int32(n), int32(n)
	cfg.MaxConnLifetime, cfg.MaxConnIdleTime = never, never
	cfg.AfterConnect = func(ctx context.Context, conn *pgx.Conn) error {
		for _, st := range c.stmts {
			if _, err := conn.Prepare(ctx, st.name, st.sql); err != nil {
				return err
			}
		}
		return nil
	}
	pool, err := pgxpool.NewWithConfig(c.ctx, cfg)
	if err != nil {
		return &failure{kind: "connect", msg: err.Error()}
	}
	c.pool = pool
	conns, f := c.acquireAll()
	for _, pc := range conns {
		pc.Release()
	}
	if f != nil {
		return &failure{kind: "connect", msg: f.msg}
	}
	if got := pool.Stat().TotalConns(); got != int32(n) {
		return &failure{kind: "connect", msg: fmt.Sprintf("pgxpool: %d of %d connections open", got, n)}
	}
	return nil
}

// acquireAll holds every connection of the pool (the caller releases them).
func (c *pgxClient) acquireAll() ([]*pgxpool.Conn, *failure) {
	n := int(c.pool.Config().MaxConns)
	conns := make([]*pgxpool.Conn, 0, n)
	for k := 0; k < n; k++ {
		pc, err := c.pool.Acquire(c.ctx)
		if err != nil {
			return conns, &failure{kind: "io", msg: "pgxpool: acquire: " + err.Error()}
		}
		conns = append(conns, pc)
	}
	return conns, nil
}

func (c *pgxClient) hold() *failure {
	pc, err := c.pool.Acquire(c.ctx)
	if err != nil {
		return &failure{kind: "io", msg: "pgxpool: acquire: " + err.Error()}
	}
	c.held, c.conn = pc, pc.Conn()
	return nil
}

func (c *pgxClient) unhold() {
	if c.held != nil {
		c.held.Release()
		c.held, c.conn = nil, nil
	}
}

func (c *pgxClient) prepare(st *statement) *failure {
	if c.pool != nil {
		conns, f := c.acquireAll()
		defer func() {
			for _, pc := range conns {
				pc.Release()
			}
		}()
		if f != nil {
			return f
		}
		for _, pc := range conns {
			c.conn = pc.Conn()
			if f := c.prepareOn(st); f != nil {
				c.conn = nil
				return f
			}
		}
		c.conn = nil
		c.stmts = append(c.stmts, st)
		return nil
	}
	return c.prepareOn(st)
}

func (c *pgxClient) prepareOn(st *statement) *failure {
	sd, err := c.conn.Prepare(c.ctx, st.name, st.sql)
	if err != nil {
		return c.fail(err)
	}
	st.ncols = len(sd.Fields)
	st.serverParams = len(sd.ParamOIDs)
	return nil
}

// refuse runs the plan's execution with a count of parameters other than
// the statement's. pgx would refuse it itself, without a word to the
// server ("expected 2 arguments, got 1"); the C drivers send it and the
// server refuses it (08P01). So it goes through pgconn, pgx's own protocol
// layer, as the text values it is, and the server's refusal is reported.
func (c *pgxClient) refuse(p *plan) *failure {
	var args []interface{}
	if p.args != nil {
		args = p.args[p.badExec]
	}
	return c.refuseArgs(p.stmt, args)
}

func (c *pgxClient) refuseArgs(st *statement, args []interface{}) *failure {
	vals := make([][]byte, len(args))
	for j, a := range args {
		if s, ok := a.(string); ok {
			vals[j] = []byte(s)
		}
	}
	_, err := c.conn.PgConn().ExecPrepared(c.ctx, st.name, vals, nil, nil).Close()
	if err == nil {
		err = fmt.Errorf("the server accepted %d parameters for a statement of %d", len(args), st.serverParams)
	}
	return c.fail(err)
}

// refusal: the server's refusal of a load's query with args (a count of
// parameters other than st's), on one of the pool's connections.
func (c *pgxClient) refusal(st *statement, args []interface{}) *failure {
	if f := c.hold(); f != nil {
		return f
	}
	defer c.unhold()
	return c.refuseArgs(st, args)
}

// gone: the server ended the connection (admin_shutdown, crash_shutdown,
// cannot_connect_now).
func gone(pe *pgconn.PgError) bool {
	return pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
}

// query is a load's query i: Acquire, Query by name, fold, Release.
func (c *pgxClient) query(st *statement, args [][]interface{}) loadQuery {
	pool, ctx, name := c.pool, c.ctx, st.name
	return func(f *folder, i int) (uint64, uint32, *failure) {
		pc, err := pool.Acquire(ctx)
		if err != nil {
			return 0, 0, &failure{kind: "io", msg: "pgxpool: acquire: " + err.Error()}
		}
		var a []interface{}
		if args != nil {
			a = args[i]
		}
		conn := pc.Conn()
		rows, err := conn.Query(ctx, name, a...)
		var h, n uint32
		if err == nil {
			h, n, err = foldRows(f, rows, fnvOffset)
		} else {
			rows.Close()
		}
		if err != nil {
			ff := loadFailure(conn, err)
			pc.Release()
			return 0, 0, ff
		}
		pc.Release()
		return uint64(n), h, nil
	}
}

// loadFailure classifies a load query's error on conn: a connection the
// server ended or that broke is kind io, naming its server process; the
// server's refusal kind query (autocommit: no transaction is left open);
// anything else pgx refused protocol.
func loadFailure(conn *pgx.Conn, err error) *failure {
	var pe *pgconn.PgError
	isPg := errors.As(err, &pe)
	if isPg && gone(pe) || conn.IsClosed() {
		return &failure{kind: "io", msg: fmt.Sprintf("pool connection to server process %d: %s", conn.PgConn().PID(), err.Error())}
	}
	if isPg {
		return &failure{kind: "query", sqlstate: pe.Code, msg: pe.Message}
	}
	return &failure{kind: "protocol", msg: "pgx: " + err.Error()}
}

// foldRows reads one result completely, converting every value with
// rows.Values() and folding it with f into h; it closes rows.
func foldRows(f *folder, rows pgx.Rows, h uint32) (uint32, uint32, error) {
	ncols := len(rows.FieldDescriptions())
	f.start(ncols)
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return h, 0, err
		}
		f.row(vals)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, 0, err
	}
	return f.finish(h, ncols), f.nrows, nil
}

// fail classifies an error and makes the connection usable again where it
// can: an aborted transaction is rolled back. A broken connection is kind
// io; the server's refusal kind query with its SQLSTATE; anything else
// pgx refused (a value it cannot decode, a count of arguments) protocol.
func (c *pgxClient) fail(err error) *failure {
	var pe *pgconn.PgError
	isPg := errors.As(err, &pe)
	if c.conn.IsClosed() || isPg && gone(pe) {
		return &failure{kind: "io", msg: err.Error()}
	}
	if c.conn.PgConn().TxStatus() != 'I' {
		if _, rerr := c.conn.Exec(c.ctx, "ROLLBACK"); rerr != nil {
			if c.conn.IsClosed() {
				return &failure{kind: "io", msg: err.Error() + "; then ROLLBACK: " + rerr.Error()}
			}
			return &failure{kind: "protocol", msg: err.Error() + "; then ROLLBACK: " + rerr.Error()}
		}
	}
	if isPg {
		return &failure{kind: "query", sqlstate: pe.Code, msg: pe.Message}
	}
	return &failure{kind: "protocol", msg: "pgx: " + err.Error()}
}

// consume reads one result completely, converting every value with
// rows.Values() and folding it into the batch's fold h; it closes rows.
// Returns the new fold and the rows read.
func (c *pgxClient) consume(p *plan, rows pgx.Rows, h uint32) (uint32, uint32, error) {
	fds := rows.FieldDescriptions()
	ncols := len(fds)
	p.fold.start(ncols)
	var rec *result
	if p.dump {
		// Now: the descriptions' names alias pgx's read buffer.
		p.results = append(p.results, result{columns: make([]column, ncols)})
		rec = &p.results[len(p.results)-1]
		for j := range fds {
			rec.columns[j] = column{name: fds[j].Name, oid: fds[j].DataTypeOID}
		}
	}
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			rows.Close()
			return h, 0, err
		}
		p.fold.row(vals)
		if rec != nil {
			rec.rows = append(rec.rows, retain(vals))
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return h, 0, err
	}
	return p.fold.finish(h, ncols), p.fold.nrows, nil
}

func (c *pgxClient) runBatch(p *plan, i int) (uint64, uint32, *failure) {
	ctx, conn := c.ctx, c.conn
	h := fnvOffset
	var total uint64
	if i == p.badBatch {
		return 0, 0, c.refuse(p)
	}
	if p.begin != nil {
		if _, err := conn.Exec(ctx, p.begin.name); err != nil {
			return 0, 0, c.fail(err)
		}
	}
	if p.depth == 1 || !c.pipeline {
		for k := 0; k < p.depth; k++ {
			rows, err := conn.Query(ctx, p.stmt.name, p.argsFor(i, k)...)
			if err != nil {
				rows.Close()
				return 0, 0, c.fail(err)
			}
			var n uint32
			h, n, err = c.consume(p, rows, h)
			if err != nil {
				return 0, 0, c.fail(err)
			}
			total += uint64(n)
		}
	} else {
		b := &pgx.Batch{}
		for k := 0; k < p.depth; k++ {
			b.Queue(p.stmt.name, p.argsFor(i, k)...)
		}
		br := conn.SendBatch(ctx, b)
		for k := 0; k < p.depth; k++ {
			rows, err := br.Query()
			if err != nil {
				rows.Close()
				br.Close()
				return 0, 0, c.fail(err)
			}
			var n uint32
			h, n, err = c.consume(p, rows, h)
			if err != nil {
				br.Close()
				return 0, 0, c.fail(err)
			}
			total += uint64(n)
		}
		if err := br.Close(); err != nil {
			return 0, 0, c.fail(err)
		}
	}
	if p.commit != nil {
		if _, err := conn.Exec(ctx, p.commit.name); err != nil {
			return 0, 0, c.fail(err)
		}
	}
	return total, h, nil
}

func (c *pgxClient) dumpValue(b []byte, v interface{}, oid uint32) []byte {
	m := pgtype.NewMap()
	if c.conn != nil {
		m = c.conn.TypeMap()
	}
	return appendPgx(b, v, oid, m)
}

func (c *pgxClient) close() {
	c.unhold()
	if c.pool != nil {
		c.pool.Close()
		c.pool = nil
	}
	if c.conn != nil {
		c.conn.Close(c.ctx)
		c.conn = nil
	}
}
