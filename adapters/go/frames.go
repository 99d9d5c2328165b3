// frames.go -- the protocol's frames on fd 3 (docs/bridge-protocol.md,
// "Frames"): a 4-byte big-endian length, then that many bytes of one JSON
// object. Also the requests as decoded, and the small JSON writer the
// replies are built with (so that numbers and base64 come out exactly as
// the spec says, without reflection).
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxFrame is the protocol's limit on a frame's payload.
const maxFrame = 64 << 20

// request is every field any request of protocol 1 carries; fields a
// later version adds are ignored.
type request struct {
	Op       string                 `json:"op"`
	Protocol *int                   `json:"protocol"`
	Client   string                 `json:"client"`
	Options  map[string]interface{} `json:"options"`
	Conn     *connRequest           `json:"conn"`
	Stmt     *int                   `json:"stmt"`
	Name     string                 `json:"name"`
	SQL      string                 `json:"sql"`
	Nparams  int                    `json:"nparams"`
	Depth    int                    `json:"depth"`
	Batches  int                    `json:"batches"`
	Begin    *int                   `json:"begin"`
	Commit   *int                   `json:"commit"`
	Kinds    []*string              `json:"kinds"`
	Params   paramSets              `json:"params"`
	Dump     bool                   `json:"dump"`
	Phase    string                 `json:"phase"`
	// hello's optional result_format ("text" | "binary"); nil: not asked.
	ResultFormat *string `json:"result_format"`
	// connect's pool size (nil: one connection, no pool).
	Pool *int `json:"pool"`
	// load's fields.
	Mode        string   `json:"mode"`
	Concurrency int      `json:"concurrency"`
	Rate        *float64 `json:"rate"`
	DurationNS  *int64   `json:"duration_ns"`
	MinQueries  int64    `json:"min_queries"`
	MaxQueries  int      `json:"max_queries"`
	// stream's rows per round trip (nil: not sent); its mode is Mode.
	Fetch *int `json:"fetch"`
}

// paramSets is run's and load's "params", an array of parameter sets (each
// an array of strings and nulls), or stream's one set, a flat array, which
// decodes as one set ([] as none).
type paramSets [][]*string

func (p *paramSets) UnmarshalJSON(b []byte) error {
	t := bytes.TrimLeft(b, " \t\r\n")
	if len(t) > 1 && t[0] == '[' {
		if in := bytes.TrimLeft(t[1:], " \t\r\n"); len(in) > 0 && in[0] != '[' && in[0] != ']' {
			var one []*string
			if err := json.Unmarshal(b, &one); err != nil {
				return err
			}
			*p = paramSets{one}
			return nil
		}
	}
	var sets [][]*string
	if err := json.Unmarshal(b, &sets); err != nil {
		return err
	}
	*p = sets
	return nil
}

// connRequest is what libpq connected with, as the bridge passes it.
type connRequest struct {
	Host            string  `json:"host"`
	Port            string  `json:"port"`
	User            string  `json:"user"`
	Password        *string `json:"password"`
	DBName          string  `json:"dbname"`
	ApplicationName *string `json:"application_name"`
	Options         *string `json:"options"`
	SSLMode         string  `json:"sslmode"`
}

// channel is the adapter's end of the protocol socket.
type channel struct {
	f   *os.File
	r   *bufio.Reader
	out []byte // reused for every reply
}

func openChannel(fd int) *channel {
	f := os.NewFile(uintptr(fd), "bridge")
	return &channel{f: f, r: bufio.NewReaderSize(f, 64<<10)}
}

// errEOF: the bridge closed its end (the adapter must then exit).
var errEOF = errors.New("end of file on the protocol socket")

// read returns the next request's payload. errEOF at a clean end of file
// (or one inside a frame: the bridge is gone either way).
func (c *channel) read() ([]byte, error) {
	var hdr [4]byte
	if _, err := io.ReadFull(c.r, hdr[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, errEOF
		}
		return nil, err
	}
	n := binary.BigEndian.Uint32(hdr[:])
	if n < 1 || n > maxFrame {
		return nil, errors.New("frame length " + strconv.FormatUint(uint64(n), 10) + " out of range")
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(c.r, buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, errEOF
		}
		return nil, err
	}
	return buf, nil
}

// write sends one reply, built by the jw as one JSON object.
func (c *channel) write(w *jw) error {
	body := w.b
	if len(body) > maxFrame {
		// Cannot happen with protocol 1's replies short of a dump of
		// more than 64 MiB; say so instead of sending what the bridge
		// would refuse.
		e := newJW()
		e.failure(&failure{kind: "unsupported", msg: "reply of " + strconv.Itoa(len(body)) + " bytes exceeds the 64 MiB frame limit"})
		body = e.finish()
	}
	c.out = c.out[:0]
	c.out = append(c.out, 0, 0, 0, 0)
	binary.BigEndian.PutUint32(c.out, uint32(len(body)))
	c.out = append(c.out, body...)
	if w.arrays != nil { // the arrays frame after the reply
		n := len(c.out)
		c.out = append(c.out, 0, 0, 0, 0)
		binary.BigEndian.PutUint32(c.out[n:], uint32(len(w.arrays)))
		c.out = append(c.out, w.arrays...)
	}
	_, err := c.f.Write(c.out)
	return err
}

func decodeRequest(payload []byte) (*request, error) {
	var rq request
	if err := json.Unmarshal(payload, &rq); err != nil {
		return nil, err
	}
	return &rq, nil
}

// failure is a reply {"ok": false, ...}.
type failure struct {
	kind     string // config, connect, query, io, protocol, unsupported
	sqlstate string // kind query only
	msg      string
}

// jw writes one JSON object. The object's braces are written by newJW
// and finish; between them, key() places the commas.
type jw struct {
	b      []byte
	arrays []byte // the payload of an arrays frame to send after the object, or nil
	first  bool
}

func newJW() *jw {
	return &jw{b: append(make([]byte, 0, 256), '{'), first: true}
}

func (w *jw) finish() []byte {
	w.b = append(w.b, '}')
	return w.b
}

func (w *jw) key(k string) {
	if !w.first {
		w.b = append(w.b, ',')
	}
	w.first = false
	w.b = appendJSONString(w.b, k)
	w.b = append(w.b, ':')
}

func (w *jw) str(k, v string) { w.key(k); w.b = appendJSONString(w.b, v) }
func (w *jw) boolean(k string, v bool) {
	w.key(k)
	w.b = strconv.AppendBool(w.b, v)
}
func (w *jw) uint(k string, v uint64) { w.key(k); w.b = strconv.AppendUint(w.b, v, 10) }
func (w *jw) int(k string, v int64)   { w.key(k); w.b = strconv.AppendInt(w.b, v, 10) }

// le64 writes vals as the base64 of little-endian u64s ([] when empty).
// arraysFrame sends samples, rows and folds in a frame of their own after
// the reply (docs/bridge-protocol.md, "arrays": "frame"): little-endian,
// copied, not encoded. n >= 1.
func (w *jw) arraysFrame(samples, rows []uint64, folds []uint32) {
	w.str("arrays", "frame")
	n := len(samples)
	raw := make([]byte, 20*n)
	for i := 0; i < n; i++ {
		binary.LittleEndian.PutUint64(raw[8*i:], samples[i])
		binary.LittleEndian.PutUint64(raw[8*(n+i):], rows[i])
		binary.LittleEndian.PutUint32(raw[16*n+4*i:], folds[i])
	}
	w.arrays = raw
}

// le64 and le32 write vals as the base64 of their little-endian bytes (the
// protocol's typed-array form), or [] for none.
func (w *jw) le64(k string, vals []uint64) {
	raw := make([]byte, 8*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint64(raw[8*i:], v)
	}
	w.b64(k, raw)
}
func (w *jw) le32(k string, vals []uint32) {
	raw := make([]byte, 4*len(vals))
	for i, v := range vals {
		binary.LittleEndian.PutUint32(raw[4*i:], v)
	}
	w.b64(k, raw)
}

// b64 encodes raw straight into the reply: base64's alphabet needs no JSON
// escaping (a 65536-batch block is a megabyte of it).
func (w *jw) b64(k string, raw []byte) {
	w.key(k)
	if len(raw) == 0 {
		w.b = append(w.b, "[]"...)
		return
	}
	n := base64.StdEncoding.EncodedLen(len(raw))
	if cap(w.b)-len(w.b) < n+2 {
		grown := make([]byte, len(w.b), len(w.b)+n+2+4096)
		copy(grown, w.b)
		w.b = grown
	}
	w.b = append(w.b, '"')
	start := len(w.b)
	w.b = w.b[:start+n]
	base64.StdEncoding.Encode(w.b[start:], raw)
	w.b = append(w.b, '"')
}

func (w *jw) failure(f *failure) {
	w.boolean("ok", false)
	w.str("kind", f.kind)
	if f.kind == "query" {
		st := f.sqlstate
		if st == "" {
			st = "XX000"
		}
		w.str("sqlstate", st)
	}
	w.str("error", oneLine(scrub(f.msg)))
}

// oneLine makes an error message one line (the spec's "error is one line").
func oneLine(s string) string {
	if strings.ContainsAny(s, "\r\n") {
		s = strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)
	}
	return strings.TrimSpace(s)
}

const hexDigits = "0123456789abcdef"

// appendJSONString appends s as a JSON string. Invalid UTF-8 becomes
// U+FFFD (JSON text is UTF-8); control characters are escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"':
				b = append(b, '\\', '"')
			case '\\':
				b = append(b, '\\', '\\')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&15])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, "\ufffd"...)
			i++
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
