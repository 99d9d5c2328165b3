# The clients hello can name, each in its own file, required only when named:
# a missing pg gem does not break the null client.
#
# A client file defines a subclass of Clients::Base (pgcb/clients/base.rb).
# Requiring it requires its library; a LoadError then is hello's `config`
# failure naming the gem and the Debian package that provides it.
require_relative "errors"

module PGCB
  module Clients
    # client name -> [file under clients/, class name, gem it needs, Debian package]
    TABLE = {
      "pg" => ["pg_client", "PgClient", "pg", "ruby-pg"],
      "null" => ["null_client", "NullClient", nil, nil],
    }.freeze

    def self.load(name)
      entry = name.is_a?(String) ? TABLE[name] : nil
      unless entry
        raise AdapterError.new("config", "unknown client #{name.inspect}; the Ruby adapter knows: #{TABLE.keys.join(', ')}")
      end
      file, cls, gem, package = entry
      begin
        require_relative "clients/#{file}"
      rescue LoadError => e
        raise AdapterError.new("config", "client #{name}: cannot load the #{gem} gem (#{PGCB.one_line(e.message)}); " \
                                         "it is in the Debian package #{package} for /usr/bin/ruby: run scripts/install-deps.sh")
      end
      const_get(cls)
    end
  end
end
