/** `--fleet redis://HOST:PORT[/DB]`: checked at start-up, so a typo fails before anything is served. */
export function fleetUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be a URL of the form redis://HOST:PORT[/DB]';
  }
  if (url.protocol !== 'redis:') return `must use the redis:// scheme, got '${url.protocol}'`;
  if (url.hostname === '') return 'must name a host (redis://HOST:PORT[/DB])';
  const db = url.pathname.replace(/^\//, '');
  if (db !== '' && !/^\d+$/.test(db)) return `database must be a number, got '${db}'`;
  if (url.search !== '' || url.hash !== '') return 'must not carry a query or fragment';
  return undefined;
}

export const DEFAULT_FLEET_PREFIX = 'svc:fleet:';
