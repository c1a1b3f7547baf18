/**
 * Injection gating for the engine host (SPEC §4.14): the embedded admin plane, its configFile and
 * reload are gated by serve_admin's `allowInjection`; the C functions themselves are trusted.
 *
 * The manager reads `allowInjection` from its options on every parse, so the host hands it this
 * object and opens the gate only while a C function's (synchronous) parse runs. Should a manager
 * call ever parse after an await, the gate is closed by then: the C call is refused, never an admin
 * request let through.
 */
export class InjectionPolicy {
  /** serve_admin's `allowInjection`. */
  adminAllows = false;
  private trusting = false;

  get allowInjection(): boolean {
    return this.trusting || this.adminAllows;
  }

  /** Runs a C function's manager call with the gate open for its synchronous part. */
  trusted<T>(work: () => T): T {
    this.trusting = true;
    try {
      return work();
    } finally {
      this.trusting = false;
    }
  }
}
