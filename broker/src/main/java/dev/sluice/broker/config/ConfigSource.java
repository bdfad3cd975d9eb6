package dev.sluice.broker.config;

import java.util.Locale;

/**
 * Where a setting's value came from, in increasing precedence: a later source wins over an earlier
 * one. {@link #RUNTIME} (a {@code PATCH /api/v1/config}) wins over the static sources only while
 * they still give the value it was made against (see {@link RuntimeOverrides}). {@link #API} is a
 * broker built in code ({@code new Broker(config)}) with a value other than the default.
 */
public enum ConfigSource {
  DEFAULT,
  API,
  FILE,
  ENV,
  FLAG,
  RUNTIME;

  /** As {@code GET /api/v1/config} shows it: {@code default}, {@code file}, {@code env}, ... */
  public String label() {
    return name().toLowerCase(Locale.ROOT);
  }
}
