package pgcb.adapter;

import java.sql.Connection;
import java.sql.SQLException;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;

/**
 * The pgjdbc client's pool: HikariCP (7.1, Maven Central's),
 * the JDBC world's pool (Spring Boot's default), with slf4j's no-op binding
 * (slf4j-nop) so that it logs nothing.
 *
 * maximumPoolSize = minimumIdle = P; the settings that would retire a
 * connection and open its successor inside a timed load are off
 * (idleTimeout 0, maxLifetime 0); a borrower waits up to an hour for a free
 * connection (connectionTimeout). Everything else is HikariCP's default,
 * which every HikariCP user pays too: a connection idle for more than
 * 500 ms is validated (Connection.isValid(): pgjdbc's empty query, a round
 * trip) when it is borrowed, and its state reset when it is given back.
 * All P are open before open() returns: P are borrowed at once (HikariCP
 * fills a pool in the background) and given back.
 *
 * This class alone names HikariCP: without HikariCP's jar the adapter
 * runs everything but pools, and a pool fails with kind config naming the
 * package (PgjdbcClient checks before it loads this class).
 */
final class HikariPool {
    private final HikariDataSource ds;
    private HikariPool(HikariDataSource ds) {
        this.ds = ds;
    }

    static HikariPool open(Conn cn, int size) throws SQLException {
        HikariConfig cfg = new HikariConfig();
        cfg.setPoolName("pgcb");
        cfg.setJdbcUrl(cn.url);
        cfg.setDataSourceProperties(cn.props);
        cfg.setMaximumPoolSize(size);
        cfg.setMinimumIdle(size);
        cfg.setIdleTimeout(0);
        cfg.setMaxLifetime(0);
        cfg.setConnectionTimeout(3_600_000L);
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(cfg);
        } catch (RuntimeException e) { // HikariPool$PoolInitializationException: the first connection failed
            Throwable c = e.getCause() != null ? e.getCause() : e;
            throw new SQLException(c.getMessage() != null ? c.getMessage() : Failure.describe(c), e);
        }
        Connection[] all = new Connection[size];
        try {
            for (int k = 0; k < size; k++) {
                all[k] = ds.getConnection();
            }
        } catch (SQLException e) {
            ds.close();
            throw e;
        } finally {
            for (Connection c : all)
                if (c != null)
                    try {
                        c.close();
                    } catch (SQLException e) {
                        // given back or retired: either way not ours
                    }
        }
        return new HikariPool(ds);
    }

    DataSource dataSource() {
        return ds;
    }

    void close() {
        ds.close();
    }
}
