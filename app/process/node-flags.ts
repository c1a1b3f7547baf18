/**
 * The Node flags a server process runs with (the `svc` bin's shebang, `npm start`, `svc restart`):
 * V8 sizes the young generation from the machine's memory (on a 24 GiB box each semi-space may grow
 * to 64 MiB, 128 MiB of new space), and connection churn (HTTP/2 floods, half-closed sessions) grows
 * it that far and keeps it, about 130 MB of RSS over baseline in the soak's attack classes. 16 MiB
 * semi-spaces bound that growth (docs/limits.md).
 */
export const SERVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=16'];

/** `execArgv` with each of SERVER_NODE_FLAGS the caller did not set itself (a flag set is kept as it is). */
export function withServerNodeFlags(execArgv: readonly string[]): string[] {
  const named = (flag: string): string => flag.split('=')[0]!.replace(/_/g, '-');
  const set = new Set(execArgv.map(named));
  return [...execArgv, ...SERVER_NODE_FLAGS.filter((flag) => !set.has(named(flag)))];
}
