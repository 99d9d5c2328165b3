// dump.go -- what the client delivered, for a run with "dump": true
// (docs/bridge-protocol.md, "Dumps"): kept during the batch, encoded after
// it was timed and folded.
package main

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// column is a result column as the client reports it.
type column struct {
	name string
	oid  uint32
}

// result is one execution's columns and rows, as delivered.
type result struct {
	columns []column
	rows    [][]interface{}
}

// retain keeps a row for the dump. pgx's []byte values (bytea, and any
// type pgx does not know in binary format) alias its read buffer, which
// the next message overwrites: those are copied. Everything else pgx
// returns is a fresh value.
func retain(vals []interface{}) []interface{} {
	for j, v := range vals {
		if b, ok := v.([]byte); ok {
			vals[j] = append([]byte{}, b...)
		}
	}
	return vals
}

// maxExact is the largest magnitude a JSON number (an IEEE double) holds
// exactly for every integer up to it.
const maxExact = 1 << 53

// appendResults writes "results": [...] for the dump, each value as the
// client's dumpValue encodes it.
func appendResults(w *jw, results []result, enc func([]byte, interface{}, uint32) []byte) {
	w.key("results")
	b := append(w.b, '[')
	for i, r := range results {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"columns":[`...)
		for j, c := range r.columns {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"name":`...)
			b = appendJSONString(b, c.name)
			b = append(b, `,"type":`...)
			b = strconv.AppendUint(b, uint64(c.oid), 10)
			b = append(b, '}')
		}
		b = append(b, `],"rows":[`...)
		for k, row := range r.rows {
			if k > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			for j, v := range row {
				if j > 0 {
					b = append(b, ',')
				}
				b = enc(b, v, r.columns[j].oid)
			}
			b = append(b, ']')
		}
		b = append(b, "]}"...)
	}
	w.b = append(b, ']')
}

// The type OIDs whose values the clients' dumpValue renders for the
// bridge's fold.
const (
	oidJSON        = 114
	oidJSONB       = 3802
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidNumeric     = 1700
)

func appendOther(b []byte, text string, v interface{}) []byte {
	b = append(b, `{"other":`...)
	b = appendJSONString(b, text)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, fmt.Sprintf("%T", v))
	return append(b, '}')
}

func appendElems(b []byte, n int, elem func([]byte, int) []byte) []byte {
	b = append(b, '[')
	for i := 0; i < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = elem(b, i)
	}
	return append(b, ']')
}

// clockText is microseconds since midnight as HH:MM:SS[.ffffff].
func clockText(us int64) string {
	s := fmt.Sprintf("%02d:%02d:%02d", us/3600000000, us/60000000%60, us/1000000%60)
	if f := us % 1000000; f != 0 {
		s += fmt.Sprintf(".%06d", f)
	}
	return s
}

// timeText is a time.Time as the server prints a value of type oid.
func timeText(t time.Time, oid uint32) string {
	if oid == oidTimestamptz {
		t = t.UTC()
	}
	y := t.Year()
	bc := y <= 0
	if bc {
		y = 1 - y
	}
	s := fmt.Sprintf("%04d-%02d-%02d", y, int(t.Month()), t.Day())
	if oid != oidDate {
		s += " " + clockText(int64(t.Hour())*3600000000+int64(t.Minute())*60000000+
			int64(t.Second())*1000000+int64(t.Nanosecond()/1000))
		if oid == oidTimestamptz {
			s += "+00"
		}
	}
	if bc {
		s += " BC"
	}
	return s
}

// appendValue encodes one value by what the client made of it (the
// spec's table); anything else as {"other": TEXT, "type": "%T"}, TEXT
// being other(v) (nil: Go's fmt text, String() where the type has one).
func appendValue(b []byte, v interface{}, other func(interface{}) string) []byte {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...)
	case bool:
		return strconv.AppendBool(b, x)
	case int16:
		return strconv.AppendInt(b, int64(x), 10)
	case int32:
		return strconv.AppendInt(b, int64(x), 10)
	case int64:
		return appendInt64(b, x)
	case int:
		return appendInt64(b, int64(x))
	case int8:
		return strconv.AppendInt(b, int64(x), 10)
	case uint8:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint16:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10)
	case uint64:
		return appendUint64(b, x)
	case uint:
		return appendUint64(b, uint64(x))
	case float32:
		return appendFloat(b, float64(x), 32)
	case float64:
		return appendFloat(b, x, 64)
	case string:
		return appendJSONString(b, x)
	case []byte:
		b = append(b, `{"bytes":"`...)
		for _, c := range x {
			b = append(b, hexDigits[c>>4], hexDigits[c&15])
		}
		return append(b, `"}`...)
	}
	b = append(b, `{"other":`...)
	if other == nil {
		other = fmtText
	}
	b = appendJSONString(b, other(v))
	b = append(b, `,"type":`...)
	b = appendJSONString(b, fmt.Sprintf("%T", v))
	return append(b, '}')
}

func appendInt64(b []byte, x int64) []byte {
	if x >= -maxExact && x <= maxExact {
		return strconv.AppendInt(b, x, 10)
	}
	b = append(b, `{"int":"`...)
	b = strconv.AppendInt(b, x, 10)
	return append(b, `"}`...)
}

func appendUint64(b []byte, x uint64) []byte {
	if x <= maxExact {
		return strconv.AppendUint(b, x, 10)
	}
	b = append(b, `{"int":"`...)
	b = strconv.AppendUint(b, x, 10)
	return append(b, `"}`...)
}

// appendFloat writes the shortest form that reads back as the same
// float of that size ('g', -1), or {"float": ...} for what JSON has no
// number for.
func appendFloat(b []byte, x float64, bits int) []byte {
	var special string
	switch {
	case math.IsNaN(x):
		special = "NaN"
	case math.IsInf(x, 1):
		special = "Infinity"
	case math.IsInf(x, -1):
		special = "-Infinity"
	case x == 0 && math.Signbit(x):
		special = "-0"
	default:
		return strconv.AppendFloat(b, x, 'g', -1, bits)
	}
	b = append(b, `{"float":"`...)
	b = append(b, special...)
	return append(b, `"}`...)
}

// fmtText is Go's fmt text of a value (String() where its type has one).
func fmtText(v interface{}) string { return fmt.Sprint(v) }
