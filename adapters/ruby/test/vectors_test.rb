# The Ruby adapter's self-test: its own fold and frame codec (pgcb/fold.rb,
# pgcb/block.rb, pgcb/frames.rb: the code the adapter runs, not a copy)
# against the shared bridge test vectors. No server, no network.
#
#     /usr/bin/ruby --disable=did_you_mean build/adapters/ruby/test/vectors_test.rb [DIR]
#
# DIR (or $PGCB_VECTORS; default tests/vectors, from the checkout's top) holds
# folds.json and frames.json (their "about" says what they are). minitest
# runs one test per check, in the files' order; a failed check prints one
# line naming the vector, the case and what the adapter got against what the
# vector wants, and the last line on stdout is always
#
#     vectors: ruby: F folds, R frames checked
#
# F: the fold cases checked (every case of every vector), R: the entries of
# frames.json checked (arrays + requests + replies). Exit status 0 when every
# check passed; a missing or unreadable vectors file fails (never a skip).
# Minitest's -n works after DIR (-n /fold/: those checks only).
require "json"
require "socket"
require "minitest"
require_relative "../pgcb/errors"
require_relative "../pgcb/block"  # Fold, Block, Buffers
require_relative "../pgcb/frames" # Channel

module PGCBVectors
  DIR = (ARGV.first && !ARGV.first.start_with?("-") ? ARGV.shift : nil) ||
        ENV["PGCB_VECTORS"] || "tests/vectors"
  UNIT = "bytes" # the adapter's hello says text_length "bytes" (String#bytesize)
  LOAD_ERRORS = []

  def self.load(file)
    JSON.parse(File.read(File.join(DIR, file)))
  rescue SystemCallError, IOError, JSON::ParserError => e
    LOAD_ERRORS << "#{File.join(DIR, file)}: #{e.class}: #{e.message.lines.first.to_s.chomp}"
    nil
  end

  # A file without the arrays it must have fails too (never zero checks).
  def self.need(doc, file, keys)
    return doc if doc.nil?
    keys.each do |k|
      LOAD_ERRORS << "#{File.join(DIR, file)}: no array #{k}" unless doc.is_a?(Hash) && doc[k].is_a?(Array)
    end
    doc.is_a?(Hash) ? doc : nil
  end

  FOLDS = need(load("folds.json"), "folds.json", %w[vectors])
  FRAMES = need(load("frames.json"), "frames.json", %w[arrays requests replies])

  # An opaque non-null value: what the pg gem delivers for a date, decimal,
  # uuid ... (Time, BigDecimal, String); the fold reads it as kind any.
  Other = Struct.new(:text, :type)

  # A dumped value as the Ruby value the pg gem delivers (docs/bridge-protocol.md,
  # "Dumps"): nil, true/false, Integer (an {"int": "N"} too: Ruby's Integer
  # is exact at any size, as an int8 arrives), Float ({"float": "NaN"|
  # "Infinity"|"-Infinity"|"-0"} too), a UTF-8 String, a binary String for
  # {"bytes": hex}, an Array for an array.
  FLOATS = { "NaN" => Float::NAN, "Infinity" => Float::INFINITY, "-Infinity" => -Float::INFINITY,
             "-0" => -0.0 }.freeze

  def self.value(v)
    case v
    when Array then v.map { |e| value(e) }
    when Hash
      if v.key?("int") then Integer(v["int"], 10)
      elsif v.key?("float") then FLOATS.fetch(v["float"])
      elsif v.key?("bytes") then [v["bytes"]].pack("H*")
      elsif v.key?("other") then Other.new(v["other"], v["type"])
      else raise ArgumentError, "unknown dumped value #{v.inspect}"
      end
    else v # nil, true, false, Integer, Float, String
    end
  end

  def self.short(v, max = 120)
    s = v.is_a?(String) ? v : v.inspect
    s.length > max ? "#{s[0, max]}... (#{s.length} chars)" : s
  end

  # Each check is one test method, named "test_<what> <vector> ...", run in
  # the files' order.
  class Test < Minitest::Test
    ORDER = []

    def self.runnable_methods = ORDER

    def self.check(name, &blk)
      ORDER << name
      define_method(name, &blk)
    end

    # The loading itself: a missing or unreadable file fails.
    unless LOAD_ERRORS.empty?
      check("test_load vectors") { flunk(LOAD_ERRORS.join("\n")) }
    end

    # A socketpair: [the peer (the bridge's end), a Channel on the other end
    # (the adapter's fd 3)].
    def channel
      bridge, adapter = UNIXSocket.pair
      [bridge, adapter, PGCB::Channel.new(adapter.fileno)]
    end

    # --- folds.json: each case runs a block of two batches of the vector's
    # executions through Block.run (as the null client's plan does: each
    # execution's rows, an Array of row Arrays as PG::Result#values gives
    # them, handed to the run's Fold::Acc in order) with Fold.compile(kinds),
    # as op_run does; both batches' folds must be the case's fold[bytes]
    # and their row counts the results' rows.
    (FOLDS || {}).fetch("vectors", []).each do |vec|
      vec["cases"].each_with_index do |c, k|
        label = "fold '#{vec['name']}' case #{k} (kinds #{c['kinds'].to_json})"
        check("test_#{label}") do
          results = vec["results"].map { |r| r["rows"].map { |row| row.map { |v| PGCBVectors.value(v) } } }
          nrows = results.sum(&:length)
          want = c["fold"].fetch(UNIT)
          buf = PGCB::Buffers.new
          batch = ->(_i, acc) { results.each { |rows| acc.add(rows) } }
          done, _cpu, exc = PGCB::Block.run(2, batch, PGCB::Fold.compile(c["kinds"]), buf)
          assert(exc.nil?, "#{label}: the batch raised #{exc.class}: #{exc&.message}")
          assert(done == 2, "#{label}: #{done} of 2 batches done")
          got = buf.folds[0, 2]
          assert(got == [want, want], "#{label}: fold got #{got.uniq.join(', ')}, want #{want}")
          assert(buf.rows[0, 2] == [nrows, nrows], "#{label}: rows got #{buf.rows[0, 2].uniq.join(', ')}, want #{nrows}")
        end
      end
    end

    # --- frames.json arrays: Buffers#raw (the arrays frame's payload) sent by
    # Channel#encode + #write_frame after a reply (as op_run's success and
    # op_load send them): what follows the reply frame on the socket must be
    # frame_hex, byte for byte, and the reply must say "arrays": "frame".
    # n = 0: the adapter sends no frame (op_load: done.positive?), raw is
    # empty. Buffers#encoded (the base64 form, in failure and dump replies)
    # must be the vector's base64 strings.
    (FRAMES || {}).fetch("arrays", []).each do |vec|
      label = "arrays '#{vec['name']}'"
      check("test_#{label}") do
        n = vec["folds"].length
        buf = PGCB::Buffers.new
        buf.reserve(n)
        n.times do |i|
          buf.samples[i] = Integer(vec["samples"][i], 10)
          buf.rows[i] = Integer(vec["rows"][i], 10)
          buf.folds[i] = vec["folds"][i]
        end
        bad = []
        if vec["frame_hex"].nil?
          bad << "#{label}: raw(0) got #{buf.raw(0).bytesize} bytes, want none (no frame)" unless buf.raw(0).empty?
        else
          bridge, adapter, chan = channel
          chan.write_frame(chan.encode({ "ok" => true, "cpu_ns" => 0 }, buf.raw(n)))
          adapter.close
          wire = bridge.read
          bridge.close
          len = wire.unpack1("N")
          reply = (JSON.parse(wire.byteslice(4, len)) if len <= wire.bytesize - 4 rescue nil)
          unless reply.is_a?(Hash) && reply["arrays"] == "frame"
            bad << "#{label}: reply frame (length prefix #{len} of #{wire.bytesize - 4} bytes) got " \
                   "#{PGCBVectors.short(reply)}, want JSON with \"arrays\": \"frame\""
          end
          got = (wire.byteslice(4 + len..) || "").unpack1("H*")
          unless got == vec["frame_hex"]
            bad << "#{label}: frame got #{got.empty? ? '(no bytes)' : PGCBVectors.short(got, 256)}, " \
                   "want #{PGCBVectors.short(vec['frame_hex'], 256)}"
          end
        end
        buf.encoded(n).each do |k, got|
          want = vec["base64"][k]
          bad << "#{label}: base64 #{k} got #{got.inspect}, want #{want.inspect}" unless got == want
        end
        assert(bad.empty?, bad.join("\n"))
      end
    end

    # --- frames.json requests: the bridge's bytes, written in small pieces
    # (1 to 1000 bytes, the writer yielding between them) into a socketpair
    # whose other end is the adapter's Channel#read: it must decode the
    # request (deep equality), then return nil at the end of file that
    # follows it.
    PIECES = [1, 2, 3, 1, 5, 7, 11, 64, 1000].freeze

    (FRAMES || {}).fetch("requests", []).each do |vec|
      label = "request '#{vec['name']}'"
      check("test_#{label}") do
        wire = [vec["wire_hex"]].pack("H*")
        bridge, adapter, chan = channel
        writer = Thread.new do
          at = 0
          PIECES.cycle do |n|
            break if at >= wire.bytesize
            bridge.write(wire.byteslice(at, n))
            at += n
            Thread.pass
          end
          bridge.close
        end
        got = chan.read
        after = chan.read
        writer.join
        adapter.close
        want = vec["request"]
        bad = []
        if got.is_a?(Hash) && want.is_a?(Hash)
          (got.keys | want.keys).each do |k|
            next if got[k] == want[k]
            bad << "#{label}: field #{k} got #{PGCBVectors.short(got[k])}, want #{PGCBVectors.short(want[k])}"
          end
        elsif got != want
          bad << "#{label}: got #{PGCBVectors.short(got)}, want #{PGCBVectors.short(want)}"
        end
        bad << "#{label}: after the frame got #{PGCBVectors.short(after)}, want nil (end of file)" unless after.nil?
        assert(bad.empty?, bad.join("\n"))
      end
    end

    # --- frames.json replies: Channel#encode + #write_frame (the session's
    # reply writer) on the socket: one frame, its 4-byte big-endian length
    # the payload's UTF-8 byte count, the payload UTF-8 JSON that parses
    # back to the reply.
    (FRAMES || {}).fetch("replies", []).each do |vec|
      label = "reply '#{vec['name']}'"
      check("test_#{label}") do
        bridge, adapter, chan = channel
        chan.write_frame(chan.encode(vec["reply"]))
        adapter.close
        wire = bridge.read
        bridge.close
        len = wire.unpack1("N")
        payload = wire.byteslice(4, wire.bytesize - 4).force_encoding(Encoding::UTF_8)
        assert(len == payload.bytesize,
               "#{label}: length prefix got #{len}, want #{payload.bytesize} (the payload's UTF-8 bytes)")
        assert(payload.valid_encoding?, "#{label}: payload is not UTF-8")
        got = JSON.parse(payload)
        assert(got == vec["reply"], "#{label}: got #{PGCBVectors.short(got)}, want #{PGCBVectors.short(vec['reply'])}")
      end
    end
  end

  # Minitest's output replaced: one line per failed check (an exception's
  # too), then the count line, last on stdout.
  class Reporter < Minitest::AbstractReporter
    def initialize(io)
      super()
      @io = io
      @folds = @frames = @failed = 0
    end

    def record(result)
      name = result.name.delete_prefix("test_")
      if name.start_with?("fold ")
        @folds += 1
      elsif name.start_with?("arrays ", "request ", "reply ")
        @frames += 1
      end
      result.failures.each do |f|
        @failed += 1
        if f.is_a?(Minitest::UnexpectedError)
          e = f.error
          @io.puts("#{name}: raised #{e.class}: #{e.message.gsub(/\s*\n\s*/, ' ')} at #{(e.backtrace || []).first}")
        else
          @io.puts(f.message)
        end
      end
    end

    def report
      @io.puts("vectors: ruby: #{@folds} folds, #{@frames} frames checked")
    end

    def passed? = @failed.zero?
  end
end

module Minitest
  def self.plugin_pgcb_vectors_init(options)
    reporter.reporters.clear
    reporter << PGCBVectors::Reporter.new(options[:io])
  end
end
Minitest.extensions << "pgcb_vectors" # and no other plugin (load_plugins skips)
Minitest.autorun
