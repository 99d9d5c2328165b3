'use strict';
// Frames of the bridge protocol (docs/bridge-protocol.md, "Frames"): a 4-byte
// unsigned big-endian length N (1 <= N <= 64 MiB), then N bytes of UTF-8
// JSON, one object.
//
// Contract: FrameReader.push() takes the bytes read from the socket in any
// chunking and calls onFrame(buffer) once per complete payload, in order, or
// onError(message) once when a length is out of range (then the stream cannot
// be resynchronised and the reader stops). parseRequest() makes the request
// object of one payload. encodeFrame() makes the bytes of one
// frame from a JSON-serialisable object (encodeFrameText: from the JSON text
// of one object; encodeAsciiFrame: from ASCII pieces of it), or throws a RangeError when its
// payload would exceed the limit.

const { messageOf } = require('./errors');

const MAX_FRAME = 64 * 1024 * 1024;

class FrameReader {
    constructor(onFrame, onError) {
        this.onFrame = onFrame;
        this.onError = onError;
        this.chunks = [];   // buffered bytes not yet consumed, in order
        this.buffered = 0;  // their total length
        this.need = -1;     // payload length of the frame being read, -1: header not read yet
        this.failed = false;
    }

    push(chunk) {
        if (this.failed) return;
        this.chunks.push(chunk);
        this.buffered += chunk.length;
        for (;;) {
            if (this.need < 0) {
                if (this.buffered < 4) return;
                const n = this.take(4).readUInt32BE(0);
                if (n < 1 || n > MAX_FRAME) {
                    this.failed = true;
                    this.onError(`frame length ${n} is out of range (1 to ${MAX_FRAME})`);
                    return;
                }
                this.need = n;
            }
            if (this.buffered < this.need) return;
            const payload = this.take(this.need);
            this.need = -1;
            this.onFrame(payload);
            if (this.failed) return;
        }
    }

    // The first n buffered bytes (n <= this.buffered), removed from the buffer.
    take(n) {
        let out;
        const first = this.chunks[0];
        if (first.length >= n) {
            out = first.subarray(0, n);
            if (first.length === n) this.chunks.shift();
            else this.chunks[0] = first.subarray(n);
        } else {
            out = Buffer.allocUnsafe(n);
            let off = 0;
            while (off < n) {
                const c = this.chunks[0];
                const k = Math.min(c.length, n - off);
                c.copy(out, off, 0, k);
                off += k;
                if (k === c.length) this.chunks.shift();
                else this.chunks[0] = c.subarray(k);
            }
        }
        this.buffered -= n;
        return out;
    }
}

// The request a frame's payload holds: the object its UTF-8 JSON text
// parses to. Throws an Error whose message is the reply's one-line `error`
// when the payload is not JSON, or JSON but not an object.
function parseRequest(payload) {
    let req;
    try {
        req = JSON.parse(payload.toString('utf8'));
    } catch (err) {
        throw new Error(`request is not JSON: ${messageOf(err)}`);
    }
    if (req === null || typeof req !== 'object' || Array.isArray(req)) {
        throw new Error('request is not a JSON object');
    }
    return req;
}

// The bytes of one frame holding `obj` as JSON.
function encodeFrame(obj) {
    return encodeFrameText(JSON.stringify(obj));
}

// The bytes of one frame whose payload is `json`, the text of one JSON object.
function encodeFrameText(json) {
    const len = Buffer.byteLength(json, 'utf8');
    if (len > MAX_FRAME) {
        throw new RangeError(`reply of ${len} bytes exceeds the frame limit of ${MAX_FRAME} bytes`);
    }
    const buf = Buffer.allocUnsafe(4 + len);
    buf.writeUInt32BE(len, 0);
    buf.write(json, 4, len, 'utf8');
    return buf;
}

// The bytes of one frame whose payload is the concatenation of `parts`,
// strings the caller guarantees to be ASCII (JSON punctuation, numbers,
// base64): written byte for byte, without a JSON.stringify or UTF-8 pass over
// them (a block of 65536 batches carries 1.7 MB of base64).
function encodeAsciiFrame(parts) {
    let len = 0;
    for (const p of parts) len += p.length;
    if (len > MAX_FRAME) {
        throw new RangeError(`reply of ${len} bytes exceeds the frame limit of ${MAX_FRAME} bytes`);
    }
    const buf = Buffer.allocUnsafe(4 + len);
    buf.writeUInt32BE(len, 0);
    let off = 4;
    for (const p of parts) off += buf.write(p, off, p.length, 'latin1');
    return buf;
}

module.exports = { FrameReader, parseRequest, encodeFrame, encodeFrameText, encodeAsciiFrame, MAX_FRAME };
