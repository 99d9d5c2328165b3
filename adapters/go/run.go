// run.go -- a block of batches (docs/bridge-protocol.md, "run"): the plan
// is built before the first clock read, each batch is timed with one
// time.Now() (monotonic; the end of one batch is the start of the next),
// the CPU time of the whole process is read around the loop, and the
// reply carries samples and rows as base64 of LE u64, folds of LE u32.
package main

import (
	"fmt"
	"syscall"
	"time"
)

// plan is one run request, resolved.
type plan struct {
	stmt          *statement
	begin, commit *statement      // both or neither
	depth         int             // executions per batch
	args          [][]interface{} // nil, or per execution i*depth+k: string or nil each
	dump          bool
	results       []result // dump: every execution, in order
	fold          folder
	// badBatch: the first batch with an execution whose count of
	// parameters is not the statement's (the client sends it anyway, for
	// the server to refuse); -1: none.
	badBatch, badExec int
}

// argsFor is the parameters of execution k of batch i (nil: none).
func (p *plan) argsFor(i, k int) []interface{} {
	if p.args == nil {
		return nil
	}
	return p.args[i*p.depth+k]
}

// cpuNS is the process's CPU time (user + system, all threads).
func cpuNS() uint64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return uint64(ru.Utime.Nano() + ru.Stime.Nano())
}

// loadArgs is a load's parameters (nil for none), one set per query, and
// the first query whose count is not the statement's (-1: none).
func loadArgs(st *statement, params [][]*string, n int) ([][]interface{}, int) {
	bad := -1
	if params == nil {
		if st.serverParams > 0 {
			bad = 0
		}
		return nil, bad
	}
	args := make([][]interface{}, n)
	for e := 0; e < n; e++ {
		set := params[e]
		if st.serverParams >= 0 && len(set) != st.serverParams && bad < 0 {
			bad = e
		}
		a := make([]interface{}, len(set))
		for j, v := range set {
			if v != nil {
				a[j] = *v
			}
		}
		args[e] = a
	}
	return args, bad
}

// load answers a load request (docs/bridge-protocol.md, "load"); it writes
// its own reply, failure included (a refused request: done 0).
func (a *adapter) load(rq *request, w *jw) *failure {
	if f := a.loadChecked(rq, w); f != nil {
		w.failure(f)
		w.uint("done", 0)
		w.uint("wall_ns", 0)
		w.uint("cpu_ns", 0)
		w.uint("late_ns", 0)
	}
	return nil
}

func (a *adapter) loadChecked(rq *request, w *jw) *failure {
	bad := func(format string, args ...interface{}) *failure {
		return &failure{kind: "protocol", msg: fmt.Sprintf(format, args...)}
	}
	pc, ok := a.cl.(pooled)
	switch {
	case !a.connected:
		return bad("load before connect")
	case !ok || a.pool == 0:
		return bad("load: connect had no pool (\"pool\": P)")
	case rq.Stmt == nil || a.stmts[*rq.Stmt] == nil:
		return bad("load of a statement that was not prepared")
	case rq.Mode != "closed" && rq.Mode != "rate":
		return bad("load: mode must be \"closed\" or \"rate\", not %q", rq.Mode)
	case rq.Concurrency < 1 || rq.MaxQueries < 1:
		return bad("load: concurrency %d and max_queries %d must be >= 1", rq.Concurrency, rq.MaxQueries)
	case rq.DurationNS == nil || *rq.DurationNS < 0 || rq.MinQueries < 0:
		return bad("load: duration_ns and min_queries must be integers >= 0")
	case rq.Mode == "rate" && (rq.Rate == nil || !(*rq.Rate > 0)):
		return bad("load: rate mode needs a rate > 0")
	case rq.Params != nil && len(rq.Params) < rq.MaxQueries:
		return bad("load: %d parameter sets for max_queries %d", len(rq.Params), rq.MaxQueries)
	}
	st := a.stmts[*rq.Stmt]
	n := rq.MaxQueries
	args, badAt := loadArgs(st, rq.Params, n)
	s := &loadSpec{rate: rq.Mode == "rate", concurrency: rq.Concurrency,
		duration: time.Duration(*rq.DurationNS), minQueries: rq.MinQueries, limit: int64(n),
		kinds: parseKinds(rq.Kinds), ncols: st.ncols}
	if s.rate {
		s.perSecond = *rq.Rate
	}
	if badAt >= 0 {
		s.limit = int64(badAt)
		var set []interface{}
		if args != nil {
			set = args[badAt]
		}
		s.pending = func() *failure { return pc.refusal(st, set) }
	}
	res := runLoad(s, n, pc.query(st, args))
	if res.fail != nil {
		w.failure(res.fail)
	} else {
		w.boolean("ok", true)
	}
	w.uint("done", uint64(res.done))
	w.uint("wall_ns", res.wall)
	w.uint("cpu_ns", res.cpu)
	w.uint("late_ns", res.late)
	if res.done > 0 { // a frame is never empty: a failure before any query has none
		w.arraysFrame(res.lat[:res.done], res.rows[:res.done], res.folds[:res.done])
	}
	return nil
}

func (a *adapter) plan(rq *request) (*plan, *failure) {
	bad := func(format string, args ...interface{}) (*plan, *failure) {
		return nil, &failure{kind: "protocol", msg: fmt.Sprintf(format, args...)}
	}
	if !a.connected {
		return bad("run before connect")
	}
	if rq.Stmt == nil {
		return bad("run without a stmt")
	}
	st := a.stmts[*rq.Stmt]
	if st == nil {
		return bad("run of statement %d, which was not prepared", *rq.Stmt)
	}
	if rq.Depth < 1 || rq.Batches < 1 {
		return bad("run with depth %d and batches %d (both must be >= 1)", rq.Depth, rq.Batches)
	}
	p := &plan{stmt: st, depth: rq.Depth, dump: rq.Dump, badBatch: -1}
	if (rq.Begin == nil) != (rq.Commit == nil) {
		return bad("run with only one of begin and commit")
	}
	if rq.Begin != nil {
		if p.begin = a.stmts[*rq.Begin]; p.begin == nil {
			return bad("begin statement %d was not prepared", *rq.Begin)
		}
		if p.commit = a.stmts[*rq.Commit]; p.commit == nil {
			return bad("commit statement %d was not prepared", *rq.Commit)
		}
	}
	if rq.Params != nil {
		n := rq.Batches * rq.Depth
		if len(rq.Params) != n {
			return bad("run with %d parameter sets for %d executions", len(rq.Params), n)
		}
		p.args = make([][]interface{}, n)
		for e, set := range rq.Params {
			if st.serverParams >= 0 && len(set) != st.serverParams && p.badBatch < 0 {
				p.badBatch, p.badExec = e/rq.Depth, e
			}
			args := make([]interface{}, len(set))
			for j, v := range set {
				if v != nil {
					args[j] = *v // a Go string: pgx sends it in text format
				}
			}
			p.args[e] = args
		}
	}
	if rq.Params == nil && st.serverParams > 0 {
		p.badBatch, p.badExec = 0, 0
	}
	p.fold.setKinds(parseKinds(rq.Kinds), st.ncols)
	return p, nil
}

// run answers a run request; it writes its own reply, failure included.
func (a *adapter) run(rq *request, w *jw) *failure {
	p, f := a.plan(rq)
	if f != nil {
		return f
	}
	if pc, ok := a.cl.(pooled); ok && a.pool > 0 {
		if f := pc.hold(); f != nil {
			w.failure(f)
			w.uint("done", 0)
			w.le64("samples", nil)
			w.le64("rows", nil)
			w.le32("folds", nil)
			w.uint("cpu_ns", 0)
			return nil
		}
		defer pc.unhold()
	}
	n := rq.Batches
	samples := make([]uint64, n)
	rows := make([]uint64, n)
	folds := make([]uint32, n)
	done := 0
	cl := a.cl

	cpu0 := cpuNS()
	prev := time.Now()
	for i := 0; i < n; i++ {
		r, h, ff := cl.runBatch(p, i)
		now := time.Now()
		if ff != nil {
			f = ff
			break
		}
		d := now.Sub(prev)
		if d < 1 {
			d = 1
		}
		samples[i], rows[i], folds[i] = uint64(d), r, h
		prev = now
		done++
	}
	cpu1 := cpuNS()

	if f != nil {
		w.failure(f)
		w.uint("done", uint64(done))
	} else {
		w.boolean("ok", true)
	}
	if f == nil && !p.dump {
		w.arraysFrame(samples, rows, folds)
	} else {
		w.le64("samples", samples[:done])
		w.le64("rows", rows[:done])
		w.le32("folds", folds[:done])
	}
	w.uint("cpu_ns", cpu1-cpu0)
	if p.dump && f == nil {
		appendResults(w, p.results, cl.dumpValue)
	}
	return nil
}
