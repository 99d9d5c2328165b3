// load.go -- the timed load (docs/bridge-protocol.md, "load"): up to
// `concurrency` queries in flight over the client's pool, one goroutine
// each, in this process.
//
// Each of `concurrency` goroutines (started once per load) takes the next
// query number with an atomic add, and:
//
//	closed  issues it at once; its latency counts from the time.Now() read
//	        before the pool's Acquire (a wait for a free connection is in it);
//	rate    query i is due at start + i/rate; the goroutine sleeps until
//	        then (one reused time.Timer) and issues it; its latency counts
//	        from the due time. One query per goroutine at a time: at most
//	        `concurrency` in flight, and a query that finds all of them busy
//	        is issued, late, when one completes.
//
// Issuing stops when (elapsed >= duration_ns and issued >= min_queries) or
// issued == limit (elapsed: in rate mode, that of the query's due time).
// A query's latency ends after its rows were converted and folded (the
// folder is the goroutine's own) and its connection released. Results go
// into preallocated arrays at an atomically claimed index: completion
// order. After the first failure no goroutine issues again (a stop channel
// wakes the sleeping ones); those in flight finish or fail. Once the issuing
// has ended (the first goroutine returned, or, min_queries 0, the duration
// passed) the queries in flight are abandoned as soon as none completed or
// failed for settleTime (and, in rate mode, the last issued one is due): a
// query a broken connection never answers is abandoned then (its goroutine
// writes nothing when it returns: it checks `abandoned` before it claims a
// slot, and the result is read abandonGrace later), and the load fails with
// kind io saying how many were never answered. Between the
// first clock read and the last reply nothing else runs: no bridge I/O, no
// forced GC, no printing. Clocks: time.Now() (its monotonic reading);
// CPU: getrusage(RUSAGE_SELF) around the load, every thread.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"
)

const (
	// How long the queries in flight may take to settle once the issuing
	// ended (docs/bridge-protocol.md, "load").
	settleTime = 2 * time.Second
	// How long after abandoning the result is read: a goroutine between
	// its check of `abandoned` and its last write is done by then.
	abandonGrace = 10 * time.Millisecond
)

// loadSpec is one load request, checked.
type loadSpec struct {
	rate        bool
	perSecond   float64
	concurrency int
	duration    time.Duration
	minQueries  int64
	limit       int64 // queries that may be issued (max_queries, or fewer: see pending)
	// pending: the failure of query `limit` (its parameters cannot be
	// bound), reported after the load; nil: none.
	pending func() *failure
	kinds   []kind
	ncols   int
}

// loadQuery runs query i through the pool with folder f: its rows and fold.
type loadQuery func(f *folder, i int) (uint64, uint32, *failure)

type loadResult struct {
	lat, rows []uint64
	folds     []uint32
	done      int
	wall, cpu uint64
	late      uint64
	fail      *failure
}

func runLoad(s *loadSpec, n int, query loadQuery) *loadResult {
	res := &loadResult{lat: make([]uint64, n), rows: make([]uint64, n), folds: make([]uint32, n)}
	workers := s.concurrency
	if int64(workers) > s.limit {
		workers = int(s.limit)
	}
	if workers < 1 {
		workers = 1
	}
	var issued, done int64
	var stopped, abandoned, returned int32
	var lastDue int64 // rate mode: the latest due time issued, ns since start
	var endOnce sync.Once
	ended := make(chan struct{}) // closed when the first goroutine returns
	var once sync.Once
	stop := make(chan struct{})
	var firstFail *failure
	fail := func(f *failure) {
		once.Do(func() {
			firstFail = f
			atomic.StoreInt32(&stopped, 1)
			close(stop)
		})
	}
	type mine struct {
		last   time.Time
		lastI  int64
		lateNS time.Duration
	}
	ws := make([]mine, workers)
	folders := make([]folder, workers)
	for k := range folders {
		folders[k].setKinds(s.kinds, s.ncols)
		ws[k].lastI = -1
	}
	var period float64
	if s.rate {
		period = 1e9 / s.perSecond
	}
	var wg sync.WaitGroup
	wg.Add(workers)

	cpu0 := cpuNS()
	start := time.Now()
	endBy := start.Add(s.duration)
	for k := 0; k < workers; k++ {
		go func(me *mine, f *folder) {
			defer func() {
				atomic.AddInt32(&returned, 1)
				endOnce.Do(func() { close(ended) })
				wg.Done()
			}()
			var timer *time.Timer
			for atomic.LoadInt32(&stopped) == 0 {
				i := atomic.AddInt64(&issued, 1) - 1
				if i >= s.limit {
					return
				}
				t0 := time.Now()
				if s.rate {
					due := start.Add(time.Duration(float64(i) * period))
					// The schedule's count, however late: every query
					// due before the end is issued.
					if !due.Before(endBy) && i >= s.minQueries {
						return
					}
					for d := int64(due.Sub(start)); ; {
						seen := atomic.LoadInt64(&lastDue)
						if d <= seen || atomic.CompareAndSwapInt64(&lastDue, seen, d) {
							break
						}
					}
					if d := due.Sub(t0); d > 0 {
						if timer == nil {
							timer = time.NewTimer(d)
						} else {
							timer.Reset(d)
						}
						select {
						case <-timer.C:
						case <-stop:
							timer.Stop()
							return
						}
						t0 = time.Now()
					}
					if i > me.lastI {
						me.lastI, me.lateNS = i, 0
						if t0.After(due) {
							me.lateNS = t0.Sub(due)
						}
					}
					t0 = due // the latency counts from the due time
				} else if !t0.Before(endBy) && i >= s.minQueries {
					return
				}
				r, h, ff := query(f, int(i))
				if atomic.LoadInt32(&abandoned) != 0 {
					return
				}
				if ff != nil {
					fail(ff)
					return
				}
				t1 := time.Now()
				d := t1.Sub(t0)
				if d < 1 {
					d = 1
				}
				slot := atomic.AddInt64(&done, 1) - 1
				res.lat[slot], res.rows[slot], res.folds[slot] = uint64(d), r, h
				me.last = t1
			}
		}(&ws[k], &folders[k])
	}
	finished := make(chan struct{})
	go func() { wg.Wait(); close(finished) }()
	// The issuing ends when a goroutine returns; a load bounded by its
	// duration alone has ended by then at the latest (all may be stuck).
	var byDuration <-chan time.Time
	if s.minQueries == 0 {
		dt := time.NewTimer(time.Until(endBy))
		defer dt.Stop()
		byDuration = dt.C
	}
	select {
	case <-finished:
	case <-byDuration:
	case <-ended:
	}
	// Abandoned once no query completed or failed for settleTime (and, in
	// rate mode, the last issued query is due).
	seen := int64(-1)
	for {
		progress := atomic.LoadInt64(&done) + int64(atomic.LoadInt32(&returned))
		wait := settleTime
		if d := time.Duration(atomic.LoadInt64(&lastDue)) - time.Since(start); d > 0 {
			wait += d
		} else if progress == seen {
			n := int32(workers) - atomic.LoadInt32(&returned)
			fail(&failure{kind: "io", msg: fmt.Sprintf("%d of the load's queries never answered: "+
				"none completed for %d ms after the issuing ended (a connection of the pool broke "+
				"without an error from the client)", n, settleTime.Milliseconds())})
			atomic.StoreInt32(&abandoned, 1)
			time.Sleep(abandonGrace)
			break
		}
		seen = progress
		t := time.NewTimer(wait)
		select {
		case <-finished:
			t.Stop()
		case <-t.C:
			continue
		}
		break
	}
	res.cpu = cpuNS() - cpu0

	last, lastI := start, int64(-1)
	for k := range ws {
		if ws[k].last.After(last) {
			last = ws[k].last
		}
		if ws[k].lastI > lastI {
			lastI, res.late = ws[k].lastI, uint64(ws[k].lateNS)
		}
	}
	res.done = int(done)
	if res.done == 0 {
		last = time.Now()
	}
	res.wall = uint64(last.Sub(start))
	res.fail = firstFail
	if res.fail == nil && s.pending != nil && int64(res.done) == s.limit {
		res.fail = s.pending()
	}
	return res
}
