// pgx_values.go (pgx v4) -- how a dump encodes what pgx v4's
// rows.Values() delivers (dump.go has the common part).
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgtype"
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
func appendPgx(b []byte, v interface{}, oid uint32, ci *pgtype.ConnInfo) []byte {
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
		return appendValue(b, x[:], nil)
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
	return appendValue(b, v, func(v interface{}) string { return otherText(v, ci) })
}

// oneDim: an empty array, or one dimension with lower bound 1.
func oneDim(d []pgtype.ArrayDimension) bool {
	return len(d) == 0 || (len(d) == 1 && d[0].LowerBound == 1)
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
