package dev.sluice.dispatcher.sink;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sluice.api.v1.Value;
import java.sql.BatchUpdateException;
import java.sql.SQLException;
import org.junit.jupiter.api.Test;

/** Driver texts are bounded: long literals and tokens shortened with their length, the whole cut. */
class SqlErrorTextTest {

  @Test
  void aLongQuotedLiteralKeepsItsHeadAndLength() {
    String capped = SqlErrorText.cap("VALUES (('3'::int8), ('" + "x".repeat(100_000) + "'), (NULL))");
    assertThat(capped).isEqualTo("VALUES (('3'::int8), ('" + "x".repeat(64) + "…[100000 chars]'), (NULL))");
  }

  @Test
  void anEscapedQuoteDoesNotEndTheLiteral() {
    String body = "it''s " + "y".repeat(200);
    assertThat(SqlErrorText.cap("v = '" + body + "' end")).isEqualTo("v = '" + body.substring(0, 64) + "…["
        + body.length() + " chars]' end");
  }

  @Test
  void aLongUnquotedRunIsShortenedToo() {
    String capped = SqlErrorText.cap("DETAIL: Failing row contains (3, " + "z".repeat(5000) + ").");
    assertThat(capped).startsWith("DETAIL: Failing row contains (3, " + "z".repeat(64) + "…[5002 chars]");
  }

  @Test
  void theWholeTextIsCutAndSaysHowLongItWas() {
    String many = "word ".repeat(10_000);
    String capped = SqlErrorText.cap(many);
    assertThat(capped).hasSizeLessThan(SqlErrorText.MAX_CHARS + 40).endsWith("…[50000 chars in all]");
  }

  @Test
  void aUrlIsNotAValue() {
    String url = "No suitable driver found for jdbc:mysql://127.0.0.1:34993/warehouse?user=app&password=x&ssl=true";
    assertThat(SqlErrorText.cap(url)).isEqualTo(url);
  }

  @Test
  void shortTextIsUnchanged() {
    assertThat(SqlErrorText.cap("ERROR: duplicate key value violates unique constraint \"orders_pkey\""))
        .isEqualTo("ERROR: duplicate key value violates unique constraint \"orders_pkey\"");
  }

  @Test
  void theDriversChainIsJoinedOnceAndALongOneIsCopiedCapped() {
    BatchUpdateException batch = new BatchUpdateException("Batch entry 0 INSERT ... VALUES ('" + "q".repeat(9000)
        + "') was aborted: ERROR: value too long  Call getNextException to see other errors in the batch.", "22001",
        0, new int[0], null);
    batch.setNextException(new SQLException("ERROR: value too long", "22001"));
    assertThat(SqlErrorText.of(batch)).doesNotContain("getNextException").doesNotContain("q".repeat(65))
        .containsOnlyOnce("ERROR: value too long");
    SQLException copy = SqlErrorText.capped(batch);
    assertThat((Throwable) copy).isNotSameAs(batch).hasNoCause();
    assertThat(copy.getSQLState()).isEqualTo("22001");
    assertThat(copy.getMessage()).hasSizeLessThan(SqlErrorText.MAX_CHARS + 40);
    assertThat(copy.getStackTrace()).isEqualTo(batch.getStackTrace());
    SQLException small = new SQLException("Connection refused", "08001");
    assertThat((Throwable) SqlErrorText.capped(small)).isSameAs(small);
  }

  /** A batch of many columns cut the server's error away: "...[3319 chars in all]" and no cause. */
  @Test
  void theServersErrorComesBeforeALongStatementSoTheCutNeverDropsIt() {
    StringBuilder values = new StringBuilder();
    for (int i = 0; i < 120; i++) {
      values.append(i > 0 ? ", " : "").append("('value ").append(i).append("'::text)");
    }
    String error = "ERROR: malformed array literal: \"{\"(1,1),(0,0)\",\"(2,2),(1,1)\"}\"";
    BatchUpdateException batch = new BatchUpdateException("Batch entry 0 INSERT INTO t VALUES (" + values
        + ") was aborted: " + error + "  Call getNextException to see other errors in the batch.", "22P02", 0,
        new int[0], null);
    batch.setNextException(new SQLException(error, "22P02"));
    String text = SqlErrorText.of(batch);
    assertThat(text).startsWith(error).containsOnlyOnce("malformed array literal").contains("Batch entry 0 INSERT")
        .contains("chars in all]");
  }

  @Test
  void aValueIsShownCapped() {
    assertThat(SqlErrorText.value(Value.newBuilder().setInt64Value(42).build())).isEqualTo("42");
    assertThat(SqlErrorText.value(Value.newBuilder().setStringValue("a".repeat(70)).build()))
        .isEqualTo("a".repeat(64) + "…[70 chars]");
    assertThat(SqlErrorText.value(SinkFixtures.nul())).isEqualTo("NULL");
  }
}
