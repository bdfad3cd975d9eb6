package dev.sluice.broker.config;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The configuration cannot be used: every problem found, each naming its key and source.
 * {@code sluice server} prints them and exits 2 before it starts anything.
 */
public final class InvalidConfigException extends IllegalArgumentException {

  private final transient List<ConfigProblem> problems;

  public InvalidConfigException(List<ConfigProblem> problems) {
    super(render(problems));
    this.problems = List.copyOf(problems);
  }

  public List<ConfigProblem> problems() {
    return problems;
  }

  private static String render(List<ConfigProblem> problems) {
    if (problems.size() == 1) {
      return "invalid configuration: " + problems.get(0);
    }
    return "invalid configuration (" + problems.size() + " problems):" + problems.stream()
        .map(p -> "\n  " + p).collect(Collectors.joining());
  }
}
