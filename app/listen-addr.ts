import { parseListenAddress } from '../engine/transport/index.js';

/** `host:port`, `:port`, `[v6]:port`, a bare port or `{host, port}`; port 0 asks the OS. */
export type ListenAddr = string | { host?: string; port: number };

export interface SocketAddr {
  host: string;
  port: number;
}

export function parseListenAddr(addr: ListenAddr): { host?: string; port: number } {
  if (typeof addr !== 'string') return addr;
  const parsed = parseListenAddress(addr);
  if (parsed === undefined) throw new Error(`'${addr}' is not a listen address ([host]:port)`);
  return { host: parsed.host, port: parsed.port };
}
