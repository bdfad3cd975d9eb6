package dev.sluice.broker.control;

/**
 * A read-only snapshot of one dispatcher for the admin API.
 *
 * @param id           dispatcher id (32 hex digits)
 * @param changefeedId its changefeed, "" when none
 * @param span         the span, as text
 * @param collectorId  the collector whose stream it lives on
 * @param epoch        current epoch, 0 = registered, not streaming
 * @param streaming    whether the current epoch was handshaked
 * @param checkpointTs the last checkpoint the dispatcher reported (or its start ts)
 * @param published    false when the upstream publication leaves its table out now (it left after REGISTER):
 *                     none of its changes arrive any more
 */
public record DispatcherView(String id, String changefeedId, String span, String collectorId, long epoch,
    boolean streaming, long checkpointTs, boolean published) {}
