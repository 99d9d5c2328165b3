// stream.go -- one whole result per request, buffered or streamed
// (docs/bridge-protocol.md, "stream"), for the streaming suites. The
// client (a streamer) runs one execution and folds its rows into a
// streamFold, which chooses each column's kind from the first non-null
// value the client delivers. Clocks as run's: time.Now() (its monotonic
// reading) just before the client issues the query (t0), after the first
// row is folded, and after the client reported the result complete (end);
// CPU: getrusage(RUSAGE_SELF) around them, every thread. Between t0 and end
// nothing else runs: no bridge I/O, no forced GC, no printing.
package main

import (
	"fmt"
	"strconv"
	"time"
)

// streamer is a client with the stream request (hello says stream: true).
type streamer interface {
	// stream runs statement st once with args (nil: none) and folds every
	// row with f (f.start first): buffered, the client's call that holds
	// the whole result, then the fold over the rows held; streamed, the
	// client's idiom that delivers rows as they arrive, each folded and
	// dropped. fetch: rows per round trip, for an idiom that has one. A
	// failure leaves the connection usable after kind query.
	stream(st *statement, streamed bool, fetch int, args []interface{}, f *streamFold) *failure
	// streamIdiom is the reply's idiom: one line naming what stream calls.
	streamIdiom(streamed bool, fetch int) string
}

// kindNone: a column with no non-null value yet (replied as "any").
const kindNone kind = 255

// streamFold is one result's per-column kinds, null counts and sums of
// contributions mod 2^32, and its rows.
type streamFold struct {
	kinds []kind
	nulls []uint32
	sums  []uint32
	rows  uint64
	first time.Time // after the first row was folded
}

// start begins a result of ncols columns (every kind still open).
func (f *streamFold) start(ncols int) {
	f.kinds = make([]kind, ncols)
	for j := range f.kinds {
		f.kinds[j] = kindNone
	}
	f.nulls = make([]uint32, ncols)
	f.sums = make([]uint32, ncols)
	f.rows = 0
}

// rowDone counts a row whose values were folded; the first one's time is
// read here.
func (f *streamFold) rowDone() {
	f.rows++
	if f.rows == 1 {
		f.first = time.Now()
	}
}

// kindOf is the kind of a delivered non-null value: bool, int (a Go
// integer), str (a Go string) or any.
func kindOf(v interface{}) kind {
	switch v.(type) {
	case bool:
		return kindBool
	case int32, int64, int16, uint32, int, int8, uint8, uint16, uint64, uint:
		return kindInt
	case string:
		return kindStr
	}
	return kindAny
}

// row folds one row of delivered values (one per column of start's).
func (f *streamFold) row(vals []interface{}) {
	if len(vals) > len(f.kinds) {
		vals = vals[:len(f.kinds)] // cannot happen: start() was given the result's columns
	}
	kinds, nulls, sums := f.kinds[:len(vals)], f.nulls[:len(vals)], f.sums[:len(vals)]
	for j, v := range vals {
		if v == nil {
			nulls[j]++
			continue
		}
		k := kinds[j]
		if k == kindNone {
			k = kindOf(v)
			kinds[j] = k
		}
		// The switch of folder.row, not a shared function: with the call
		// to intContribution inlined into it, Go will not inline that
		// function (go build -gcflags=-m), and run's loop would pay a call
		// per value.
		switch k {
		case kindInt:
			sums[j] += intContribution(v)
		case kindStr:
			if s, ok := v.(string); ok {
				sums[j] += uint32(len(s))
			}
		case kindBool:
			if b, ok := v.(bool); ok && b {
				sums[j]++
			}
		}
	}
	f.rowDone()
}

var kindNames = [...]string{kindAny: "any", kindInt: "int", kindBool: "bool", kindStr: "str"}

// appendColumns appends the reply's columns: [[kind, nulls, sum], ...], []
// for a result of no rows.
func (f *streamFold) appendColumns(b []byte) []byte {
	b = append(b, '[')
	for j := range f.kinds {
		if f.rows == 0 {
			break
		}
		if j > 0 {
			b = append(b, ',')
		}
		name := "any"
		if k := f.kinds[j]; int(k) < len(kindNames) {
			name = kindNames[k]
		}
		b = append(b, '[')
		b = appendJSONString(b, name)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(f.nulls[j]), 10)
		b = append(b, ',')
		b = strconv.AppendUint(b, uint64(f.sums[j]), 10)
		b = append(b, ']')
	}
	return append(b, ']')
}

// stream answers a stream request; it writes its own reply, a failure
// with the rows folded before it (buffered: none, the result never
// completed).
func (a *adapter) stream(rq *request, w *jw) *failure {
	var f streamFold
	if ff := a.streamChecked(rq, w, &f); ff != nil {
		w.failure(ff)
		w.uint("rows", f.rows)
	}
	return nil
}

func (a *adapter) streamChecked(rq *request, w *jw, f *streamFold) *failure {
	bad := func(format string, args ...interface{}) *failure {
		return &failure{kind: "protocol", msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case !a.connected:
		return bad("stream before connect")
	case rq.Stmt == nil || a.stmts[*rq.Stmt] == nil:
		return bad("stream of a statement that was not prepared")
	case rq.Mode != "buffered" && rq.Mode != "streamed":
		return bad("stream: mode must be \"buffered\" or \"streamed\", not %q", rq.Mode)
	case rq.Fetch != nil && *rq.Fetch < 0:
		return bad("stream: fetch must be >= 0, not %d", *rq.Fetch)
	case len(rq.Params) > 1:
		return bad("stream: params must be one array of strings and nulls")
	}
	sc, ok := a.cl.(streamer)
	if !ok {
		if a.cl.info().noIO {
			return &failure{kind: "unsupported", msg: "the null client talks to no server: it has no result to stream"}
		}
		in := a.cl.info()
		return &failure{kind: "unsupported", msg: "client " + in.client + " " + in.clientVersion + ": the Go adapter has no stream for it (hello said stream: false)"}
	}
	st := a.stmts[*rq.Stmt]
	fetch := 0
	if rq.Fetch != nil {
		fetch = *rq.Fetch
	}
	var args []interface{}
	if len(rq.Params) == 1 {
		args = make([]interface{}, len(rq.Params[0]))
		for j, v := range rq.Params[0] {
			if v != nil {
				args[j] = *v // a Go string: sent in text format
			}
		}
	}
	if pc, ok := a.cl.(pooled); ok && a.pool > 0 {
		if ff := pc.hold(); ff != nil {
			return ff
		}
		defer pc.unhold()
	}
	streamed := rq.Mode == "streamed"

	cpu0 := cpuNS()
	t0 := time.Now()
	ff := sc.stream(st, streamed, fetch, args, f)
	end := time.Now()
	cpu1 := cpuNS()

	if ff != nil {
		return ff
	}
	first := end
	if f.rows > 0 {
		first = f.first
	}
	firstNS, totalNS := first.Sub(t0), end.Sub(t0)
	if firstNS < 1 {
		firstNS = 1
	}
	if totalNS < firstNS {
		totalNS = firstNS
	}
	w.boolean("ok", true)
	w.uint("rows", f.rows)
	w.uint("first_row_ns", uint64(firstNS))
	w.uint("total_ns", uint64(totalNS))
	w.uint("cpu_ns", cpu1-cpu0)
	w.str("idiom", sc.streamIdiom(streamed, fetch))
	w.key("columns")
	w.b = f.appendColumns(w.b)
	return nil
}
