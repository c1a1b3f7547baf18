/**
 * The root of svc's own errors, so `instanceof SvcFailure` tells a failure svc raised on purpose
 * from a bug or a library's error. Errors that reach a client as a docs/errors.md envelope are SvcErrors
 * (errors.ts); the rest are internal signals between rooms or process-level failures below.
 */
export class SvcFailure extends Error {}

/** A bad command line, rcfile value or tool argument: the process exits 2 with the message. */
export class UsageError extends SvcFailure {}

/** The server could not start (startup sources, data directory, a listener): the message says what. */
export class StartupFailure extends SvcFailure {}
