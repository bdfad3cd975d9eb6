package dev.sluice.broker.upstream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class UpstreamConfigTest {

  @Test
  void viaUnixSocketNamesTheFactoryAndItsArgument() {
    String url = UpstreamConfig.viaUnixSocket("jdbc:postgresql://localhost:5432/app", Path.of("/var/run/postgresql"));
    assertThat(url).isEqualTo("jdbc:postgresql://localhost:5432/app?socketFactory=dev.sluice.broker.upstream."
        + "UnixSocketFactory&socketFactoryArg=%2Fvar%2Frun%2Fpostgresql");
    assertThat(UpstreamConfig.viaUnixSocket("jdbc:postgresql://h/app?sslmode=disable", Path.of("/s")))
        .isEqualTo("jdbc:postgresql://h/app?sslmode=disable&socketFactory=dev.sluice.broker.upstream."
            + "UnixSocketFactory&socketFactoryArg=%2Fs");
  }

  @Test
  void theDisplayedUrlShowsTheSocketButNoOtherParameter() {
    UpstreamConfig c = UpstreamConfig.external(UpstreamConfig.viaUnixSocket(
        "jdbc:postgresql://localhost:5432/app?password=secret", Path.of("/run/pg")), "sluice", null);
    assertThat(c.displayUrl()).isEqualTo("jdbc:postgresql://localhost:5432/app via unix socket /run/pg");
    assertThat(c.unixSocket()).contains("/run/pg");
    UpstreamConfig tcp = UpstreamConfig.external("jdbc:postgresql://db:5432/app?password=secret", "sluice", null);
    assertThat(tcp.displayUrl()).isEqualTo("jdbc:postgresql://db:5432/app");
    assertThat(tcp.unixSocket()).isEmpty();
  }

  @Test
  void theSocketFactoryWithoutItsArgumentIsRefusedSayingWhatToAdd() {
    assertThatThrownBy(() -> UpstreamConfig.external(
        "jdbc:postgresql://localhost/app?socketFactory=dev.sluice.broker.upstream.UnixSocketFactory", "u", null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no socketFactoryArg")
        .hasMessageContaining("&socketFactoryArg=");
  }

  @Test
  void aUrlOfAnotherDatabaseIsRefused() {
    assertThatThrownBy(() -> UpstreamConfig.external("jdbc:mysql://h/app", "u", null))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jdbc:postgresql://");
  }
}
