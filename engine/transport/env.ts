const TRUTHY = new Set(['1', 'true', 'yes', 'on']);

/** docs/cli.md rule 4: `SVC_DISABLE_HTTP2` truthy makes every listener HTTP/1 only. */
export function isHttp2Disabled(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.SVC_DISABLE_HTTP2;
  return value !== undefined && TRUTHY.has(value.trim().toLowerCase());
}
