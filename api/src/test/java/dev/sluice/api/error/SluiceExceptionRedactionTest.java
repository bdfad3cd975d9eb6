package dev.sluice.api.error;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Every typed error is redacted where it is made, so no caller can forget it. */
class SluiceExceptionRedactionTest {

  @Test
  void theMessageAndTheCauseChainOfEveryBranchAreRedacted() {
    SQLException driver = new SQLException("No suitable driver found for jdbc:mysql://db/app?user=u&password=hunter22");
    for (ErrorCode code : new ErrorCode[] {ErrorCode.INVALID_REQUEST, ErrorCode.SINK_UNAVAILABLE, ErrorCode.SINK_FAILED}) {
      SluiceException e = SluiceException.of(code, "JDBC target jdbc:mysql://u:hunter22@db/app failed", driver);
      assertThat(e.getMessage()).isEqualTo("JDBC target jdbc:mysql://u:***@db/app failed");
      assertThat(e.getCause().getMessage()).doesNotContain("hunter22").contains("password=***")
          .startsWith("java.sql.SQLException: ");
      assertThat(e.toString()).doesNotContain("hunter22");
    }
  }

  @Test
  void aCleanCauseIsKeptAsIs() {
    SQLException driver = new SQLException("Connection refused", "08001");
    assertThat(new TransientException(ErrorCode.SINK_UNAVAILABLE, "down", driver).getCause()).isSameAs(driver);
  }
}
