package dev.sluice.broker.changefeed;

import java.util.concurrent.CompletableFuture;

/**
 * The answer to a DELETE: which generation is being deleted and a future that completes when this
 * cleanup attempt does (exceptionally with {@link DeletionFailedException} when it failed).
 *
 * <pre>{@code
 * DeletionTicket t = supervisor.delete("orders", DeleteOptions.REMOVE_META).join();
 * t.done().get(5, TimeUnit.SECONDS);   // or follow t.statusPath()
 * }</pre>
 *
 * @param id         the changefeed id
 * @param generation the generation being deleted
 * @param options    the deletion's options
 * @param done       completes with the cleanup attempt
 */
public record DeletionTicket(String id, long generation, DeleteOptions options, CompletableFuture<Void> done) {

  /** Where the deletion's status can be read. */
  public String statusPath() {
    return "/api/v1/changefeeds/" + id + "/deletion/" + generation;
  }
}
