/**
 * A promise started now and awaited later in a test (a slow request while others are checked). When an
 * assertion fails first, the test ends without that await, and the promise's later rejection (its
 * connection cut by the suite's teardown) would be unhandled: that ends the whole uvu run with no
 * summary. The returned promise is the same one: an await still sees its rejection.
 */
export function inFlight<T>(promise: Promise<T>): Promise<T> {
  promise.catch(() => undefined);
  return promise;
}
