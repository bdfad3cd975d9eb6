package dev.sluice.broker.control;

/**
 * The control plane's view of the data plane: a mailbox. {@link #submit} never blocks and never
 * fails; commands of one dispatcher reach its owning instance in submission order.
 */
public interface DataPlane {

  void submit(DataPlaneCommand command);
}
