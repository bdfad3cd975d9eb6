package dev.sluice.broker.security;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Secure by default: a node that listens beyond loopback must have TLS and authentication, unless the
 * operator says {@code --insecure} (and is reminded at every start); a cluster port beyond loopback
 * must be declared private ({@code --cluster-network-private}), since the cluster's own traffic is not
 * encrypted (docs/SECURITY.md).
 *
 * <pre>{@code
 * BindPolicy.check("0.0.0.0", security);                  // throws unless TLS + principals, or insecure
 * BindPolicy.checkCluster("10.0.0.5", clusterPrivate);    // throws unless declared private
 * }</pre>
 */
public final class BindPolicy {

  private static final Logger log = LoggerFactory.getLogger(BindPolicy.class);

  private BindPolicy() {}

  /**
   * Refuses {@code bindHost} beyond loopback without TLS and authentication (unless insecure), and logs
   * a warning whenever {@code --insecure} is in force.
   *
   * @throws IllegalStateException saying what to add
   */
  public static void check(String bindHost, SecurityConfig security) {
    List<String> missing = new ArrayList<>();
    if (!security.tlsEnabled()) {
      missing.add("TLS (--tls-cert and --tls-key)");
    }
    if (!security.authenticationEnabled()) {
      missing.add("authentication (principals with token hashes in --security-config)");
    }
    if (security.insecure()) {
      log.atWarn().addKeyValue("bind", bindHost).addKeyValue("missing", missing)
          .log("--insecure: serving without the protection it would otherwise require; anyone who can reach this"
              + " node may be able to read every table and change its changefeeds (docs/SECURITY.md)");
      return;
    }
    if (missing.isEmpty() || isLoopback(bindHost)) {
      return;
    }
    throw new IllegalStateException("refusing to listen on " + bindHost + " without " + String.join(" and ", missing)
        + ": anyone who can reach it could read every table and create changefeeds. Add "
        + String.join(" and ", missing) + " (docs/SECURITY.md shows a secured deployment), listen on 127.0.0.1, or"
        + " pass --insecure to run unprotected anyway (a warning is logged at every start)");
  }

  /**
   * Refuses a cluster bind beyond loopback unless the network is declared private.
   *
   * @throws IllegalStateException saying why and what to add
   */
  public static void checkCluster(String clusterHost, boolean declaredPrivate) {
    if (declaredPrivate || isLoopback(clusterHost)) {
      return;
    }
    throw new IllegalStateException("refusing to open the cluster port on " + clusterHost + ": cluster traffic"
        + " (membership, changefeed ownership) is not encrypted or authenticated, so it must stay on a private"
        + " network. Bind it to a private interface and pass --cluster-network-private to confirm, or keep it on"
        + " 127.0.0.1 (docs/SECURITY.md, \"The cluster port\")");
  }

  /** Every address {@code host} names is a loopback address (literals are not looked up). */
  public static boolean isLoopback(String host) {
    String h = host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    if (h.equalsIgnoreCase("localhost")) {
      return true;
    }
    try {
      InetAddress[] all = InetAddress.getAllByName(h);
      for (InetAddress a : all) {
        if (!a.isLoopbackAddress()) {
          return false;
        }
      }
      return all.length > 0;
    } catch (UnknownHostException e) {
      return false;
    }
  }
}
