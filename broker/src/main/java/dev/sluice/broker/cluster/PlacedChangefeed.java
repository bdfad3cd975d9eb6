package dev.sluice.broker.cluster;

/**
 * A hosted changefeed as the scheduler sees it: its id and whether its deletion completed (a removed
 * one keeps its record, but no node hosts it).
 *
 * @param id      the changefeed id
 * @param removed REMOVED: its assignment goes
 */
public record PlacedChangefeed(String id, boolean removed) {}
