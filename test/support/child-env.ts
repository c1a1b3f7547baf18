/**
 * The environment for a process the tests start. uvu sets FORCE_COLOR=1 in its own process while the
 * suite runs with NO_COLOR=1, and Node 24 answers that pair with a warning on stderr ("The 'NO_COLOR'
 * env is ignored due to the 'FORCE_COLOR' env being set"); a child gets NO_COLOR alone, so what a
 * test reads from its stderr is the program's output, not the Node version's.
 */
export function childEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  if (env.NO_COLOR !== undefined && extra.FORCE_COLOR === undefined) delete env.FORCE_COLOR;
  return env;
}

/** Lines a Node runtime itself writes to stderr (`(node:123) Warning: ...` and its `--trace-warnings` hint), never the program's. */
const NODE_WARNING = /^\(node:\d+\) \S*Warning: .*\n(?:\(Use `node --trace-[a-z-]+ \.\.\.` to show where the warning was created\)\n)?/gm;

/** stderr without the warnings a Node version prints about its own flags and environment. */
export function withoutNodeWarnings(stderr: string): string {
  return stderr.replace(NODE_WARNING, '');
}
