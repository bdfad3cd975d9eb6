package dev.sluice.schema;

/**
 * Cache key of one stored table version. The index pre-allocates one per version so that a cache hit
 * allocates nothing.
 *
 * @param tableId table id
 * @param version commit ts of the DDL that produced the version
 */
record TableVersion(long tableId, long version) {
}
