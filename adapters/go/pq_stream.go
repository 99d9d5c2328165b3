// pq_stream.go -- the stream request (stream.go) on lib/pq through
// database/sql, with the run's scanner (client_pq.go: the typed scan
// destinations chosen once per statement from the result's column types).
//
//	buffered  stmt.QueryContext, then rows.Next + rows.Scan of every row,
//	          its values copied into a [][]any (the values the run folds)
//	          until the result is complete, then folded.
//	streamed  stmt.QueryContext, then rows.Next + rows.Scan into the reused
//	          typed destinations (sql.Null[int32], sql.Null[string] ...),
//	          each row folded straight from them (no interface{} per value)
//	          and dropped.
//
// lib/pq has no fetch size (fetch is ignored): the execution is Bind,
// Execute of the whole result and Sync, and each rows.Next reads the next
// DataRow message from the connection's bufio.Reader (lib/pq's rows.Next,
// rows.go), so a streamed result holds one row. A connection that broke
// before the first row, which database/sql replaces and runs the query
// again on, is kind io (as the connections the connector opened say).
package main

import (
	"database/sql"
	"fmt"
	"time"
)

func (c *pqClient) stream(st *statement, streamed bool, _ int, args []interface{}, f *streamFold) *failure {
	ps := st.impl.(*pqStmt)
	opened := c.conn.n.Load()
	rows, err := ps.st.QueryContext(c.ctx, args...)
	if err != nil {
		return c.fail(err)
	}
	if ps.scan == nil {
		if ps.scan, err = c.newScanner(rows); err != nil {
			rows.Close()
			return c.fail(err)
		}
	}
	s := ps.scan
	f.start(len(s.cols))
	if streamed {
		err = s.foldTyped(rows, f)
	} else {
		err = s.collect(rows, f)
	}
	if err != nil {
		return c.fail(err) // rows closed: the one connection is free for ROLLBACK
	}
	if c.conn.n.Load() != opened {
		// The connection broke before the first row (a terminated
		// backend): database/sql opened a new one and ran the query
		// again on it, without a word.
		n := f.rows
		f.rows = 0
		return &failure{kind: "io", msg: fmt.Sprintf("the connection was lost before the first row: database/sql replaced it (lib/pq: driver.ErrBadConn) and ran the query again on the new one (%d rows)", n)}
	}
	return nil
}

// collect reads every row into a [][]any, then folds them; it closes rows.
func (s *pqScanner) collect(rows *sql.Rows, f *streamFold) error {
	var held [][]interface{}
	for rows.Next() {
		vals, err := s.row(rows)
		if err != nil {
			rows.Close()
			return err
		}
		held = append(held, append(make([]interface{}, 0, len(vals)), vals...))
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, vals := range held {
		f.row(vals)
	}
	return nil
}

// foldTyped scans each row into the typed destinations and folds it from
// them: a column's kind is that of its first non-null value (int for the
// integers, str for a string, bool, else any); it closes rows.
func (s *pqScanner) foldTyped(rows *sql.Rows, f *streamFold) error {
	n := len(s.dests)
	kinds, nulls, sums := f.kinds[:n], f.nulls[:n], f.sums[:n]
	for rows.Next() {
		if err := rows.Scan(s.dests...); err != nil {
			rows.Close()
			return err
		}
		for j, d := range s.dests {
			switch x := d.(type) {
			case *sql.Null[int32]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j], sums[j] = kindInt, sums[j]+uint32(x.V)
			case *sql.Null[int64]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j], sums[j] = kindInt, sums[j]+uint32(x.V)
			case *sql.Null[int16]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j], sums[j] = kindInt, sums[j]+uint32(x.V)
			case *sql.Null[uint32]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j], sums[j] = kindInt, sums[j]+x.V
			case *sql.Null[string]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j], sums[j] = kindStr, sums[j]+uint32(len(x.V))
			case *sql.Null[bool]:
				if !x.Valid {
					nulls[j]++
					continue
				}
				kinds[j] = kindBool
				if x.V {
					sums[j]++
				}
			case *sql.Null[float64]:
				anyValue(kinds, nulls, j, x.Valid)
			case *sql.Null[float32]:
				anyValue(kinds, nulls, j, x.Valid)
			case *sql.Null[time.Time]:
				anyValue(kinds, nulls, j, x.Valid)
			case *[]byte:
				anyValue(kinds, nulls, j, *x != nil)
			default: // an array (pq.Array): the value the run delivers
				anyValue(kinds, nulls, j, s.cols[j].get() != nil)
			}
		}
		f.rowDone()
	}
	rows.Close()
	return rows.Err()
}

// anyValue folds a value of kind any in column j: a null, or no
// contribution.
func anyValue(kinds []kind, nulls []uint32, j int, valid bool) {
	if valid {
		kinds[j] = kindAny
	} else {
		nulls[j]++
	}
}

func (c *pqClient) streamIdiom(streamed bool, _ int) string {
	if streamed {
		return "database/sql (" + goVersion() + ") Stmt.QueryContext, rows.Next + rows.Scan into reused typed values (sql.Null[T]), each row folded and dropped; no fetch size (lib/pq reads one DataRow per rows.Next)"
	}
	return "database/sql (" + goVersion() + ") Stmt.QueryContext, rows.Next + rows.Scan of every row, its values held as [][]any, then folded"
}
