package dev.sluice.testing.containers;

import com.github.dockerjava.api.command.CreateContainerCmd;
import com.github.dockerjava.api.command.InspectContainerResponse;
import com.github.dockerjava.api.model.ContainerNetwork;
import com.github.dockerjava.api.model.ExposedPort;
import com.github.dockerjava.api.model.Ports;
import java.io.BufferedWriter;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.Network;
import org.testcontainers.containers.output.OutputFrame;
import org.testcontainers.containers.wait.strategy.WaitStrategy;
import org.testcontainers.containers.wait.strategy.WaitStrategyTarget;

/**
 * A container of a local {@link TestImage}, kept to the project's own hosts: it is never pulled, it joins
 * only the network the test created (under one alias), and the ports it publishes listen on 127.0.0.1
 * alone. It is ready once its server prints its ready line; when the server exits first, or prints nothing
 * of the kind in time, {@link #start()} fails at once with the server's last output lines, its own error.
 *
 * <p>{@link #cutOff()} disconnects it from the network (a partition: neither its peers nor the host reach
 * it), {@link #heal()} connects it again under the same alias. Ports published with
 * {@link #publishAtFixedPort} keep their host port across that, so an address advertised to clients stays
 * true.
 *
 * <pre>{@code
 * try (Network net = Network.newNetwork(); PostgresContainer pg = new PostgresContainer(net, "upstream")) {
 *   pg.start();
 *   DriverManager.getConnection(pg.jdbcUrl(), "postgres", null);   // 127.0.0.1:<published port>
 * }
 * }</pre>
 *
 * @param <SELF> the concrete container, for Testcontainers' fluent setters
 */
public abstract class LocalContainer<SELF extends LocalContainer<SELF>> extends GenericContainer<SELF> {

  /** The only host address a published port listens on. */
  public static final String LOOPBACK = "127.0.0.1";

  private static final int OUTPUT_LINES_KEPT = 200;
  private static final int OUTPUT_LINES_REPORTED = 40;

  private final TestImage image;
  private final Network network;
  private final String alias;
  private final Pattern readyLine;
  /** Container port to host port; a port is chosen when the container is configured, before it is created. */
  private final Map<Integer, Integer> fixedHostPorts = new LinkedHashMap<>();
  private final Deque<String> recentOutput = new ArrayDeque<>();   // guarded by itself
  private volatile CompletableFuture<Void> ready = new CompletableFuture<>();
  private volatile ServerExit exitBeforeReady;   // set when a start failed because the server had exited
  private Path outputFile;
  private BufferedWriter output;   // guarded by recentOutput

  /**
   * @param readyLine a line of the server's output that says it serves (matched with {@code find})
   */
  protected LocalContainer(TestImage image, Network network, String alias, Pattern readyLine) {
    super(image.requireBuilt().dockerImageName());
    this.image = image;
    this.network = network;
    this.alias = alias;
    this.readyLine = readyLine;
    withImagePullPolicy(name -> false);   // local images only: a missing one failed in requireBuilt()
    withNetwork(network);
    withNetworkAliases(alias);
    withCreateContainerCmdModifier(this::publishOnLoopbackOnly);
    waitingFor(new ReadyLine(Duration.ofMinutes(2)));
  }

  /** Publishes {@code containerPort} on 127.0.0.1 at a port the engine picks ({@link #hostPort}). */
  protected SELF publish(int containerPort) {
    addExposedPort(containerPort);
    return self();
  }

  /**
   * Publishes {@code containerPort} on 127.0.0.1 at a free port chosen before the container is created
   * ({@link #hostPort} knows it then, e.g. to put it into an advertised address) and kept when the
   * container is cut off and healed.
   */
  protected SELF publishAtFixedPort(int containerPort) {
    fixedHostPorts.put(containerPort, 0);
    addExposedPort(containerPort);
    return self();
  }

  /** Also writes every output line of the container to {@code file} (for failure reports). */
  public SELF withOutputFile(Path file) {
    this.outputFile = file;
    return self();
  }

  /** Chooses the fixed host ports; subclasses that need them for their command or environment call it first. */
  @Override
  protected void configure() {
    fixedHostPorts.replaceAll((containerPort, hostPort) -> LoopbackPort.free());
  }

  private void publishOnLoopbackOnly(CreateContainerCmd cmd) {
    Ports ports = new Ports();
    for (ExposedPort port : cmd.getExposedPorts()) {
      Integer fixed = fixedHostPorts.get(port.getPort());
      ports.bind(port, fixed == null ? Ports.Binding.bindIp(LOOPBACK) : Ports.Binding.bindIpAndPort(LOOPBACK, fixed));
    }
    cmd.getHostConfig().withPortBindings(ports);
  }

  /** The host port {@code containerPort} is published at, on {@link #LOOPBACK}. */
  public int hostPort(int containerPort) {
    Integer fixed = fixedHostPorts.get(containerPort);
    return fixed != null && fixed > 0 ? fixed : getMappedPort(containerPort);
  }

  /** {@code 127.0.0.1:<host port>}: how the test itself reaches {@code containerPort}. */
  public String hostAddress(int containerPort) {
    return LOOPBACK + ":" + hostPort(containerPort);
  }

  /** {@code <alias>:<port>}: how the other containers of the network reach {@code containerPort}. */
  public String networkAddress(int containerPort) {
    return alias + ":" + containerPort;
  }

  public String alias() {
    return alias;
  }

  public TestImage image() {
    return image;
  }

  public Network network() {
    return network;
  }

  /** Disconnects the container from its network: nothing reaches it and it reaches nothing until {@link #heal()}. */
  public void cutOff() {
    getDockerClient().disconnectFromNetworkCmd().withNetworkId(network.getId()).withContainerId(getContainerId())
        .exec();
  }

  /** Connects the container to its network again, under the same alias (its address in it may change). */
  public void heal() {
    getDockerClient().connectToNetworkCmd().withNetworkId(network.getId()).withContainerId(getContainerId())
        .withContainerNetwork(new ContainerNetwork().withAliases(alias)).exec();
  }

  /** The last lines the container printed (stdout and stderr), oldest first. */
  public List<String> recentOutput() {
    synchronized (recentOutput) {
      return new ArrayList<>(recentOutput);
    }
  }

  /** Starts the container; a failure names the image and alias and carries the server's last output. */
  @Override
  public void start() {
    exitBeforeReady = null;
    try {
      super.start();
    } catch (RuntimeException e) {
      ServerExit exit = exitBeforeReady;   // noted while the failed start was cleaned up, before it reached here
      for (Throwable t = e; t != null; t = t.getCause()) {
        if (t instanceof ContainerStartException own) {
          if (exit != null) {
            // the output's end came first and said so without the exit code, which the engine knows by now
            ContainerStartException withCode = new ContainerStartException(describe() + " exited before it printed a"
                + " line matching /" + readyLine + "/ (exit code " + exit.code() + ")" + lastOutput(exit.output()), own);
            withCode.addSuppressed(e);
            throw withCode;
          }
          own.addSuppressed(e);
          throw own;
        }
      }
      if (exit != null) {
        // the server exited before Testcontainers followed its output (its own start checks failed first)
        throw new ContainerStartException(describe() + " exited before it printed a line matching /" + readyLine
            + "/ (exit code " + exit.code() + ")" + lastOutput(exit.output()), e);
      }
      throw new ContainerStartException(describe() + " did not start: " + e.getMessage() + lastOutput(), e);
    }
  }

  /** How a server that was gone when its failed start was cleaned up ended: its exit code and output. */
  private record ServerExit(long code, List<String> output) {}

  /** Before a failed start removes the container: notes whether the server had exited, and what it printed. */
  @Override
  protected void containerIsStopping(InspectContainerResponse info) {
    try {
      InspectContainerResponse.ContainerState state = getDockerClient().inspectContainerCmd(getContainerId()).exec()
          .getState();
      // not ready: its ready line never came (the wait may have ended already, by the output's end)
      boolean wasReady = ready.isDone() && !ready.isCompletedExceptionally();
      if (!Boolean.TRUE.equals(state.getRunning()) && !wasReady) {
        List<String> followed = recentOutput();
        exitBeforeReady = new ServerExit(state.getExitCodeLong(),
            followed.isEmpty() ? getLogs().lines().toList() : followed);
      }
    } catch (RuntimeException e) {
      // gone already or the engine is unreachable: start() reports Testcontainers' own failure
    }
  }

  @Override
  protected void containerIsStarting(InspectContainerResponse info) {
    CompletableFuture<Void> readyNow = new CompletableFuture<>();
    ready = readyNow;
    followOutput(frame -> onOutput(frame, readyNow));
  }

  @Override
  protected void containerIsStopped(InspectContainerResponse info) {
    synchronized (recentOutput) {
      closeOutputFile();
    }
  }

  private void onOutput(OutputFrame frame, CompletableFuture<Void> readyNow) {
    if (frame.getType() == OutputFrame.OutputType.END) {
      readyNow.completeExceptionally(new ContainerStartException(describe() + " exited before it printed a line"
          + " matching /" + readyLine + "/" + lastOutput()));
      return;
    }
    String line = frame.getUtf8StringWithoutLineEnding();
    synchronized (recentOutput) {
      if (recentOutput.size() == OUTPUT_LINES_KEPT) {
        recentOutput.removeFirst();
      }
      recentOutput.addLast(line);
      writeToOutputFile(line);
    }
    if (!readyNow.isDone() && readyLine.matcher(line).find()) {
      readyNow.complete(null);
    }
  }

  private void writeToOutputFile(String line) {
    if (outputFile == null) {
      return;
    }
    try {
      if (output == null) {
        Files.createDirectories(outputFile.toAbsolutePath().getParent());
        output = Files.newBufferedWriter(outputFile, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
            StandardOpenOption.APPEND);
      }
      output.write(line);
      output.newLine();
      output.flush();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write the output of " + describe() + " to " + outputFile, e);
    }
  }

  private void closeOutputFile() {
    if (output != null) {
      try {
        output.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      } finally {
        output = null;
      }
    }
  }

  private String describe() {
    return image.tag() + " (" + alias + ")";
  }

  private String lastOutput() {
    return lastOutput(recentOutput());
  }

  private static String lastOutput(List<String> lines) {
    List<String> tail = lines.subList(Math.max(0, lines.size() - OUTPUT_LINES_REPORTED), lines.size());
    return tail.isEmpty() ? "; it printed nothing" : "; its last output:\n  " + String.join("\n  ", tail);
  }

  /** Waits for the ready line; the server's exit ends the wait at once. */
  private final class ReadyLine implements WaitStrategy {

    private Duration timeout;

    ReadyLine(Duration timeout) {
      this.timeout = timeout;
    }

    @Override
    public void waitUntilReady(WaitStrategyTarget target) {
      try {
        ready.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
      } catch (TimeoutException e) {
        throw new ContainerStartException(describe() + " printed no line matching /" + readyLine + "/ within "
            + timeout + lastOutput());
      } catch (ExecutionException e) {
        throw (RuntimeException) e.getCause();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new ContainerStartException(describe() + ": interrupted while waiting for it to start");
      }
    }

    @Override
    public WaitStrategy withStartupTimeout(Duration startupTimeout) {
      this.timeout = startupTimeout;
      return this;
    }
  }
}
