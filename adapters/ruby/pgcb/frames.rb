# The bridge's frames: a 4-byte big-endian length N (1 <= N <= 64 MiB), then N
# bytes of UTF-8 JSON, one object; both ways, on one file descriptor (a
# blocking AF_UNIX stream socket the bridge passes as fd 3).
#
# Channel#read  -> the next request (any JSON value; the session checks it is
#                  an object), nil at end of file between frames. Raises
#                  FrameError when the stream itself is broken (a bad length,
#                  end of file inside a frame): it cannot be resynced, the
#                  caller exits. Raises BadPayload when a whole frame is not
#                  UTF-8 JSON: the stream is still in sync.
# Channel#write(reply, arrays = nil) -> sends the reply (a Hash) as one frame
#                  and, with `arrays` (a binary String: the block's samples,
#                  rows and folds), {"arrays": "frame"} in it and that frame
#                  after it. A frame longer than the limit raises FrameTooLarge
#                  before anything is sent.
require "json"

module PGCB
  MAX_FRAME = 64 * 1024 * 1024

  class FrameError < StandardError; end
  class BadPayload < StandardError; end
  class FrameTooLarge < StandardError; end

  class Channel
    def initialize(fd)
      @io = IO.for_fd(fd, "r+b", autoclose: false)
      @io.sync = true
    end

    def read
      head = read_exact(4, true)
      return nil if head.nil?
      n = head.unpack1("N")
      raise FrameError, "frame length #{n} outside 1..#{MAX_FRAME}" if n < 1 || n > MAX_FRAME
      payload = read_exact(n, false).force_encoding(Encoding::UTF_8)
      raise BadPayload, "request is not UTF-8 JSON: invalid UTF-8" unless payload.valid_encoding?
      begin
        JSON.parse(payload)
      rescue JSON::ParserError => e
        raise BadPayload, "request is not UTF-8 JSON: #{PGCB.one_line(e.message)[0, 200]}"
      end
    end

    # The frame of reply (a Hash): JSON without NaN (generate raises on one);
    # undecodable bytes in a string become "?".
    def encode(reply, arrays = nil)
      reply = reply.merge("arrays" => "frame") if arrays
      payload = JSON.generate(reply).b
      if payload.bytesize > MAX_FRAME || (arrays && arrays.bytesize > MAX_FRAME)
        raise FrameTooLarge, "reply of #{payload.bytesize} bytes exceeds the #{MAX_FRAME}-byte frame limit"
      end
      frame = [payload.bytesize].pack("N") << payload
      frame << [arrays.bytesize].pack("N") << arrays if arrays
      frame
    end

    def write_frame(frame)
      @io.write(frame)
    end

    private

    def read_exact(n, eof_ok)
      buf = @io.read(n)
      return nil if buf.nil? && eof_ok
      got = buf ? buf.bytesize : 0
      raise FrameError, "end of file after #{got} of #{n} bytes" if got < n
      buf
    end
  end
end
