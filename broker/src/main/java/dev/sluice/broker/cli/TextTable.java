package dev.sluice.broker.cli;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.List;

/**
 * A table for a person: a header and rows of cells, each column as wide as its widest cell, two
 * spaces apart; {@code null} cells print as {@code -}.
 *
 * <pre>{@code
 * TextTable t = new TextTable("NODE_ID", "STATE");
 * t.row("node-1", "SERVING");
 * t.print(out);
 * }</pre>
 */
final class TextTable {

  private final List<String[]> rows = new ArrayList<>();
  private final int columns;

  TextTable(String... header) {
    this.columns = header.length;
    rows.add(header);
  }

  TextTable row(Object... cells) {
    if (cells.length != columns) {
      throw new IllegalArgumentException("a row of " + columns + " cells, got " + cells.length);
    }
    String[] r = new String[columns];
    for (int i = 0; i < columns; i++) {
      r[i] = cells[i] == null ? "-" : String.valueOf(cells[i]);
    }
    rows.add(r);
    return this;
  }

  void print(PrintWriter out) {
    int[] width = new int[columns];
    for (String[] r : rows) {
      for (int i = 0; i < columns; i++) {
        width[i] = Math.max(width[i], r[i].length());
      }
    }
    for (String[] r : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < columns; i++) {
        line.append(r[i]);
        if (i < columns - 1) {
          line.append(" ".repeat(width[i] - r[i].length() + 2));
        }
      }
      out.println(line.toString().stripTrailing());
    }
  }
}
