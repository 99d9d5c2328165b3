# Dumps: what a client delivered, as the protocol's JSON values
# (docs/bridge-protocol.md, "Dumps"). Runs after the batch was timed and
# folded, never in a timed block.
#
#     nil                          -> null
#     true / false                 -> true / false
#     Integer, |v| <= 2^53         -> a JSON integer; beyond: {"int": "<decimal>"}
#     Float                        -> a JSON number (Float#to_s: the shortest
#                                     round trip); NaN, Infinity, -Infinity,
#                                     -0.0 -> {"float": "NaN" | ...}
#     String, a bytea column's or binary (ASCII-8BIT) -> {"bytes": "<hex>"}
#     String                       -> a string
#     by the column's type (its OID):
#     Time of a timestamptz        -> {"other": UTC "YYYY-MM-DD HH:MM:SS.ffffff+00"}
#     Time of a timestamp          -> {"other": its wall time, no offset}
#     Date                         -> {"other": "YYYY-MM-DD"} (" BC" for year <= 0)
#     BigDecimal                   -> {"other": its digits without exponent
#                                     (to_s("F"), a whole number without ".0"),
#                                     "NaN", "Infinity", "-Infinity"}
#     a json/jsonb value the pg gem parsed (Hash, Array ...) -> {"other":
#                                     JSON.generate of it}: re-serialised, not
#                                     the server's text
#     an Array of an int4[]/int8[]/text[]/float8[] column -> a JSON array of
#                                     the elements' encodings (nested)
#     anything else                -> {"other": to_s, "type": its class}
require "json"
require "bigdecimal"
require "date"

module PGCB
  module Dump
    INT_EXACT = 1 << 53
    OID_BYTEA = 17
    OID_JSON = [114, 3802].freeze
    OID_ARRAYS = [1007, 1009, 1016, 1022].freeze
    OID_TIMESTAMPTZ = 1184

    def self.other(text, v)
      { "other" => text, "type" => v.class.name }
    end

    def self.float(v)
      return { "float" => "NaN" } if v.nan?
      return { "float" => v > 0 ? "Infinity" : "-Infinity" } if v.infinite?
      return { "float" => "-0" } if v.zero? && (1.0 / v).negative?
      v
    end

    def self.year_text(y)
      y <= 0 ? format("%04d", 1 - y) : format("%04d", y)
    end

    def self.time_text(t, oid)
      t = t.getutc if oid == OID_TIMESTAMPTZ
      s = format("%s-%02d-%02d %02d:%02d:%02d", year_text(t.year), t.month, t.day,
                 t.hour, t.min, t.sec)
      s << format(".%06d", t.usec) if t.usec != 0
      s << "+00" if oid == OID_TIMESTAMPTZ
      s << " BC" if t.year <= 0
      s
    end

    def self.decimal_text(v)
      return "NaN" if v.nan?
      return (v > 0 ? "Infinity" : "-Infinity") if v.infinite?
      s = v.to_s("F")
      s.end_with?(".0") ? s[0..-3] : s
    end

    def self.value(v, oid = nil)
      return other(JSON.generate(v, quirks_mode: true), v) if !v.nil? && OID_JSON.include?(oid)
      case v
      when nil then nil
      when true, false then v
      when Integer then v.abs <= INT_EXACT ? v : { "int" => v.to_s }
      when Float then float(v)
      when String
        if oid == OID_BYTEA || v.encoding == Encoding::BINARY
          { "bytes" => v.unpack1("H*") }
        else
          v
        end
      when Time then other(time_text(v, oid), v)
      when Date
        other(format("%s-%02d-%02d%s", year_text(v.year), v.month, v.day,
                     v.year <= 0 ? " BC" : ""), v)
      when BigDecimal then other(decimal_text(v), v)
      else
        if v.is_a?(Array) && OID_ARRAYS.include?(oid)
          v.map { |e| value(e, oid) }
        elsif v.is_a?(Array) || v.is_a?(Hash)
          other(JSON.generate(v), v)
        else
          other(v.to_s, v)
        end
      end
    end

    # One execution's dump entry: columns [[name, type oid]], rows as the
    # client returned them (Arrays of values).
    def self.result(columns, rows)
      oids = columns.map { |_, oid| oid.to_i }
      { "columns" => columns.map { |name, oid| { "name" => name.to_s, "type" => oid.to_i } },
        "rows" => rows.map { |row| row.each_with_index.map { |v, j| value(v, oids[j]) } } }
    end
  end
end
