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
		appendResults(w, p.results, cl.connInfo())
	}
	return nil
}
