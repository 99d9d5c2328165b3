# Failure replies (docs/bridge-protocol.md, "Frames").
#
# An AdapterError is what a request handler raises to fail the request: the
# protocol's `kind` (config, connect, query, io, protocol, unsupported), a
# message and, for `query`, the SQLSTATE. Session turns it into
# {"ok": false, "kind": ..., "error": ..., "sqlstate": ...}; every message goes
# through PGCB.one_line and the session's password scrubbing first.
module PGCB
  KINDS = %w[config connect query io protocol unsupported].freeze
  MAX_ERROR_CHARS = 1000 # the rest is cut with "..."

  class AdapterError < StandardError
    attr_reader :kind, :sqlstate

    def initialize(kind, message, sqlstate = nil)
      raise ArgumentError, "kind #{kind}" unless KINDS.include?(kind)
      super(message.to_s)
      @kind = kind
      @sqlstate = sqlstate
    end

    # The failure reply (a Hash), its message one line and scrubbed by the
    # block given (the session's password filter).
    def reply
      msg = PGCB.one_line(message)
      msg = yield(msg) if block_given?
      out = { "ok" => false, "kind" => @kind, "error" => msg.empty? ? "#{@kind} error" : msg }
      if @sqlstate
        out["sqlstate"] = @sqlstate
      elsif @kind == "query"
        out["sqlstate"] = "XX000" # the spec requires one; never expected here
      end
      out
    end
  end

  # text's non-empty lines, stripped, joined with "; ", at most MAX_ERROR_CHARS.
  def self.one_line(text)
    s = text.to_s.scrub("?").lines.map(&:strip).reject(&:empty?).join("; ")
    s = s[0, MAX_ERROR_CHARS - 3] + "..." if s.length > MAX_ERROR_CHARS
    s
  end

  # "ClassName: message" of an unexpected exception, for internal errors.
  def self.describe(exc)
    msg = one_line(exc.message)
    msg.empty? ? exc.class.name : "#{exc.class.name}: #{msg}"
  end
end
