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

/**
 * suiteResource handed out as the resource itself: every property read is forwarded to the started
 * resource (methods bound to it), so a suite writes `svc.admin(...)` as it would with a plain variable
 * set in its `before` hook. Reading a property before that hook ran, or after a failed start, throws.
 */
export function suiteFixture<T extends object>(
  test: Test,
  start: () => Promise<T>,
  hooks: { stop(value: T): Promise<void>; afterEach?(value: T): Promise<void> },
): T {
  const held = suiteResource(test, start, { stop: hooks.stop, afterEach: async (value) => hooks.afterEach?.(value) });
  return new Proxy({} as T, {
    get(_, key) {
      // Not a thenable: `await` on the fixture must not read the resource.
      if (key === 'then') return undefined;
      const resource = held();
      const value = Reflect.get(resource, key);
      return typeof value === 'function' ? value.bind(resource) : value;
    },
  });
}
