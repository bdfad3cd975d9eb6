package dev.sluice.broker;

import dev.sluice.broker.cli.ChangefeedCommand;
import dev.sluice.broker.cli.TailCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sluice} command line: {@code sluice server} runs a broker node, {@code sluice changefeed}
 * manages its hosted changefeeds, {@code sluice tail} prints a table's change stream.
 *
 * <pre>{@code
 * java -jar broker/target/sluice.jar server --demo-workload
 * }</pre>
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "sluice 0.1.0",
    description = "Sluice changefeed event broker.",
    subcommands = {ServerCommand.class, ChangefeedCommand.class, TailCommand.class})
public final class SluiceCommand implements Runnable {

  @CommandLine.Spec
  CommandLine.Model.CommandSpec spec;

  public static void main(String[] args) {
    System.exit(new CommandLine(new SluiceCommand()).execute(args));
  }

  @Override
  public void run() {
    spec.commandLine().usage(System.out);
  }
}
