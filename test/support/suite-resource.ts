import type { Test } from 'uvu';

/**
 * One resource for a whole uvu suite (a server pair, ...): started before the first test, reset after
 * each, stopped after the last. A failed start is kept and thrown by each test through the returned
 * accessor: a throwing `before` hook would abort the whole uvu run, taking the other test files with it.
 */
export function suiteResource<T>(test: Test, start: () => Promise<T>, hooks: { stop(value: T): Promise<void>; afterEach(value: T): Promise<void> }): () => T {
  let held: T | Error = new Error('suite resource not started');
  test.before(async () => {
    held = await start().catch((err: unknown) => (err instanceof Error ? err : new Error(String(err))));
  });
  test.after(async () => {
    if (!(held instanceof Error)) await hooks.stop(held);
  });
  test.after.each(async () => {
    if (!(held instanceof Error)) await hooks.afterEach(held);
  });
  return () => {
    if (held instanceof Error) throw held;
    return held;
  };
}
