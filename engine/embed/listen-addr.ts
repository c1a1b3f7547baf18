/** `host:port`, `:port`, `[v6]:port`, a bare port or `{host, port}`; port 0 asks the OS. */
export type ListenAddr = string | { host?: string; port: number };

export interface SocketAddr {
  host: string;
  port: number;
}

export function parseListenAddr(addr: ListenAddr): { host?: string; port: number } {
  if (typeof addr !== 'string') return addr;
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d+)$/.exec(addr) ?? /^()()(\d+)$/.exec(addr);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port > 65535) throw new Error(`'${addr}' is not a listen address ([host]:port)`);
  const host = match[1] ?? match[2];
  return { host: host === '' ? undefined : host, port };
}
