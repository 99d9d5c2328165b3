// client_null.go -- the "null" client: no server, no I/O. Like
// drivers/null, a statement yields the rows of the benchmark table,
// n per execution from the last whole-word "LIMIT <digits>" in its SQL
// (else option rows, default 1): row i (1-based) is (int32 i, int32 1337,
// "wat", nil, false), columns typed int4, int4, text, text, bool. The rows
// are built once per statement; every batch folds them through the same
// code as pgx's rows. It measures what the bridge and Go cost.
// Parameters are accepted and ignored; begin and commit run nothing.
// A pool (connect with "pool": P) is a channel of P tokens: a query of a
// load takes one (waiting, as a real pool's users do, when all P are out),
// folds the statement's rows with its goroutine's folder and gives it back;
// fail_after counts those queries as it counts batches.
package main

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
)

func init() {
	clients["null"] = func(opts map[string]string, _ *string) (client, *failure) { return newNullClient(opts) }
}

// nullMaxRows bounds the rows of a statement (they are kept in memory:
// about 120 bytes a row).
const nullMaxRows = 1000000

type nullClient struct {
	rows      uint64 // option rows: per execution without a LIMIT
	failAfter uint64 // option fail_after: batches that succeed; 0 = all
	hangAfter uint64 // option hang_after: a load's queries answered; 0 = all
	batchesOK uint64
	loadOK    uint64
	tokens    chan int // the no-I/O pool, or nil
}

func parseCount(key, v string) (uint64, *failure) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n > nullMaxRows && key == "rows" {
		return 0, &failure{kind: "config", msg: fmt.Sprintf("null: %s = %q: want a count from 0 to %d", key, v, uint64(nullMaxRows))}
	}
	return n, nil
}

func newNullClient(opts map[string]string) (client, *failure) {
	if f := checkOptions("null", opts, "rows", "fail_after", "hang_after"); f != nil {
		return nil, f
	}
	c := &nullClient{rows: 1}
	var f *failure
	if v, ok := opts["rows"]; ok {
		if c.rows, f = parseCount("rows", v); f != nil {
			return nil, f
		}
	}
	if v, ok := opts["fail_after"]; ok {
		if c.failAfter, f = parseCount("fail_after", v); f != nil {
			return nil, f
		}
	}
	if v, ok := opts["hang_after"]; ok {
		if c.hangAfter, f = parseCount("hang_after", v); f != nil {
			return nil, f
		}
	}
	return c, nil
}

func (c *nullClient) info() helloInfo {
	return helloInfo{
		client:        "null",
		clientVersion: adapterVersion,
		links:         fmt.Sprintf("null (no I/O: benchmark rows built in Go); %s, GOMAXPROCS %d", goVersion(), runtime.GOMAXPROCS(0)),
		noIO:          true,
		load:          true,
	}
}

func (c *nullClient) connect(_ *connRequest, pool int) *failure {
	if pool > 0 {
		c.tokens = make(chan int, pool)
		for k := 0; k < pool; k++ {
			c.tokens <- k
		}
	}
	return nil
}

func (c *nullClient) hold() *failure { return nil }
func (c *nullClient) unhold()        {}

func (c *nullClient) refusal(*statement, []interface{}) *failure {
	return &failure{kind: "query", sqlstate: "08P01", msg: "null client: a wrong count of parameters"}
}

func (c *nullClient) query(st *statement, _ [][]interface{}) loadQuery {
	rows := st.rows
	ncols := len(st.columns)
	return func(f *folder, i int) (uint64, uint32, *failure) {
		t := <-c.tokens
		if c.hangAfter > 0 && atomic.AddUint64(&c.loadOK, 1) > c.hangAfter {
			select {} // never answered: a pool connection broken without an error
		}
		if c.failAfter > 0 && atomic.AddUint64(&c.batchesOK, 1) > c.failAfter {
			c.tokens <- t
			return 0, 0, &failure{kind: "query", sqlstate: "XX000", msg: "null client: injected failure"}
		}
		f.start(ncols)
		for _, row := range rows {
			f.row(row)
		}
		h := f.finish(fnvOffset, ncols)
		c.tokens <- t
		return uint64(len(rows)), h, nil
	}
}

func isWordChar(ch byte) bool {
	return ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' || ch >= '0' && ch <= '9' ||
		ch == '_' || ch >= 0x80
}

func isSpace(ch byte) bool { return ch == ' ' || ch >= '\t' && ch <= '\r' }

// findLimit is the number of the last whole-word "LIMIT <digits>" in sql,
// as drivers/null finds it; ok false if there is none.
func findLimit(sql string) (digits string, ok bool) {
	for p := 0; p+5 <= len(sql); p++ {
		if !strings.EqualFold(sql[p:p+5], "limit") || p > 0 && isWordChar(sql[p-1]) {
			continue
		}
		q := p + 5
		if q >= len(sql) || !isSpace(sql[q]) {
			continue
		}
		for q < len(sql) && isSpace(sql[q]) {
			q++
		}
		d := q
		for q < len(sql) && sql[q] >= '0' && sql[q] <= '9' {
			q++
		}
		if q == d || q < len(sql) && isWordChar(sql[q]) {
			continue
		}
		digits, ok = sql[d:q], true
	}
	return digits, ok
}

var nullColumns = []column{
	{"id", 23}, {"int_value", 23}, {"string_value", 25}, {"null_value", 25}, {"bool_value", 16},
}

func (c *nullClient) prepare(st *statement) *failure {
	n := c.rows
	if d, ok := findLimit(st.sql); ok {
		v, err := strconv.ParseUint(d, 10, 64)
		if err != nil || v > nullMaxRows {
			return &failure{kind: "unsupported", msg: fmt.Sprintf("null: LIMIT %s is above %d rows", d, uint64(nullMaxRows))}
		}
		n = v
	}
	st.rows = make([][]interface{}, n)
	for i := range st.rows {
		st.rows[i] = []interface{}{int32(i + 1), int32(1337), "wat", nil, false}
	}
	st.columns = nullColumns
	st.ncols = len(nullColumns)
	st.serverParams = -1
	return nil
}

func (c *nullClient) runBatch(p *plan, i int) (uint64, uint32, *failure) {
	if c.failAfter > 0 && c.batchesOK >= c.failAfter {
		return 0, 0, &failure{kind: "query", sqlstate: "XX000", msg: "null client: injected failure"}
	}
	h := fnvOffset
	rows := p.stmt.rows
	ncols := len(p.stmt.columns)
	for k := 0; k < p.depth; k++ {
		p.fold.start(ncols)
		for _, row := range rows {
			p.fold.row(row)
		}
		h = p.fold.finish(h, ncols)
		if p.dump {
			p.results = append(p.results, result{columns: p.stmt.columns, rows: rows})
		}
	}
	c.batchesOK++
	return uint64(p.depth) * uint64(len(rows)), h, nil
}

func (c *nullClient) dumpValue(b []byte, v interface{}, _ uint32) []byte {
	return appendValue(b, v, nil)
}

func (c *nullClient) close() {}
