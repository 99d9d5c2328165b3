// fold.go -- the fold of a batch (docs/bridge-protocol.md, "The fold"):
// FNV-1a's step on 32 bits over each execution's row count and, per
// column, its null count and the sum of its values' contributions, by the
// kinds the bridge sent. Each value is read from the row the client
// returned: a type switch on the interface{} that rows.Values() gave.
package main

// kind is what a column's non-null values contribute to the fold.
type kind uint8

const (
	kindAny  kind = iota // 0
	kindInt              // the value mod 2^32
	kindBool             // 1 if true
	kindStr              // its length in bytes (text_length "bytes")
)

const (
	fnvOffset uint32 = 2166136261
	fnvPrime  uint32 = 16777619
)

func mix(h, x uint32) uint32 { return (h ^ x) * fnvPrime }

// parseKinds maps the run's kinds (null, or one per column, each
// possibly null) to kinds; anything unknown is "any".
func parseKinds(ks []*string) []kind {
	out := make([]kind, len(ks))
	for i, k := range ks {
		if k == nil {
			continue
		}
		switch *k {
		case "int":
			out[i] = kindInt
		case "bool":
			out[i] = kindBool
		case "str":
			out[i] = kindStr
		}
	}
	return out
}

// folder holds one execution's per-column counts. Its slices are sized
// once per run (grown only if a result has more columns than expected),
// so folding allocates nothing.
type folder struct {
	kinds []kind   // one per column, "any" beyond the bridge's kinds
	nulls []uint32 // per column: null values
	sums  []uint32 // per column: sum of contributions, mod 2^32
	nrows uint32
	// scratch: the client's own, per folder (a load's goroutine): pq keeps
	// its row scanner here.
	scratch interface{}
}

// setKinds sizes the folder for up to ncols columns with the given kinds.
func (f *folder) setKinds(ks []kind, ncols int) {
	if ncols < len(ks) {
		ncols = len(ks)
	}
	f.kinds = make([]kind, ncols)
	copy(f.kinds, ks)
	f.nulls = make([]uint32, ncols)
	f.sums = make([]uint32, ncols)
}

// start begins an execution whose result has ncols columns.
func (f *folder) start(ncols int) {
	if ncols > len(f.kinds) {
		old := f.kinds
		f.setKinds(old, ncols)
	}
	for j := 0; j < ncols; j++ {
		f.nulls[j] = 0
		f.sums[j] = 0
	}
	f.nrows = 0
}

// row folds one row, as the client delivered it.
func (f *folder) row(vals []interface{}) {
	f.nrows++
	if len(vals) > len(f.kinds) {
		return // cannot happen: start() was given the result's columns
	}
	kinds, nulls, sums := f.kinds[:len(vals)], f.nulls[:len(vals)], f.sums[:len(vals)]
	for j, v := range vals {
		if v == nil {
			nulls[j]++
			continue
		}
		switch kinds[j] {
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
}

// intContribution is an integer's value mod 2^32 (two's complement for a
// negative one: Go's conversions sign-extend, then truncate); 0 for a
// value that is not an integer (the fold then disagrees, as it should).
func intContribution(v interface{}) uint32 {
	switch x := v.(type) {
	case int32:
		return uint32(x)
	case int64:
		return uint32(x)
	case int16:
		return uint32(x)
	case uint32:
		return x
	case int:
		return uint32(x)
	case int8:
		return uint32(x)
	case uint8:
		return uint32(x)
	case uint16:
		return uint32(x)
	case uint64:
		return uint32(x)
	case uint:
		return uint32(x)
	}
	return 0
}

// finish mixes the execution into the batch's fold h.
func (f *folder) finish(h uint32, ncols int) uint32 {
	h = mix(h, f.nrows)
	if f.nrows > 0 {
		for j := 0; j < ncols; j++ {
			h = mix(h, f.nulls[j])
			h = mix(h, f.sums[j])
		}
	}
	return h
}
