package dev.sluice.broker;

import dev.sluice.broker.cli.CapturesCommand;
import dev.sluice.broker.cli.ChangefeedCommand;
import dev.sluice.broker.cli.ConfigCommand;
import dev.sluice.broker.cli.DispatchersCommand;
import dev.sluice.broker.cli.MembersCommand;
import dev.sluice.broker.cli.TablesCommand;
import dev.sluice.broker.cli.NodeCommand;
import dev.sluice.broker.cli.TailCommand;
import dev.sluice.broker.cli.TokenCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * The {@code sluice} command line: {@code sluice server} runs a broker node, {@code sluice changefeed}
 * manages its hosted changefeeds, {@code sluice tail} prints a table's change stream, {@code sluice token
 * hash} makes the stored form of a bearer token, and {@code tables}, {@code dispatchers}, {@code captures},
 * {@code members} and {@code config} show (and for config change) what the admin API serves.
 *
 * <pre>{@code
 * java -jar broker/target/sluice.jar server --demo-workload
 * }</pre>
 */
@Command(name = "sluice", mixinStandardHelpOptions = true, version = "sluice 0.1.0",
    description = "Sluice changefeed event broker.",
    subcommands = {ServerCommand.class, ChangefeedCommand.class, NodeCommand.class, TailCommand.class,
        TablesCommand.class, DispatchersCommand.class, CapturesCommand.class, MembersCommand.class, ConfigCommand.class,
        TokenCommand.class})
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
