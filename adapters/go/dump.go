// dump.go -- what the client delivered, for a run with "dump": true
// (docs/bridge-protocol.md, "Dumps"): kept during the batch, encoded after
// it was timed and folded.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgtype"
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

// appendResults writes "results": [...] for the dump.
func appendResults(w *jw, results []result, ci *pgtype.ConnInfo) {
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
				b = appendTyped(b, v, r.columns[j].oid, ci)
			}
			b = append(b, ']')
		}
		b = append(b, "]}"...)
	}
	w.b = append(b, ']')
}

// The type OIDs whose values appendTyped renders for the bridge's fold.
const (
	oidJSON        = 114
	oidJSONB       = 3802
	oidDate        = 1082
	oidTime        = 1083
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidNumeric     = 1700
)

// appendTyped encodes a value of a column of type oid so that the bridge
// can fold the types the C drivers convert exactly when pgx kept the value
// exactly (docs/bridge-protocol.md, "Dumps"):
//
//	time.Time       -> {"other": the server's text}: a timestamptz in UTC
//	                   with "+00", a timestamp's wall time, a date; every
//	                   fractional digit; a year <= 0 as 1 - year and " BC"
//	int64 of a time column (pgx's pgtype.Time gives microseconds) ->
//	                   {"other": "HH:MM:SS[.ffffff]"}
//	pgtype.Numeric  -> {"other": its digits with the point at -Exp, no
//	                   exponent}; NaN; an infinity of a numeric column
//	                   "Infinity" / "-Infinity"
//	[16]uint8 (uuid) -> {"bytes": hex}
//	a json/jsonb value (pgx unmarshals it) -> {"other": json.Marshal of it,
//	                   without HTML escapes}: re-serialised, not the server's
//	pgtype.Int4Array, Int8Array, TextArray, Float8Array of one dimension
//	                   with lower bound 1 -> a JSON array of the elements
//	                   (others: pgx's own PostgreSQL text of the array)
//
// and anything else as appendValue does.
func appendTyped(b []byte, v interface{}, oid uint32, ci *pgtype.ConnInfo) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	switch oid {
	case oidJSON, oidJSONB:
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) == nil {
			return appendOther(b, strings.TrimSuffix(buf.String(), "\n"), v)
		}
	case oidTime:
		if us, ok := v.(int64); ok && us >= 0 {
			return appendOther(b, clockText(us), v)
		}
	}
	switch x := v.(type) {
	case time.Time:
		return appendOther(b, timeText(x, oid), v)
	case [16]uint8:
		return appendValue(b, x[:], ci)
	case pgtype.Numeric:
		if t, ok := numericText(x); ok {
			return appendOther(b, t, v)
		}
	case pgtype.InfinityModifier:
		if oid == oidNumeric {
			t := "Infinity"
			if x == pgtype.NegativeInfinity {
				t = "-Infinity"
			}
			return appendOther(b, t, v)
		}
	case pgtype.Int4Array:
		if oneDim(x.Dimensions) {
			return appendElems(b, len(x.Elements), func(b []byte, i int) []byte {
				if x.Elements[i].Status != pgtype.Present {
					return append(b, "null"...)
				}
				return strconv.AppendInt(b, int64(x.Elements[i].Int), 10)
			})
		}
	case pgtype.Int8Array:
		if oneDim(x.Dimensions) {
			return appendElems(b, len(x.Elements), func(b []byte, i int) []byte {
				if x.Elements[i].Status != pgtype.Present {
					return append(b, "null"...)
				}
				return appendInt64(b, x.Elements[i].Int)
			})
		}
	case pgtype.TextArray:
		if oneDim(x.Dimensions) {
			return appendElems(b, len(x.Elements), func(b []byte, i int) []byte {
				if x.Elements[i].Status != pgtype.Present {
					return append(b, "null"...)
				}
				return appendJSONString(b, x.Elements[i].String)
			})
		}
	case pgtype.Float8Array:
		if oneDim(x.Dimensions) {
			return appendElems(b, len(x.Elements), func(b []byte, i int) []byte {
				if x.Elements[i].Status != pgtype.Present {
					return append(b, "null"...)
				}
				return appendFloat(b, x.Elements[i].Float, 64)
			})
		}
	}
	return appendValue(b, v, ci)
}

func appendOther(b []byte, text string, v interface{}) []byte {
	b = append(b, `{"other":`...)
	b = appendJSONString(b, text)
	b = append(b, `,"type":`...)
	b = appendJSONString(b, fmt.Sprintf("%T", v))
	return append(b, '}')
}

// oneDim: an empty array, or one dimension with lower bound 1.
func oneDim(d []pgtype.ArrayDimension) bool {
	return len(d) == 0 || (len(d) == 1 && d[0].LowerBound == 1)
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

// numericText is a finite or NaN pgtype.Numeric in the server's syntax:
// Int's digits with the point -Exp digits from the right.
func numericText(n pgtype.Numeric) (string, bool) {
	if n.Status != pgtype.Present {
		return "", false
	}
	if n.NaN {
		return "NaN", true
	}
	if n.InfinityModifier == pgtype.Infinity {
		return "Infinity", true
	}
	if n.InfinityModifier == pgtype.NegativeInfinity {
		return "-Infinity", true
	}
	if n.Int == nil {
		return "", false
	}
	digits := n.Int.String()
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	if n.Exp >= 0 {
		if digits == "0" {
			return "0", true
		}
		return sign + digits + strings.Repeat("0", int(n.Exp)), true
	}
	scale := int(-n.Exp)
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:], true
}

// appendValue encodes one value by what the client made of it (the
// spec's table).
func appendValue(b []byte, v interface{}, ci *pgtype.ConnInfo) []byte {
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
	b = appendJSONString(b, otherText(v, ci))
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

// otherText is the usual text form of a value the table has no row for:
// for pgx's own types (pgtype.Numeric, pgtype.Interval, arrays ...) the
// PostgreSQL text pgx itself encodes them as; for anything else (time.Time,
// the [16]uint8 of a uuid, the decoded JSON of a json column) Go's fmt
// text (String() where the type has one).
func otherText(v interface{}, ci *pgtype.ConnInfo) string {
	if te, ok := v.(pgtype.TextEncoder); ok {
		if buf, err := te.EncodeText(ci, nil); err == nil && buf != nil {
			return string(buf)
		}
	}
	return fmt.Sprint(v)
}
