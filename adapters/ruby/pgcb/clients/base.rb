# What every client implements; the session drives it.
#
# Lifecycle: new(options, result_format) at hello (a bad option: AdapterError
# config), info and wire for hello's reply, connect(conn, pool) once,
# prepare(...) per statement, then per run: plan(...) outside timing (a
# Plan), the batches timed by Block.run, failure(exc) when a batch raised,
# release_run at the end (a pool's connection held for the run goes back);
# per load (a pool only, when load? is true): run_load(...) timed; per
# stream (when stream? is true): stream(st, mode, fetch, params, sample),
# which times itself (pgcb/stream.rb), then failure(exc) if it raised and
# release_run; close at `close`, terminate at end of file.
require_relative "../errors"

module PGCB
  module Clients
    # One run's batches, built outside the timed loop. batch: a lambda (i,
    # acc) that runs batch i and hands each execution's row Array to acc.add
    # (Fold::Acc) as soon as it has it, in order (Block.run); with a dump,
    # kept (the last batch's row Arrays) and columns ([[name, oid]] per
    # execution) are filled by the batch.
    Plan = Struct.new(:batch, :kept, :columns)

    # The keys of a connect request (docs/bridge-protocol.md, "connect").
    CONN_KEYS = %w[host port user password dbname application_name options sslmode].freeze

    class Base
      # option name -> [default, allowed values or nil, help]
      OPTIONS = {}.freeze

      attr_reader :opts

      def initialize(options, result_format)
        @result_format = result_format
        known = self.class::OPTIONS
        @opts = known.transform_values(&:first)
        options.each do |key, value|
          unless known.key?(key)
            raise AdapterError.new("config", "unknown option #{key.inspect} (= #{value.inspect}); #{name} knows " \
                                             "#{known.empty? ? 'no options' : known.keys.join(', ')}")
          end
          allowed = known[key][1]
          if allowed && !allowed.include?(value)
            raise AdapterError.new("config", "option #{key} = #{value.inspect}: expected #{allowed.join(' or ')}")
          end
          @opts[key] = value
        end
      end

      def name = self.class::NAME
      def no_io? = false
      def load? = false
      def stream? = false
      def wire = nil
      def release_run; end
      def load_failure(exc) = failure(exc)

      def run_load(*)
        raise AdapterError.new("unsupported", "client #{name} cannot run loads")
      end

      def stream(*)
        raise AdapterError.new("unsupported", "client #{name} has no stream idiom")
      end

      def close; end

      # End of file: drop the connection at once, quietly.
      def terminate
        close
      rescue StandardError
        nil
      end

      # The connect request's settings, checked: a Hash of Strings with known keys.
      def check_conn(conn)
        raise AdapterError.new("config", "client #{name} needs a server (connect had conn null)") if conn.nil?
        conn.each do |k, v|
          unless CONN_KEYS.include?(k)
            raise AdapterError.new("protocol", "connect: unknown key #{k.inspect} (known: #{CONN_KEYS.join(', ')})")
          end
          raise AdapterError.new("protocol", "connect: #{k} is not a string") unless v.is_a?(String)
        end
        conn
      end
    end
  end
end
