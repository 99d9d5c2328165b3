# The request loop (docs/bridge-protocol.md, "The requests, in order").
#
# Session.main reads requests from PGCB_BRIDGE_FD (3) and answers each with
# exactly one reply; it returns 0 at end of file (after dropping the
# connection) or after `close`, 1 when the stream breaks (a bad frame length,
# end of file inside a frame, the socket gone). Nothing is sent unasked.
#
# Session#handle turns every outcome into a reply, never an exception: an
# AdapterError is its failure reply; any other exception is mapped by the
# client (Client#failure: query with the SQLSTATE, io when the connection is
# broken ...) or, without a client, is kind protocol; its backtrace goes to
# stderr, which the bridge keeps the tail of. Every failure message is one
# line and has the connect request's password replaced by ***.
#
# Order: hello first and once; connect once, after it (with "pool": P, the
# client's own pool of P connections); prepare, run, stream and load (a pool
# only) after connect; phase and close at any time.
require_relative "version"
require_relative "errors"
require_relative "frames"
require_relative "block"
require_relative "dump"
require_relative "load"
require_relative "stream"
require_relative "clients"

module PGCB
  class Session
    RUN_FIELDS = %w[done samples rows folds cpu_ns].freeze
    OPS = %w[hello connect prepare run load stream phase close].freeze

    attr_reader :closed

    def initialize
      @client = nil
      @client_name = nil
      @connected = false
      @stmts = {}
      @password = nil
      @buf = Buffers.new
      @closed = false
      @pool = nil
    end

    # msg with the password replaced by ***. As the bridge does, a password
    # shorter than 3 characters is left alone (replacing it would garble
    # every message).
    def scrub(msg)
      return msg unless @password && @password.length >= 3
      msg.gsub(@password, "***")
    end

    # [reply Hash, arrays String or nil] of one request.
    def handle(req)
      raise AdapterError.new("protocol", "request is not a JSON object") unless req.is_a?(Hash)
      op = req["op"]
      raise AdapterError.new("protocol", "request without a string op") unless op.is_a?(String)
      unless OPS.include?(op)
        raise AdapterError.new("unsupported", "unknown op #{op.inspect} (protocol #{PROTOCOL}: #{OPS.join(', ')})")
      end
      out = send("op_#{op}", req)
      out.is_a?(Array) ? out : [out, nil]
    rescue AdapterError => e
      [as_run(req, e.reply { |m| scrub(m) }), nil]
    rescue StandardError, ScriptError => e
      warn "pgcb ruby adapter: #{e.class}: #{e.message}\n  #{(e.backtrace || []).first(8).join("\n  ")}"
      if @client && @connected
        begin
          return [as_run(req, @client.failure(e).reply { |m| scrub(m) }), nil]
        rescue StandardError => e2
          warn "pgcb ruby adapter: #{e2.class}: #{e2.message}"
        end
      end
      [as_run(req, AdapterError.new("protocol", "internal error: #{PGCB.describe(e)}").reply { |m| scrub(m) }), nil]
    end

    # A failed run always says how many batches completed (a refusal before
    # the first: none); a failed load likewise, a failed stream its rows.
    def as_run(req, reply)
      op = req.is_a?(Hash) ? req["op"] : nil
      if op == "run" && !reply.key?("done")
        reply.update("done" => 0, "samples" => "", "rows" => "", "folds" => "", "cpu_ns" => 0)
      elsif op == "load" && !reply.key?("done")
        reply.update("done" => 0, "wall_ns" => 0, "cpu_ns" => 0, "late_ns" => 0)
      elsif op == "stream" && !reply.key?("rows")
        reply["rows"] = 0
      end
      reply
    end

    # The failure sent instead of a reply that exceeds the frame limit (a
    # huge dump): the block's own fields are kept.
    def too_large(reply, exc)
      out = AdapterError.new("unsupported", exc.message).reply { |m| scrub(m) }
      RUN_FIELDS.each { |k| out[k] = reply[k] if reply.key?(k) }
      out
    end

    def terminate
      @client&.terminate
    end

    private

    def int_field(req, key, lo, default = nil)
      v = req.fetch(key, default)
      unless v.is_a?(Integer) && v >= lo
        raise AdapterError.new("protocol", "#{req['op']}: #{key} must be an integer >= #{lo}, got #{v.inspect}")
      end
      v
    end

    def need_connection(op)
      raise AdapterError.new("protocol", "#{op} before connect") unless @connected
    end

    def op_hello(req)
      raise AdapterError.new("protocol", "hello was already answered") if @client
      proto = req["protocol"]
      raise AdapterError.new("protocol", "hello: protocol must be an integer") unless proto.is_a?(Integer)
      if proto != PROTOCOL
        raise AdapterError.new("unsupported", "the Ruby adapter speaks bridge protocol #{PROTOCOL}, not #{proto}")
      end
      options = req["options"] || {}
      unless options.is_a?(Hash) && options.values.all? { |v| v.is_a?(String) }
        raise AdapterError.new("config", "hello: options must be an object of strings")
      end
      format = req["result_format"]
      unless [nil, "text", "binary"].include?(format)
        raise AdapterError.new("protocol", "hello: result_format must be \"text\" or \"binary\", not #{format.inspect}")
      end
      name = req["client"]
      client = Clients.load(name).new(options, format)
      reply = { "ok" => true, "protocol" => PROTOCOL, "adapter" => ADAPTER,
                "adapter_version" => ADAPTER_VERSION, "runtime" => PGCB.runtime, "client" => name }
      reply.update(client.info)
      reply["no_io"] = client.no_io?
      reply["load"] = client.load?
      reply["stream"] = client.stream?
      reply["text_length"] = "bytes"
      wire = client.wire
      reply["wire"] = wire if wire
      @client = client
      @client_name = name
      reply
    end

    def op_connect(req)
      raise AdapterError.new("protocol", "connect before hello") unless @client
      raise AdapterError.new("protocol", "connect was already answered") if @connected
      conn = req["conn"]
      raise AdapterError.new("protocol", "connect: conn must be an object or null") unless conn.nil? || conn.is_a?(Hash)
      @password = conn["password"] if conn && conn["password"].is_a?(String)
      pool = nil
      if req.key?("pool")
        pool = int_field(req, "pool", 1)
        raise AdapterError.new("unsupported", "client #{@client_name} has no pool (hello said load: false)") unless @client.load?
      end
      begin
        @client.connect(conn, pool)
      rescue AdapterError
        raise
      rescue StandardError => e
        warn "pgcb ruby adapter: connect: #{e.class}: #{e.message}"
        raise AdapterError.new("connect", PGCB.describe(e))
      end
      @connected = true
      @pool = pool
      { "ok" => true }
    end

    def op_prepare(req)
      need_connection("prepare")
      number = int_field(req, "stmt", 0)
      name = req.fetch("name", "")
      sql = req["sql"]
      raise AdapterError.new("protocol", "prepare: sql and name must be strings") unless sql.is_a?(String) && name.is_a?(String)
      nparams = int_field(req, "nparams", 0, 0)
      @stmts.delete(number)
      @stmts[number] = @client.prepare(number, name, sql, nparams)
      { "ok" => true }
    end

    def stmt(req, key)
      number = req[key]
      unless number.is_a?(Integer) && @stmts.key?(number)
        raise AdapterError.new("protocol", "#{req['op']}: #{key} #{number.inspect} is not a prepared statement")
      end
      @stmts[number]
    end

    def kinds(req)
      Fold.compile(req["kinds"])
    rescue ArgumentError => e
      raise AdapterError.new("protocol", "#{req['op']}: #{e.message}")
    end

    # params: nil, or count Arrays of Strings and nils.
    def params(req, count, exact)
      params = req["params"]
      return nil if params.nil?
      unless params.is_a?(Array) && (exact ? params.length == count : params.length >= count) &&
             params.all? { |p| p.is_a?(Array) }
        raise AdapterError.new("protocol", "#{req['op']}: params must be #{count} arrays")
      end
      params = params[0, count]
      params.each do |p|
        p.each do |v|
          next if v.nil? || v.is_a?(String)
          raise AdapterError.new("protocol", "#{req['op']}: a parameter is #{v.inspect}, not a string or null")
        end
      end
      params
    end

    def op_run(req)
      need_connection("run")
      st = stmt(req, "stmt")
      depth = int_field(req, "depth", 1)
      batches = int_field(req, "batches", 1)
      begin_st = commit_st = nil
      if !req["begin"].nil? || !req["commit"].nil?
        begin_st = stmt(req, "begin")
        commit_st = stmt(req, "commit")
      end
      k = kinds(req)
      dump = req.fetch("dump", false)
      raise AdapterError.new("protocol", "run: dump must be a boolean") unless [true, false].include?(dump)
      raise AdapterError.new("protocol", "run: a dump needs batches = 1, got #{batches}") if dump && batches != 1
      prm = params(req, batches * depth, true)

      plan = @client.plan(st, depth, begin_st, commit_st, prm, dump)
      buf = @buf
      buf.reserve(batches)
      begin
        done, cpu_ns, exc = Block.run(batches, plan.batch, k, buf)
        pending = nil
        pending = exc.is_a?(AdapterError) ? exc : @client.failure(exc) if exc
      ensure
        @client.release_run
      end
      if pending
        reply = pending.reply { |m| scrub(m) }
        reply["done"] = done
        reply.update(buf.encoded(done))
        reply["cpu_ns"] = cpu_ns
        return reply
      end
      unless dump
        return [{ "ok" => true, "cpu_ns" => cpu_ns }, buf.raw(done)]
      end
      reply = { "ok" => true }
      reply.update(buf.encoded(done))
      reply["cpu_ns"] = cpu_ns
      reply["results"] = plan.kept.each_with_index.map { |rows, j| Dump.result(plan.columns[j], rows) }
      reply
    end

    def op_load(req)
      need_connection("load")
      raise AdapterError.new("protocol", "load: connect had no pool (\"pool\": P)") if @pool.nil?
      st = stmt(req, "stmt")
      mode = req["mode"]
      unless [Load::CLOSED, Load::RATE].include?(mode)
        raise AdapterError.new("protocol", "load: mode must be \"closed\" or \"rate\", not #{mode.inspect}")
      end
      concurrency = int_field(req, "concurrency", 1)
      rate = req.fetch("rate", 0)
      unless rate.is_a?(Numeric) && rate >= 0 && (mode != Load::RATE || rate > 0)
        raise AdapterError.new("protocol", "load: rate must be a number (> 0 in rate mode), got #{rate.inspect}")
      end
      duration_ns = int_field(req, "duration_ns", 0)
      min_queries = int_field(req, "min_queries", 0, 0)
      max_queries = int_field(req, "max_queries", 1)
      k = kinds(req)
      prm = params(req, max_queries, false)
      spec = Load::Spec.new(mode, concurrency, rate.to_f, duration_ns, min_queries, max_queries)
      @buf.reserve(max_queries)
      done, wall_ns, cpu_ns, late_ns, exc = @client.run_load(st, spec, prm, k, @buf)
      reply = if exc
                (exc.is_a?(AdapterError) ? exc : @client.load_failure(exc)).reply { |m| scrub(m) }
              else
                { "ok" => true }
              end
      reply.update("done" => done, "wall_ns" => wall_ns, "cpu_ns" => cpu_ns, "late_ns" => late_ns)
      [reply, done.positive? ? @buf.raw(done) : nil] # a frame is never empty
    end

    # One whole result of stmt (docs/bridge-protocol.md, "stream"), read by
    # the client's buffered or streamed idiom, which times itself
    # (pgcb/stream.rb); a failure says the rows delivered before it.
    def op_stream(req)
      need_connection("stream")
      st = stmt(req, "stmt")
      mode = req["mode"]
      unless Stream::MODES.include?(mode)
        raise AdapterError.new("protocol", "stream: mode must be \"buffered\" or \"streamed\", not #{mode.inspect}")
      end
      fetch = int_field(req, "fetch", 0, 0)
      prm = req["params"]
      unless prm.nil? || (prm.is_a?(Array) && prm.all? { |v| v.nil? || v.is_a?(String) })
        raise AdapterError.new("protocol", "stream: params must be null or an array of strings and nulls")
      end
      sample = Stream::Sample.new
      idiom = pending = nil
      begin
        idiom = @client.stream(st, mode, fetch, prm, sample)
      rescue StandardError => e
        pending = e.is_a?(AdapterError) ? e : @client.failure(e)
      ensure
        @client.release_run
      end
      return pending.reply { |m| scrub(m) }.update("rows" => sample.rows) if pending
      sample.reply(idiom)
    end

    # Garbage is collected before a group's warm-up only, never right before
    # an execution order: each order runs in the state the warm-up left.
    def op_phase(req)
      return { "ok" => true, "gc" => false } unless req["phase"] == "warmup"
      GC.start
      { "ok" => true, "gc" => true }
    end

    def op_close(_req)
      @closed = true
      begin
        @client&.close
      rescue StandardError => e
        warn "pgcb ruby adapter: close: #{e.class}: #{e.message}"
      end
      { "ok" => true }
    end

    public

    def self.main
      fd = Integer(ENV.fetch("PGCB_BRIDGE_FD", "3"), exception: false) || 3
      chan = Channel.new(fd)
      session = new
      loop do
        begin
          req = chan.read
        rescue BadPayload => e
          reply = [AdapterError.new("protocol", e.message).reply, nil]
        rescue FrameError, SystemCallError, IOError => e
          warn "pgcb ruby adapter: fd #{fd}: #{e.message}"
          session.terminate
          return 1
        else
          if req.nil?
            session.terminate
            return 0
          end
          reply = session.handle(req)
        end
        begin
          frame = chan.encode(*reply)
        rescue FrameTooLarge => e
          frame = chan.encode(session.too_large(reply[0], e))
        rescue JSON::GeneratorError, EncodingError => e
          frame = chan.encode(AdapterError.new("protocol", "internal error: reply not encodable: #{PGCB.one_line(e.message)}").reply)
        end
        begin
          chan.write_frame(frame)
        rescue SystemCallError, IOError => e
          warn "pgcb ruby adapter: fd #{fd}: #{e.message}"
          session.terminate
          return 1
        end
        return 0 if session.closed
      end
    end
  end
end
