package dev.sluice.broker.control;

/** What the control plane does for a request, as data; {@link ControlPlaneVerticle} executes them. */
public enum ControlEffect {
  /** Validate span, start ts and options; register all-or-nothing; send Ready. */
  REGISTER,
  /** Send Ready again (idempotent re-register on the same stream). */
  RESEND_READY,
  /**
   * Register afresh on the requesting stream, replacing the registration held by another stream (all
   * checks pass before the old one is dropped).
   */
  TAKE_OVER,
  /** Cancel the old epoch; fetch the table info at the start ts; send Handshake; schedule a scan. */
  RESET_EPOCH,
  /** Drop state, unregister, keep a tombstone (id, epoch). */
  REMOVE
}
