// pgx_values.go -- how a dump encodes what pgx v5's rows.Values()
// delivers (dump.go has the common part; _pgxv4/pgx_values.go is v4's).
package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// appendPgx encodes a value of a column of type oid so that the bridge can
// fold the types the C drivers convert exactly when pgx kept the value
// exactly (docs/bridge-protocol.md, "Dumps"):
//
//	time.Time       -> {"other": the server's text}: a timestamptz in UTC
//	                   with "+00", a timestamp's wall time, a date; every
//	                   fractional digit; a year <= 0 as 1 - year and " BC"
//	pgtype.Time     -> {"other": "HH:MM:SS[.ffffff]"} (24:00:00 included)
//	pgtype.Numeric  -> {"other": its digits with the point at -Exp, no
//	                   exponent}; NaN; Infinity / -Infinity
//	pgtype.InfinityModifier (an infinite timestamp, date or numeric) ->
//	                   {"other": "infinity" / "-infinity" ("Infinity" for a
//	                   numeric column)}
//	[16]uint8 (uuid) -> {"bytes": hex}
//	a json/jsonb value (pgx unmarshals it) -> {"other": json.Marshal of it,
//	                   without HTML escapes}: re-serialised, not the server's
//	[]any of one dimension (v5 decodes every array so, its lower bounds
//	                   dropped) -> a JSON array of the elements (nested
//	                   slices, more dimensions: pgx's own text of the array)
//
// and anything else as appendValue does, with the PostgreSQL text pgx
// itself encodes its own types as (pgtype.Interval ...) for the others.
func appendPgx(b []byte, v interface{}, oid uint32, m *pgtype.Map) []byte {
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
	}
	switch x := v.(type) {
	case time.Time:
		return appendOther(b, timeText(x, oid), v)
	case pgtype.Time:
		if x.Valid && x.Microseconds >= 0 {
			return appendOther(b, clockText(x.Microseconds), v)
		}
	case [16]uint8:
		return appendValue(b, x[:], nil)
	case pgtype.Numeric:
		if t, ok := numericText(x); ok {
			return appendOther(b, t, v)
		}
	case pgtype.InfinityModifier:
		t := x.String()
		if oid == oidNumeric {
			t = "Infinity"
			if x == pgtype.NegativeInfinity {
				t = "-Infinity"
			}
		}
		return appendOther(b, t, v)
	case []interface{}:
		flat := true
		for _, e := range x {
			if _, nested := e.([]interface{}); nested {
				flat = false
			}
		}
		if flat {
			return appendElems(b, len(x), func(b []byte, i int) []byte {
				return appendPgx(b, x[i], 0, m)
			})
		}
	}
	return appendValue(b, v, func(v interface{}) string { return pgxText(v, oid, m) })
}

// numericText is a valid pgtype.Numeric in the server's syntax: Int's
// digits with the point -Exp digits from the right.
func numericText(n pgtype.Numeric) (string, bool) {
	if !n.Valid {
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

// pgxText is the PostgreSQL text pgx encodes a value of type oid as (its
// type map's text format), else Go's fmt text.
func pgxText(v interface{}, oid uint32, m *pgtype.Map) string {
	if oid != 0 {
		if buf, err := m.Encode(oid, pgtype.TextFormatCode, v, nil); err == nil && buf != nil {
			return string(buf)
		}
	}
	return fmtText(v)
}
