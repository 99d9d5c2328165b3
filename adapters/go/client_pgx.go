// client_pgx.go -- the "pgx" client: github.com/jackc/pgx/v4, one
// *pgx.Conn. Statements are prepared with conn.Prepare(ctx, name, sql) and
// run by name (pgx looks the name up in its prepared statements). Depth 1:
// conn.Query, then rows.Values() for every row: pgx's default conversion
// into Go values (binary format for the types pgx knows, text otherwise).
// Depth > 1: a pgx.Batch of the depth queries, sent with conn.SendBatch
// (one write, one Sync: pgx's pipelining), the results read in order.
// Option pipeline=no runs depth > 1 as depth conn.Query calls instead.
//
// Result format: binary for the types pgx knows, text for the rest, always
// (hello's result_format is not honoured): that is what pgx asks for, and
// its batch API (SendBatch) cannot ask for anything else in v4, so a text
// run marks pgx as not like for like instead of running it through code of
// ours.
//
// On the wire (hello's "wire", checked by tests/server/test_wire_claims.c):
// pgconn's ExecPrepared and Batch.ExecPrepared send Bind, Describe portal,
// Execute for every execution (execExtendedSuffix); a batch of depth > 1 is
// one pgconn.Batch with one Sync, a depth 1 batch or pipeline=no a Sync per
// query; the statement is named (conn.Prepare), parsed once.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/jackc/pgconn"
	"github.com/jackc/pgtype"
	"github.com/jackc/pgx/v4"
)

type pgxClient struct {
	pipeline bool
	conn     *pgx.Conn
	ctx      context.Context
}

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
		links: fmt.Sprintf("pgx %s (pgconn %s, pgtype %s, pgproto3 %s; pure Go; binary format for the types pgx knows; %s); %s",
			pgxVersion, pgconnVersion, pgtypeVersion, pgproto3Version, how, goVersion()),
		pipeline: c.pipeline,
		wire:     &wireInfo{resultFormat: "binary", describe: "per_execution", sync: sync, statements: "named"},
	}
}

// dsnValue quotes a value for a keyword=value connection string.
func dsnValue(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// clearPGEnv removes the libpq variables from the environment: the bridge
// resolved them already, and pgconn would otherwise add what they say
// (PGSSLMODE, PGSERVICE, PGCONNECT_TIMEOUT ...) to the settings given.
func clearPGEnv() {
	for _, kv := range os.Environ() {
		k := kv
		if i := strings.IndexByte(kv, '='); i >= 0 {
			k = kv[:i]
		}
		if strings.HasPrefix(k, "PG") && !strings.HasPrefix(k, "PGCB_") {
			os.Unsetenv(k)
		}
	}
}

func (c *pgxClient) connect(r *connRequest) *failure {
	if r == nil {
		return &failure{kind: "protocol", msg: "pgx: connect without conn"}
	}
	if r.Password != nil {
		secret = *r.Password
	}
	clearPGEnv()
	sslmode := r.SSLMode
	if sslmode == "" {
		sslmode = "disable"
	}
	var dsn strings.Builder
	add := func(k, v string) {
		if dsn.Len() > 0 {
			dsn.WriteByte(' ')
		}
		dsn.WriteString(k + "=" + dsnValue(v))
	}
	add("host", r.Host)
	add("port", r.Port)
	add("user", r.User)
	add("dbname", r.DBName)
	add("sslmode", sslmode)
	if r.ApplicationName != nil {
		add("application_name", *r.ApplicationName)
	}
	if r.Options != nil {
		add("options", *r.Options)
	}
	cfg, err := pgx.ParseConfig(dsn.String())
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

func (c *pgxClient) prepare(st *statement) *failure {
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
	vals := make([][]byte, len(args))
	for j, a := range args {
		if s, ok := a.(string); ok {
			vals[j] = []byte(s)
		}
	}
	_, err := c.conn.PgConn().ExecPrepared(c.ctx, p.stmt.name, vals, nil, nil).Close()
	if err == nil {
		err = fmt.Errorf("the server accepted %d parameters for a statement of %d", len(args), p.stmt.serverParams)
	}
	return c.fail(err)
}

// fail classifies an error and makes the connection usable again where it
// can: an aborted transaction is rolled back. A broken connection is kind
// io; the server's refusal kind query with its SQLSTATE; anything else
// pgx refused (a value it cannot decode, a count of arguments) protocol.
func (c *pgxClient) fail(err error) *failure {
	var pe *pgconn.PgError
	isPg := errors.As(err, &pe)
	if c.conn.IsClosed() {
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
			rec.columns[j] = column{name: string(fds[j].Name), oid: fds[j].DataTypeOID}
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

func (c *pgxClient) connInfo() *pgtype.ConnInfo {
	if c.conn != nil {
		return c.conn.ConnInfo()
	}
	return pgtype.NewConnInfo()
}

func (c *pgxClient) close() {
	if c.conn != nil {
		c.conn.Close(c.ctx)
		c.conn = nil
	}
}
