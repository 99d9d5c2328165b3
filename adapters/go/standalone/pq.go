// pq.go -- the standalone loop's lib/pq client, through database/sql, set
// up as adapters/go/client_pq.go sets it up for its default options
// (result_format binary: no disable_prepared_binary_result; one
// connection): see main.go's header.
package main

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/lib/pq"
)

// The version of lib/pq compiled in, set by build.sh with -ldflags -X
// ("unknown" if built otherwise).
var pqVersion = "unknown"

// pqSetup opens the one connection, prepares the statement and returns
// lib/pq's batch of depth executions and what closes the statement and the
// connection.
func pqSetup(ctx context.Context, depth int, query string) (batch func() error, done func()) {
	dsn, password, hasPassword := connInfo()
	if hasPassword {
		// In the string, as the adapter gives it (quoted as any value).
		dsn += " password=" + dsnValue(password)
	}
	pc, err := pq.NewConnector(dsn)
	if err != nil {
		fail("%v", err)
	}
	db := sql.OpenDB(pc)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0) // reused forever
	db.SetConnMaxIdleTime(0)
	// Open it now, as the adapter's connect does: hold it, ping, give it back.
	h, err := db.Conn(ctx)
	if err != nil {
		fail("%v", err)
	}
	if err := h.PingContext(ctx); err != nil {
		fail("%v", err)
	}
	h.Close()
	stmt, err := db.PrepareContext(ctx, query)
	if err != nil {
		fail("%v", err)
	}

	// The scanner is made from the first result's column types, as the
	// adapter's foldQuery makes it.
	var scan *pqScanner
	batch = func() error {
		for k := 0; k < depth; k++ {
			rows, err := stmt.QueryContext(ctx)
			if err != nil {
				return err
			}
			if scan == nil {
				if scan, err = newPqScanner(rows); err != nil {
					rows.Close()
					return err
				}
			}
			if err := scan.consume(rows); err != nil {
				return err
			}
		}
		return nil
	}
	return batch, func() {
		stmt.Close()
		db.Close()
	}
}

// As the adapter's hello says it (pqClient.info, default options; the
// standalone has no pool).
func pqLinks() string {
	return fmt.Sprintf("lib/pq %s (pure Go, through database/sql; binary for int2/4/8, bytea, uuid; "+
		"rows.Scan into typed values; one query at a time); Go %s",
		pqVersion, strings.TrimPrefix(runtime.Version(), "go"))
}

// pqScanner is the statement's scan destinations, one per column, of the
// types the adapter's newScanner chooses for the column's type.
type pqScanner struct {
	dests []interface{}
}

func newPqScanner(rows *sql.Rows) (*pqScanner, error) {
	cts, err := rows.ColumnTypes()
	if err != nil {
		return nil, err
	}
	s := &pqScanner{dests: make([]interface{}, len(cts))}
	names := make([]string, len(cts))
	for j, ct := range cts {
		names[j] = ct.Name()
		var d interface{}
		switch name := ct.DatabaseTypeName(); name {
		case "INT2":
			d = &sql.Null[int16]{}
		case "INT4":
			d = &sql.Null[int32]{}
		case "INT8":
			d = &sql.Null[int64]{}
		case "OID":
			d = &sql.Null[uint32]{}
		case "FLOAT4":
			d = &sql.Null[float32]{}
		case "FLOAT8":
			d = &sql.Null[float64]{}
		case "BOOL":
			d = &sql.Null[bool]{}
		case "DATE", "TIMESTAMP", "TIMESTAMPTZ", "TIME", "TIMETZ":
			d = &sql.Null[time.Time]{}
		case "BYTEA":
			d = new([]byte)
		default:
			if strings.HasPrefix(name, "_") {
				// The adapter scans arrays with pq.Array; benchmark_rows has none.
				return nil, fmt.Errorf("column %s: an array (%s), not one of benchmark_rows' types", ct.Name(), name)
			}
			d = &sql.Null[string]{} // text, varchar, numeric, uuid, json ...
		}
		s.dests[j] = d
	}
	bindColumns(names)
	return s, nil
}

// pqInteger is an integer value as scanned, NULL (of any type) as 0.
func pqInteger(d interface{}) (int64, bool) {
	switch x := d.(type) {
	case *sql.Null[int32]:
		return int64(x.V), true // V is 0 when NULL
	case *sql.Null[int64]:
		return x.V, true
	case *sql.Null[int16]:
		return int64(x.V), true
	case driver.Valuer:
		v, err := x.Value()
		return 0, err == nil && v == nil
	}
	return 0, false
}

// consume is the public benchmark's consume() on lib/pq's rows: every row
// scanned (rows.Scan into the typed destinations), every value read, the
// sum checked; it closes rows.
func (s *pqScanner) consume(rows *sql.Rows) error {
	var sum, n int64
	for rows.Next() {
		if err := rows.Scan(s.dests...); err != nil {
			rows.Close()
			return err
		}
		iv, ok1 := pqInteger(s.dests[iInt])
		sv, ok2 := s.dests[iStr].(*sql.Null[string])
		nv, ok3 := pqInteger(s.dests[iNull])
		bv, ok4 := s.dests[iBool].(*sql.Null[bool])
		if !ok1 || !ok2 || !sv.Valid || !ok3 || !ok4 || !bv.Valid {
			rows.Close()
			return fmt.Errorf("unexpected values %T %T %T %T", s.dests[iInt], s.dests[iStr], s.dests[iNull], s.dests[iBool])
		}
		sum += iv
		sum += int64(len(sv.V))
		sum += nv
		if bv.V {
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
