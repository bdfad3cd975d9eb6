package dev.sluice.dispatcher.sink;

import dev.sluice.api.secret.Redactor;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashSet;
import java.util.Properties;
import java.util.Set;

/**
 * How a JDBC sink URL reaches its server: which driver takes it, and a bounded check that it works.
 *
 * <p>Only MariaDB Connector/J is bundled for the MySQL family, and it refuses {@code jdbc:mysql:} unless
 * the URL says {@code permitMysqlScheme}; it speaks to MySQL and MariaDB servers alike, so a
 * {@code jdbc:mysql://} URL is handed to it as {@code jdbc:mariadb://} with the rest unchanged. Credentials
 * in the authority ({@code jdbc:mysql://user:password@host/db}, which neither driver parses: MariaDB's
 * took the password for a port and said so in its error) are taken out of the URL and given as the
 * {@code user} and {@code password} properties, percent-decoded. The URL as given stays what is shown
 * (redacted) and stored.
 *
 * <pre>{@code
 * JdbcTarget.driverUrl("jdbc:mysql://db:3306/app?user=u");   // "jdbc:mariadb://db:3306/app?user=u"
 * try (Connection c = JdbcTarget.connect(url, null, null)) { ... }
 * String db = JdbcTarget.check(url, null, null, Duration.ofSeconds(10));   // throws when it cannot work
 * }</pre>
 */
public final class JdbcTarget {

  private static final String MYSQL = "jdbc:mysql:";
  private static final String MARIADB = "jdbc:mariadb:";

  private JdbcTarget() {}

  /**
   * The URL the driver is given: {@code jdbc:mysql:} becomes {@code jdbc:mariadb:}, credentials in the
   * authority are left out ({@link #connect} passes them as properties); anything else is as is.
   */
  public static String driverUrl(String jdbcUrl) {
    String url = jdbcUrl.startsWith(MYSQL) ? MARIADB + jdbcUrl.substring(MYSQL.length()) : jdbcUrl;
    int at = userInfoEnd(url);
    return at < 0 ? url : url.substring(0, url.indexOf("://") + 3) + url.substring(at + 1);
  }

  /** The literal secrets of a target: what its URL holds in secret forms, and {@code password}. */
  public static Set<String> secrets(String jdbcUrl, String password) {
    Set<String> out = new LinkedHashSet<>(Redactor.secretsIn(jdbcUrl));
    if (password != null && !password.isEmpty()) {
      out.add(password);
    }
    return out;
  }

  /** Opens a connection to {@code jdbcUrl}; {@code user} and {@code password} may be null (in the URL). */
  public static Connection connect(String jdbcUrl, String user, String password) throws SQLException {
    return DriverManager.getConnection(driverUrl(jdbcUrl), credentials(jdbcUrl, user, password));
  }

  /**
   * Connects within {@code timeout} (connect, login and each statement), and checks the target names
   * a database with a default schema for the checkpoint tables, as the sink needs.
   *
   * @return the database or schema unqualified names resolve in (the checkpoint tables' home)
   * @throws SQLException what the driver said (unreachable host, bad credentials, unknown database), or
   *     SQL state 3D000 when the URL names no database
   */
  public static String check(String jdbcUrl, String user, String password, Duration timeout) throws SQLException {
    Dialect dialect = Dialect.fromJdbcUrl(jdbcUrl);
    Properties props = credentials(jdbcUrl, user, password);
    long seconds = Math.max(1, timeout.toSeconds());
    if (dialect == Dialect.POSTGRESQL) {   // PgJDBC: seconds
      props.setProperty("connectTimeout", Long.toString(seconds));
      props.setProperty("loginTimeout", Long.toString(seconds));
      props.setProperty("socketTimeout", Long.toString(seconds));
    } else {                               // MariaDB Connector/J: ms
      props.setProperty("connectTimeout", Long.toString(timeout.toMillis()));
      props.setProperty("socketTimeout", Long.toString(timeout.toMillis()));
    }
    try (Connection c = DriverManager.getConnection(driverUrl(jdbcUrl), props); Statement st = c.createStatement()) {
      st.setQueryTimeout((int) Math.min(Integer.MAX_VALUE, seconds));
      try (ResultSet rs = st.executeQuery(dialect.currentSchemaQuery())) {
        String home = rs.next() ? rs.getString(1) : null;
        if (home == null || home.isBlank()) {
          throw new SQLException(Redactor.redact(jdbcUrl) + " names no database (and no default schema) for the"
              + " sink's checkpoint tables; add one after the host, as in jdbc:mariadb://host:3306/warehouse", "3D000");
        }
        return home;
      }
    }
  }

  /** {@code user} and {@code password}, else those of the URL's authority. */
  private static Properties credentials(String jdbcUrl, String user, String password) {
    Properties p = new Properties();
    int at = userInfoEnd(jdbcUrl);
    if (at >= 0) {
      String info = jdbcUrl.substring(jdbcUrl.indexOf("://") + 3, at);
      int colon = info.indexOf(':');
      p.setProperty("user", decode(colon < 0 ? info : info.substring(0, colon)));
      if (colon >= 0) {
        p.setProperty("password", decode(info.substring(colon + 1)));
      }
    }
    if (user != null) {
      p.setProperty("user", user);
    }
    if (password != null) {
      p.setProperty("password", password);
    }
    return p;
  }

  /** The index of the {@code @} that ends the authority's user info, or -1 when it has none. */
  private static int userInfoEnd(String url) {
    int start = url.indexOf("://");
    if (start < 0) {
      return -1;
    }
    int end = url.length();
    for (char c : new char[] {'/', '?', '#'}) {
      int i = url.indexOf(c, start + 3);
      if (i >= 0) {
        end = Math.min(end, i);
      }
    }
    return url.lastIndexOf('@', end - 1) > start ? url.lastIndexOf('@', end - 1) : -1;
  }

  private static String decode(String s) {
    try {
      return URLDecoder.decode(s, StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      return s;
    }
  }
}
