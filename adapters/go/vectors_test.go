// vectors_test.go -- the adapter's self-test against the shared test vectors
// of the bridge protocol (tests/vectors; docs/bridge-protocol.md, "Frames",
// "run" and "The fold"): the adapter's OWN fold (fold.go: parseKinds,
// folder.setKinds/start/row/finish) and frame codec (frames.go: channel
// read/write on a real socket, decodeRequest, the jw reply writer,
// arraysFrame, le64/le32), with no server and no network.
//
//	adapters/go/build.sh --test                  -> build/adapters/go/pgcb-vectors-go
//	build/adapters/go/pgcb-vectors-go [-test.v] [DIR]   (from the checkout's top)
//
// DIR: the vectors directory; else $PGCB_VECTORS; else tests/vectors (from
// the checkout's top) or ../../tests/vectors (go test in adapters/go). A
// missing or unreadable vectors file fails, never skips. Each failed check
// is one line naming the vector, the case, got and want; the last line on
// stdout is always "vectors: go: F folds, R frames checked" (F: fold cases
// checked, R: frames.json entries checked); the exit status is 0 only when
// every check passed.
package main

import (
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// What was checked, for the last line.
var foldsChecked, framesChecked int

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	fmt.Printf("vectors: go: %d folds, %d frames checked\n", foldsChecked, framesChecked)
	os.Exit(code)
}

// vectorsDir is where the vectors are (see the top of this file).
func vectorsDir() string {
	if d := flag.Arg(0); d != "" {
		return d
	}
	if d := os.Getenv("PGCB_VECTORS"); d != "" {
		return d
	}
	for _, d := range []string{"tests/vectors", "../../tests/vectors"} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return "tests/vectors" // absent: the read below fails the test
}

// load decodes the vectors file name into v, numbers kept exact.
func load(t *testing.T, name string, v interface{}) {
	t.Helper()
	path := filepath.Join(vectorsDir(), name)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("vectors: cannot read %s: %v", path, err)
	}
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		t.Fatalf("vectors: %s: %v", path, err)
	}
}

// ---- folds.json ------------------------------------------------------------

type foldVector struct {
	Name    string
	Results []struct {
		Columns []struct {
			Name string
			Type uint32
		}
		Rows [][]json.RawMessage
	}
	Cases []struct {
		Kinds json.RawMessage   // the run's kinds: null or ["int", ...]
		Fold  map[string]uint32 // by text_length unit
	}
}

// textLength is the unit the adapter's hello reply declares, asked of the
// adapter itself (its null client: no I/O).
func textLength(t *testing.T) string {
	a := &adapter{stmts: map[int]*statement{}}
	w := newJW()
	a.handle([]byte(`{"op":"hello","protocol":1,"client":"null","options":{}}`), w)
	var reply struct {
		OK         bool   `json:"ok"`
		TextLength string `json:"text_length"`
	}
	if err := json.Unmarshal(w.b, &reply); err != nil || !reply.OK || reply.TextLength == "" {
		t.Fatalf("hello: no text_length in %s (%v)", w.b, err)
	}
	return reply.TextLength
}

// TestFolds: each case's kinds, decoded as a run request's, folded over
// every execution of the vector's batch, in order, with the same calls as
// the clients (run.go's plan, then per execution client_pgx.go's consume:
// start, row for each row as rows.Values() delivers it, finish), must give
// the case's fold in the adapter's text_length unit.
func TestFolds(t *testing.T) {
	var file struct{ Vectors []foldVector }
	load(t, "folds.json", &file)
	if len(file.Vectors) == 0 {
		t.Fatal("folds.json: no vectors")
	}
	unit := textLength(t)
	for _, v := range file.Vectors {
		// The batch as the client delivers it: per execution, rows of
		// native values.
		batch := make([][][]interface{}, len(v.Results))
		bad := false
		for e, r := range v.Results {
			for k, row := range r.Rows {
				vals := make([]interface{}, len(row))
				for j, raw := range row {
					var oid uint32
					if j < len(r.Columns) {
						oid = r.Columns[j].Type
					}
					var err error
					if vals[j], err = native(raw, oid); err != nil {
						t.Errorf("fold: vector %q: execution %d row %d column %d: %s: %v", v.Name, e, k, j, raw, err)
						bad = true
					}
				}
				batch[e] = append(batch[e], vals)
			}
		}
		for c, cs := range v.Cases {
			foldsChecked++
			want, ok := cs.Fold[unit]
			if !ok {
				t.Errorf("fold: vector %q case %d: no fold for text_length %q", v.Name, c, unit)
				continue
			}
			if bad {
				t.Errorf("fold: vector %q case %d: not folded (values above)", v.Name, c)
				continue
			}
			kinds := compact(cs.Kinds)
			rq, err := decodeRequest([]byte(`{"op":"run","kinds":` + kinds + `}`))
			if err != nil {
				t.Errorf("fold: vector %q case %d: kinds %s: %v", v.Name, c, kinds, err)
				continue
			}
			ncols := 0
			if len(v.Results) > 0 {
				ncols = len(v.Results[0].Columns) // the prepared statement's
			}
			var f folder
			f.setKinds(parseKinds(rq.Kinds), ncols)
			h := fnvOffset
			for e, r := range v.Results {
				f.start(len(r.Columns))
				for _, vals := range batch[e] {
					f.row(vals)
				}
				h = f.finish(h, len(r.Columns))
			}
			if h != want {
				t.Errorf("fold: vector %q case %d (kinds %s): got %d, want %d (%s)", v.Name, c, kinds, h, want, unit)
			}
		}
	}
}

// compact is raw JSON on one line.
func compact(raw json.RawMessage) string {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return string(raw)
	}
	return b.String()
}

// opaque is a value the fold never looks into (a date, a decimal, a uuid:
// kind any), as pgx delivers time.Time or pgtype.Numeric.
type opaque struct{ text, typ string }

// arrayElem is the element type of the array types in the vectors.
var arrayElem = map[uint32]uint32{1005: 21, 1007: 23, 1016: 20, 1028: 26, 1021: 700, 1022: 701, 1000: 16, 1009: 25}

// native is a dumped value as pgx's rows.Values() delivers it for a column
// of type oid: nil, bool, int16/int32/int64/uint32 by the integer type (the
// exact value, {"int": "N"} included), float32/float64 by the float type,
// string, []byte (a uuid's [16]byte), an opaque value for {"other": ...},
// []interface{} for an array (its elements by the element type).
func native(raw json.RawMessage, oid uint32) (interface{}, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v interface{}
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return nativeOf(v, oid)
}

func nativeOf(v interface{}, oid uint32) (interface{}, error) {
	switch x := v.(type) {
	case nil, bool, string:
		return x, nil
	case json.Number:
		if strings.ContainsAny(string(x), ".eE") {
			f, err := x.Float64()
			return floatOf(f, oid), err
		}
		return intOf(string(x), oid)
	case []interface{}:
		out := make([]interface{}, len(x))
		for i, e := range x {
			var err error
			if out[i], err = nativeOf(e, arrayElem[oid]); err != nil {
				return nil, err
			}
		}
		return out, nil
	case map[string]interface{}:
		switch {
		case x["int"] != nil:
			s, _ := x["int"].(string)
			return intOf(s, oid)
		case x["float"] != nil:
			switch x["float"] {
			case "NaN":
				return floatOf(math.NaN(), oid), nil
			case "Infinity":
				return floatOf(math.Inf(1), oid), nil
			case "-Infinity":
				return floatOf(math.Inf(-1), oid), nil
			case "-0":
				return floatOf(math.Copysign(0, -1), oid), nil
			}
		case x["bytes"] != nil:
			s, _ := x["bytes"].(string)
			b, err := hex.DecodeString(s)
			if err == nil && oid == 2950 && len(b) == 16 {
				var u [16]byte
				copy(u[:], b)
				return u, nil
			}
			return b, err
		case x["other"] != nil:
			s, _ := x["other"].(string)
			typ, _ := x["type"].(string)
			return opaque{s, typ}, nil
		}
	}
	return nil, fmt.Errorf("not a dumped value: %v", v)
}

// floatOf is f as pgx gives a column of type oid: float32 for a float4.
func floatOf(f float64, oid uint32) interface{} {
	if oid == 700 {
		return float32(f)
	}
	return f
}

// intOf is the integer s as the Go type pgx gives a column of type oid; an
// integer outside that type is an error (the vector would be wrong).
func intOf(s string, oid uint32) (interface{}, error) {
	switch oid {
	case 21:
		n, err := strconv.ParseInt(s, 10, 16)
		return int16(n), err
	case 23:
		n, err := strconv.ParseInt(s, 10, 32)
		return int32(n), err
	case 26:
		n, err := strconv.ParseUint(s, 10, 32)
		return uint32(n), err
	}
	n, err := strconv.ParseInt(s, 10, 64) // int8, and any other
	return n, err
}

// ---- frames.json -----------------------------------------------------------

type framesFile struct {
	Arrays []struct {
		Name     string
		Samples  []string
		Rows     []string
		Folds    []uint32
		FrameHex *string `json:"frame_hex"`
		Base64   map[string]string
	}
	Requests []struct {
		Name    string
		WireHex string `json:"wire_hex"`
		Request map[string]json.RawMessage
	}
	Replies []struct {
		Name  string
		Reply json.RawMessage
	}
}

// socketPair is a connected AF_UNIX stream socket pair, as the bridge gives
// the adapter on fd 3: the adapter's end as the adapter opens it (an fd
// number), and the bridge's.
func socketPair(t *testing.T) (*channel, *os.File) {
	t.Helper()
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("socketpair: %v", err)
	}
	return openChannel(fds[0]), os.NewFile(uintptr(fds[1]), "bridge end")
}

// written is everything the adapter's channel.write puts on the socket for
// the reply w (then its end is closed).
func written(t *testing.T, w *jw) []byte {
	t.Helper()
	ch, peer := socketPair(t)
	defer peer.Close()
	got := make(chan []byte)
	go func() { b, _ := io.ReadAll(peer); got <- b }()
	err := ch.write(w)
	ch.f.Close()
	b := <-got
	if err != nil {
		t.Errorf("channel.write: %v", err)
	}
	return b
}

// frame splits one frame (4-byte big-endian length, payload) off b.
func frame(b []byte) (payload, rest []byte, ok bool) {
	if len(b) < 4 || uint64(len(b)-4) < uint64(binary.BigEndian.Uint32(b)) {
		return nil, b, false
	}
	n := 4 + int(binary.BigEndian.Uint32(b))
	return b[4:n], b[n:], true
}

// prefixReport describes the length prefix of out against the n bytes after
// it: a frame of them all (one reply), or at most them (a reply frame and
// an arrays frame after it).
func prefixReport(out []byte, all bool) string {
	if len(out) < 4 {
		return fmt.Sprintf("got %d bytes, want a 4-byte length prefix and a payload", len(out))
	}
	want := "want"
	if !all {
		want = "want at most"
	}
	return fmt.Sprintf("length prefix got %x (%d), %s %08x (%d bytes follow it)",
		out[:4], binary.BigEndian.Uint32(out), want, len(out)-4, len(out)-4)
}

func loadFrames(t *testing.T) *framesFile {
	t.Helper()
	var file framesFile
	load(t, "frames.json", &file)
	if len(file.Arrays) == 0 || len(file.Requests) == 0 || len(file.Replies) == 0 {
		t.Fatal("frames.json: arrays, requests or replies missing")
	}
	return &file
}

func u64s(t *testing.T, ss []string) []uint64 {
	out := make([]uint64, len(ss))
	for i, s := range ss {
		var err error
		if out[i], err = strconv.ParseUint(s, 10, 64); err != nil {
			t.Fatalf("frames.json: %q: %v", s, err)
		}
	}
	return out
}

// TestArraysFrames: a successful run's reply with its n batches
// (run.go: jw.arraysFrame, then channel.write) is the reply frame followed
// by exactly frame_hex; n = 0 has no frame (run and load send one only for
// n >= 1). The base64 arrays of a reply in JSON (jw.le64, jw.le32: a run's
// failure, a dump) are the vector's; none (n = 0) the adapter writes as an
// empty JSON array, which the protocol allows for "" ("a JSON array of
// batches integers, or a string").
func TestArraysFrames(t *testing.T) {
	for _, v := range loadFrames(t).Arrays {
		framesChecked++
		samples, rows, folds := u64s(t, v.Samples), u64s(t, v.Rows), v.Folds
		w := newJW()
		w.boolean("ok", true)
		if len(samples) > 0 { // as run.go and load.go: a frame is never empty
			w.arraysFrame(samples, rows, folds)
		}
		w.finish()
		out := written(t, w)
		reply, rest, ok := frame(out)
		if !ok || !json.Valid(reply) {
			t.Errorf("arrays: vector %q: the reply's frame first: %s; all written: %x", v.Name, prefixReport(out, false), out)
			continue
		}
		want := []byte{}
		if v.FrameHex != nil {
			want, _ = hex.DecodeString(*v.FrameHex)
		}
		if !bytes.Equal(rest, want) {
			t.Errorf("arrays: vector %q: arrays frame: got %x, want %x", v.Name, rest, want)
		}
		if wantArrays := v.FrameHex != nil; wantArrays != bytes.Contains(reply, []byte(`"arrays":"frame"`)) {
			t.Errorf("arrays: vector %q: reply %s: \"arrays\": \"frame\" should be there: %v", v.Name, reply, wantArrays)
		}

		w = newJW()
		w.le64("samples", samples)
		w.le64("rows", rows)
		w.le32("folds", folds)
		var got map[string]interface{}
		if err := json.Unmarshal(w.finish(), &got); err != nil {
			t.Errorf("arrays: vector %q: base64 reply %s: %v", v.Name, w.b, err)
			continue
		}
		for _, k := range []string{"samples", "rows", "folds"} {
			g, empty := got[k].([]interface{})
			if s, ok := got[k].(string); ok && s == v.Base64[k] || empty && len(g) == 0 && v.Base64[k] == "" {
				continue
			}
			t.Errorf("arrays: vector %q: base64 %s: got %v, want %q", v.Name, k, got[k], v.Base64[k])
		}
	}
}

// TestRequestFrames: the bridge's request frames, one stream on a real
// socket delivered in small pieces (partial reads, a length prefix split),
// read by the adapter's channel.read and decoded by decodeRequest into its
// typed request: the payload is the frame's bytes, every field of the
// vector's request decodes to its value, every other field stays unset; at
// the end of the stream, read says end of file (the adapter then exits).
func TestRequestFrames(t *testing.T) {
	file := loadFrames(t)
	var stream []byte
	for _, v := range file.Requests {
		b, err := hex.DecodeString(v.WireHex)
		if err != nil {
			t.Fatalf("frames.json: request %q: %v", v.Name, err)
		}
		stream = append(stream, b...)
	}
	ch, peer := socketPair(t)
	defer ch.f.Close()
	go func() { // the bridge's end: pieces of 1, 2, 3, 5, 8, 13 and 4096 bytes
		defer peer.Close()
		sizes := []int{1, 2, 3, 5, 8, 13, 4096}
		for i := 0; len(stream) > 0; i++ {
			n := min(sizes[i%len(sizes)], len(stream))
			if _, err := peer.Write(stream[:n]); err != nil {
				return
			}
			stream = stream[n:]
			time.Sleep(20 * time.Microsecond)
		}
	}()
	for _, v := range file.Requests {
		framesChecked++
		wire, _ := hex.DecodeString(v.WireHex)
		payload, err := ch.read()
		if err != nil {
			t.Fatalf("request: vector %q: channel.read: %v", v.Name, err)
		}
		if !bytes.Equal(payload, wire[4:]) {
			t.Errorf("request: vector %q: payload of %d bytes, want the frame's %d: got %.80q", v.Name, len(payload), len(wire)-4, payload)
			continue
		}
		rq, err := decodeRequest(payload)
		if err != nil {
			t.Errorf("request: vector %q: decodeRequest: %v", v.Name, err)
			continue
		}
		fields := requestFields(rq)
		for name, want := range v.Request {
			f, ok := fields[name]
			if !ok {
				t.Errorf("request: vector %q: field %q: the adapter does not decode it", v.Name, name)
				continue
			}
			got, _ := json.Marshal(f.Interface())
			if !sameJSON(got, want) {
				t.Errorf("request: vector %q: field %q: got %.200s, want %.200s", v.Name, name, got, want)
			}
		}
		for name, f := range fields {
			if _, ok := v.Request[name]; !ok && !f.IsZero() {
				t.Errorf("request: vector %q: field %q: got %v, want it unset", v.Name, name, f.Interface())
			}
		}
	}
	if _, err := ch.read(); err != errEOF {
		t.Errorf("request: after the last frame: got %v, want end of file", err)
	}
}

// requestFields is the typed request's fields by their JSON names.
func requestFields(rq *request) map[string]reflect.Value {
	out := map[string]reflect.Value{}
	v := reflect.ValueOf(rq).Elem()
	for i := 0; i < v.NumField(); i++ {
		name, _, _ := strings.Cut(v.Type().Field(i).Tag.Get("json"), ",")
		out[name] = v.Field(i)
	}
	return out
}

// sameJSON: a and b are the same JSON value (numbers compared exactly).
func sameJSON(a, b []byte) bool {
	var x, y interface{}
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	return da.Decode(&x) == nil && db.Decode(&y) == nil && reflect.DeepEqual(x, y)
}

// TestReplyFrames: each reply written by the adapter's writer (jw, failure()
// for {"ok": false, ...}, channel.write) is one frame whose big-endian length
// is the payload's UTF-8 byte count, and the payload reads back as the reply.
func TestReplyFrames(t *testing.T) {
	for _, v := range loadFrames(t).Replies {
		framesChecked++
		var reply map[string]interface{}
		d := json.NewDecoder(bytes.NewReader(v.Reply))
		d.UseNumber()
		if err := d.Decode(&reply); err != nil {
			t.Fatalf("frames.json: reply %q: %v", v.Name, err)
		}
		w, err := writeReply(reply)
		if err != nil {
			t.Errorf("reply: vector %q: %v", v.Name, err)
			continue
		}
		out := written(t, w)
		payload, rest, ok := frame(out)
		switch {
		case !ok || len(rest) != 0:
			t.Errorf("reply: vector %q: not one frame: %s", v.Name, prefixReport(out, true))
		case !utf8.Valid(payload):
			t.Errorf("reply: vector %q: payload not UTF-8: %q", v.Name, payload)
		case !sameJSON(payload, v.Reply):
			t.Errorf("reply: vector %q: got %s, want %s", v.Name, payload, v.Reply)
		}
	}
}

// writeReply builds reply with the adapter's writer: "ok" first, a failure's
// kind, sqlstate and error with jw.failure, any other field by its JSON type.
func writeReply(reply map[string]interface{}) (*jw, error) {
	w := newJW()
	done := map[string]bool{"ok": true}
	if reply["ok"] == false {
		kind, _ := reply["kind"].(string)
		sqlstate, _ := reply["sqlstate"].(string)
		msg, _ := reply["error"].(string)
		w.failure(&failure{kind: kind, sqlstate: sqlstate, msg: msg})
		done["kind"], done["sqlstate"], done["error"] = true, true, true
	} else {
		w.boolean("ok", reply["ok"] == true)
	}
	var keys []string
	for k := range reply {
		if !done[k] {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch x := reply[k].(type) {
		case bool:
			w.boolean(k, x)
		case string:
			w.str(k, x)
		case json.Number:
			n, err := strconv.ParseInt(string(x), 10, 64)
			if err != nil {
				return nil, fmt.Errorf("field %q: %v", k, err)
			}
			w.int(k, n)
		default:
			return nil, fmt.Errorf("field %q: no writer for %T", k, x)
		}
	}
	w.finish()
	return w, nil
}
