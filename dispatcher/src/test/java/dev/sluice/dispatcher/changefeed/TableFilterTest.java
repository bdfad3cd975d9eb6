package dev.sluice.dispatcher.changefeed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class TableFilterTest {

  @ParameterizedTest(name = "{0} on {1} -> {2}")
  @CsvSource(delimiter = '|', textBlock = """
      public.*                          | public.orders     | true
      public.*                          | sales.orders      | false
      public.*  ; !public.tmp_*         | public.tmp_load   | false
      !public.tmp_* ; public.*          | public.tmp_load   | false
      public.*  ; !public.tmp_*         | public.tmpl       | true
      *.orders                          | sales.orders      | true
      *.orders                          | sales.orders_old  | false
      public.order?                     | public.orders     | true
      public.order?                     | public.order      | false
      public.Orders                     | public.orders     | false
      public.a+b                        | public.a+b        | true
      public.a+b                        | public.aab        | false
      sales.orders ; public.users       | public.users      | true
      *.*  ; !pg_catalog.*              | pg_catalog.pg_class | false
      Mixed.Order Items                 | Mixed.Order Items | true
      Mixed.Order Items                 | Mixed.Order items | false
      My Schema.*                       | My Schema.t       | true
      public.*                          | public.a.b        | true
      *.orders                          | my.schema.orders  | true
      public.a?b                        | public.a.b        | true
      public.*  ; !public.a?b           | public.a.b        | false
      """)
  void matchesLikeTheRulesSay(String rules, String table, boolean expected) {
    TableFilter f = TableFilter.of(rules.split("\\s*;\\s*"));
    assertThat(f.matches(table)).isEqualTo(expected);
    if (table.chars().filter(c -> c == '.').count() == 1) {
      String[] parts = table.split("\\.");
      assertThat(f.matches(parts[0], parts[1])).isEqualTo(expected);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "orders", "public.orders.x", "!", "!public", "public. orders", ".orders", "public.",
      "public.orders ", " public.orders", "public .orders"})
  void rejectsRulesThatAreNotSchemaDotTable(String rule) {
    assertThatThrownBy(() -> TableFilter.of("public.*", rule)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + rule + "\"");
  }

  @ParameterizedTest
  @ValueSource(strings = {"demo.(x|y)", "[abc].t", "demo.x{2}", "!demo.^x", "demo.a\\d", "demo.x|y"})
  void refusesRulesThatLookLikeRegularExpressionsNamingTheRuleAndWhatIsAllowed(String rule) {
    assertThatThrownBy(() -> TableFilter.of("public.*", rule)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + rule + "\" is not a glob").hasMessageContaining("* matches any run")
        .hasMessageContaining("? one character");
  }

  @Test
  void namesTheRulesThatMatchNoTable() {
    TableFilter f = TableFilter.of("public.*", "demo.orders", "!public.tmp_*", "!sales.*");
    assertThat(f.unmatchedRules(List.of("public.users", "public.tmp_x"))).containsExactly("demo.orders", "!sales.*");
    assertThat(f.unmatchedRules(List.of())).containsExactly("public.*", "demo.orders", "!public.tmp_*", "!sales.*");
    assertThat(f.unmatchedRules(List.of("public.a", "demo.orders", "public.tmp_1", "sales.x"))).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"!public.*", "!a.b"})
  void needsAnIncludeRule(String rule) {
    assertThatThrownBy(() -> TableFilter.of(rule)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one include");
  }
}
