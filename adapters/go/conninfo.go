// conninfo.go -- the connect request as a keyword=value connection string,
// which every client here parses (pgx's ParseConfig, lib/pq's connector).
package main

import (
	"os"
	"strings"
)

// dsnValue quotes a value for a keyword=value connection string.
func dsnValue(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

// clearPGEnv removes the libpq variables from the environment: the bridge
// resolved them already, and the clients would otherwise add what they say
// (PGSSLMODE, PGSERVICE, PGCONNECT_TIMEOUT ...) to the settings given.
func clearPGEnv() {
	for _, kv := range os.Environ() {
		k := kv
		if i := strings.IndexByte(kv, '='); i >= 0 {
			k = kv[:i]
		}
		if strings.HasPrefix(k, "PG") && !strings.HasPrefix(k, "PGCB_") {
			os.Unsetenv(k)
		}
	}
}

// connString is exactly the connect request's settings (without the
// password, which each client is given apart: no quoting to get wrong);
// sslmode disable when the request says none.
func connString(r *connRequest, extra ...string) string {
	sslmode := r.SSLMode
	if sslmode == "" {
		sslmode = "disable"
	}
	var dsn strings.Builder
	add := func(k, v string) {
		if dsn.Len() > 0 {
			dsn.WriteByte(' ')
		}
		dsn.WriteString(k + "=" + dsnValue(v))
	}
	add("host", r.Host)
	add("port", r.Port)
	add("user", r.User)
	add("dbname", r.DBName)
	add("sslmode", sslmode)
	if r.ApplicationName != nil {
		add("application_name", *r.ApplicationName)
	}
	if r.Options != nil {
		add("options", *r.Options)
	}
	for i := 0; i+1 < len(extra); i += 2 {
		add(extra[i], extra[i+1])
	}
	return dsn.String()
}
