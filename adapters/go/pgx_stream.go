// pgx_stream.go -- the stream request (stream.go) on pgx v5's connection.
//
//	buffered  conn.Query, then pgx.CollectRows(rows, pgx.CollectableRow.Values):
//	          every row's rows.Values() (pgx's default conversion, as run
//	          folds it) held in a [][]any until the result is complete,
//	          then folded.
//	streamed  conn.Query, then pgx.ForEachRow(rows, scans, fn): rows.Next
//	          and rows.Scan of each row into one reused *any per column
//	          (pgx's scan plan for *any is its codec's DecodeValue, the
//	          conversion rows.Values() makes, without a new []any per row),
//	          fn folding the row; nothing of it is kept.
//
// pgx has no fetch size (fetch is ignored): conn.Query sends Bind and
// Execute for the whole result, and pgconn's ResultReader reads one
// DataRow message at a time from the connection's read buffer as rows.Next
// asks for it, so a streamed result holds one row (pgx buffers nothing
// more; a buffered one holds what CollectRows collects).
package main

import (
	"github.com/jackc/pgx/v5"
)

func (c *pgxClient) stream(st *statement, streamed bool, _ int, args []interface{}, f *streamFold) *failure {
	if st.serverParams >= 0 && len(args) != st.serverParams {
		return c.refuseArgs(st, args) // the server's refusal, as run's
	}
	rows, err := c.conn.Query(c.ctx, st.name, args...)
	if err != nil {
		rows.Close()
		return c.fail(err)
	}
	ncols := len(rows.FieldDescriptions())
	f.start(ncols)
	if !streamed {
		held, err := pgx.CollectRows(rows, pgx.CollectableRow.Values)
		if err != nil {
			return c.fail(err)
		}
		for _, vals := range held {
			f.row(vals)
		}
		return nil
	}
	vals := make([]interface{}, ncols)
	scans := make([]interface{}, ncols)
	for j := range vals {
		scans[j] = &vals[j]
	}
	if _, err := pgx.ForEachRow(rows, scans, func() error {
		f.row(vals)
		return nil
	}); err != nil {
		return c.fail(err)
	}
	return nil
}

func (c *pgxClient) streamIdiom(streamed bool, _ int) string {
	if streamed {
		return "pgx.ForEachRow(conn.Query, one reused *any per column): rows.Next + rows.Scan, each row folded and dropped; no fetch size (pgconn reads one DataRow at a time)"
	}
	return "pgx.CollectRows(conn.Query, pgx.CollectableRow.Values): the whole result held as [][]any, then folded"
}
