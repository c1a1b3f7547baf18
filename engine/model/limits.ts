/**
 * Upper bounds of numeric config fields that size work (issue 10): past them a value is a 400 at
 * create time, never a hang, a crash or a timer that silently fires at once.
 */

/** `repeat` is kept as a count; past 2^53 - 1 counting is no longer exact. */
export const MAX_REPEAT = Number.MAX_SAFE_INTEGER;

/** node timers hold at most 2^31 - 1 ms; a longer delay fires after 1 ms instead. */
export const MAX_DELAY_MS = 2_147_483_647;

/** Flow state `ttlSeconds` (about 68 years): the expiry in ms stays an exact integer for redis PEXPIRE. */
export const MAX_TTL_SECONDS = 2_147_483_647;

/**
 * A response body a script, inject or decorate builds: capped like a request body, so one script
 * cannot make the server hold and send an unbounded answer.
 */
export const MAX_SCRIPTED_BODY_BYTES = 64 * 1024 * 1024;

/** Redis `poolSize`: each member is a connection opened up front. */
export const MAX_POOL_SIZE = 256;

export function isIntegerIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}
