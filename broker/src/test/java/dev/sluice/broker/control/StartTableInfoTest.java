package dev.sluice.broker.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.sluice.broker.testing.StoreFixture;
import dev.sluice.schema.DdlEvent;
import dev.sluice.schema.DdlType;
import dev.sluice.schema.TableInfo;
import dev.sluice.schema.UnknownTableException;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Looking a table up by {@code "schema.table"} when its names hold dots: {@code public."order.items"} is
 * {@code "public.order.items"}. GetTableSchema refused every name with more than one dot (INVALID_ARGUMENT), so a
 * client could not subscribe to such a table by name, although the broker captures and serves it.
 */
class StartTableInfoTest {

  private StoreFixture stores;

  @BeforeEach
  void open(@TempDir Path dir) {
    stores = new StoreFixture(dir);
  }

  @AfterEach
  void close() {
    stores.close();
  }

  @Test
  void aNameWithDotsIsTheOneTableOneOfItsDotsPartsItInto() {
    TableInfo items = stores.createTable(100, "order.items");
    TableInfo plain = stores.createTable(101, "orders");
    long ts = stores.lastTs();

    assertThat(StartTableInfo.byQualifiedName(stores.schema, "public.order.items", ts)).isEqualTo(items);
    assertThat(StartTableInfo.byQualifiedName(stores.schema, "public.orders", ts)).isEqualTo(plain);
    assertThatThrownBy(() -> StartTableInfo.byQualifiedName(stores.schema, "public.order.nope", ts))
        .isInstanceOf(UnknownTableException.class);
  }

  @Test
  void aNameTwoTablesAnswerToIsRefusedNamingBoth() {
    stores.createTable(100, "a.b");
    TableInfo other = new TableInfo(102, "public.a", "b", StoreFixture.table(102, "b", 0).columns(), java.util.List.of("id"),
        stores.nextTs());
    stores.ddl(new DdlEvent(other.version(), DdlType.CREATE_TABLE, "CREATE TABLE \"public.a\".b (id bigint)", other,
        "postgresql"));

    assertThatThrownBy(() -> StartTableInfo.byQualifiedName(stores.schema, "public.a.b", stores.lastTs()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"public\".\"a.b\"")
        .hasMessageContaining("\"public.a\".\"b\"").hasMessageContaining("table_id");
  }

  @Test
  void aNameWithoutADotBetweenTwoPartsIsRefused() {
    for (String name : new String[] {"orders", ".orders", "public.", " . ", ""}) {
      assertThatThrownBy(() -> StartTableInfo.byQualifiedName(stores.schema, name, stores.lastTs()))
          .as(name).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("schema.table");
    }
  }
}
