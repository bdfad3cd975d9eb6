package dev.sluice.broker.security;

import dev.sluice.broker.changefeed.StrictJson;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The security of one broker node: TLS of its ports, the principals that may call it (with their
 * hashed tokens, certificate identities, roles and table patterns), whether it may run open on a
 * network ({@code --insecure}), and the credentials its own hosted changefeeds dial nodes with.
 *
 * <p>Authentication is on as soon as one principal is configured; with none, every caller is
 * {@link Principal#ANONYMOUS} (an admin), which {@link BindPolicy} allows on loopback only.
 *
 * <pre>{@code
 * SecurityConfig open = SecurityConfig.none();                       // loopback, no TLS, no tokens
 * SecurityConfig secured = SecurityConfig.fromJson(new JsonObject(Files.readString(path)));
 * }</pre>
 *
 * The file's shape (docs/SECURITY.md), every key optional:
 * <pre>{@code
 * {"tls": {"cert": "/etc/sluice/tls/broker.pem", "key": "/etc/sluice/tls/broker.key",
 *          "client_ca": "/etc/sluice/tls/clients-ca.pem", "reload_interval": "PT10S"},
 *  "principals": [{"name": "ops", "roles": ["operator", "metrics"], "token_hash": "pbkdf2-sha256$..."},
 *                 {"name": "orders-app", "roles": ["reader"], "tables": ["app.*"], "token_hash": "pbkdf2-sha256$..."},
 *                 {"name": "orders-svc", "roles": ["reader"], "tables": ["app.*"],
 *                  "certificate_subject": "CN=orders-svc,O=Example"}],
 *  "changefeeds": {"token_file": "/etc/sluice/changefeed.token", "ca": "/etc/sluice/tls/ca.pem"}}
 * }</pre>
 *
 * @param tls                 TLS of the gRPC and admin ports; null = plaintext
 * @param principals          who may call; empty = authentication off
 * @param insecure            run without TLS or authentication on a non-loopback address (logged at every start)
 * @param changefeedTokenFile a file holding the plaintext token hosted changefeeds send when dialling a node
 *                            (also other nodes); null = a random token of this process, valid on this node only
 * @param changefeedCaFile    the CA hosted changefeeds trust when dialling a node over TLS; null = this node's
 *                            own certificate chain
 */
public record SecurityConfig(TlsConfig tls, List<PrincipalConfig> principals, boolean insecure,
    Path changefeedTokenFile, Path changefeedCaFile) {

  static final Set<String> KEYS = Set.of("tls", "principals", "changefeeds");
  static final Set<String> TLS_KEYS = Set.of("cert", "key", "client_ca", "reload_interval");
  static final Set<String> PRINCIPAL_KEYS = Set.of("name", "roles", "tables", "token_hash", "certificate_subject",
      "certificate_san");
  static final Set<String> CHANGEFEED_KEYS = Set.of("token_file", "ca");

  public SecurityConfig {
    principals = List.copyOf(Objects.requireNonNull(principals, "principals"));
    Set<String> names = new HashSet<>();
    for (PrincipalConfig p : principals) {
      if (!names.add(p.name())) {
        throw new IllegalArgumentException("principal " + p.name() + " is configured twice; names must be unique");
      }
    }
  }

  /** No TLS, no authentication: the loopback default of {@code make run} and the tests. */
  public static SecurityConfig none() {
    return new SecurityConfig(null, List.of(), false, null, null);
  }

  public SecurityConfig withTls(TlsConfig t) {
    return new SecurityConfig(t, principals, insecure, changefeedTokenFile, changefeedCaFile);
  }

  public SecurityConfig withPrincipals(List<PrincipalConfig> p) {
    return new SecurityConfig(tls, p, insecure, changefeedTokenFile, changefeedCaFile);
  }

  public SecurityConfig withInsecure(boolean value) {
    return new SecurityConfig(tls, principals, value, changefeedTokenFile, changefeedCaFile);
  }

  public SecurityConfig withChangefeedCredentials(Path tokenFile, Path caFile) {
    return new SecurityConfig(tls, principals, insecure, tokenFile, caFile);
  }

  /** Callers must authenticate (at least one principal is configured). */
  public boolean authenticationEnabled() {
    return !principals.isEmpty();
  }

  public boolean tlsEnabled() {
    return tls != null;
  }

  /** Reads the security file (JSON, the shape above); every error names the file and the key. */
  public static SecurityConfig read(Path file) {
    String text;
    try {
      text = Files.readString(file);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the security config " + file + ": " + e.getMessage(), e);
    }
    try {
      return fromJson(new JsonObject(text));
    } catch (DecodeException e) {
      throw new IllegalArgumentException("the security config " + file + " is not a JSON object: " + e.getMessage());
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the security config " + file + ": " + e.getMessage(), e);
    }
  }

  /** Strict: an unknown key is an error naming it. */
  public static SecurityConfig fromJson(JsonObject json) {
    StrictJson root = StrictJson.of(json, "key", KEYS);
    TlsConfig tls = null;
    StrictJson t = root.object("tls", "key", TLS_KEYS);
    if (t != null) {
      tls = new TlsConfig(Path.of(t.requiredString("cert")), Path.of(t.requiredString("key")),
          t.has("client_ca") ? Path.of(t.string("client_ca", null)) : null,
          duration("tls.reload_interval", t.string("reload_interval", null), TlsConfig.DEFAULT_RELOAD_INTERVAL));
    }
    List<PrincipalConfig> principals = new ArrayList<>();
    Object list = json.getValue("principals");
    if (list != null && !(list instanceof JsonArray)) {
      throw new IllegalArgumentException("principals must be an array of objects");
    }
    if (list instanceof JsonArray arr) {
      for (int i = 0; i < arr.size(); i++) {
        if (!(arr.getValue(i) instanceof JsonObject o)) {
          throw new IllegalArgumentException("principals[" + i + "] must be an object");
        }
        principals.add(principal(StrictJson.of(o, "key", PRINCIPAL_KEYS), i));
      }
    }
    Path tokenFile = null;
    Path ca = null;
    StrictJson c = root.object("changefeeds", "key", CHANGEFEED_KEYS);
    if (c != null) {
      tokenFile = c.has("token_file") ? Path.of(c.string("token_file", null)) : null;
      ca = c.has("ca") ? Path.of(c.string("ca", null)) : null;
    }
    return new SecurityConfig(tls, principals, false, tokenFile, ca);
  }

  private static PrincipalConfig principal(StrictJson p, int index) {
    String name = p.has("name") ? p.string("name", null) : null;
    if (name == null) {
      throw new IllegalArgumentException("principals[" + index + "].name is required");
    }
    Set<Role> roles = EnumSet.noneOf(Role.class);
    for (String r : p.strings("roles", List.of())) {
      roles.add(Role.parse(r));
    }
    TokenHash hash = null;
    if (p.has("token_hash")) {
      try {
        hash = TokenHash.parse(p.string("token_hash", null));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("principal " + name + ": token_hash: " + e.getMessage());
      }
    }
    return new PrincipalConfig(name, roles, p.strings("tables", null), hash, p.string("certificate_subject", null),
        p.string("certificate_san", null));
  }

  private static Duration duration(String key, String text, Duration fallback) {
    if (text == null) {
      return fallback;
    }
    try {
      return Duration.parse(text);
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException(key + " must be an ISO-8601 duration such as PT10S, got \"" + text + "\"");
    }
  }

  @Override
  public String toString() {
    return "SecurityConfig[tls=" + tls + ", principals=" + principals + ", insecure=" + insecure
        + ", changefeedTokenFile=" + changefeedTokenFile + ", changefeedCaFile=" + changefeedCaFile + "]";
  }
}
