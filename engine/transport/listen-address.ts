/** Where a listener (front door, embedded planes) binds; no host binds every interface, as imposters do. */
export interface ListenAddress {
  host?: string;
  port: number;
}

/** `host:port`, `[v6]:port`, `:port` or a bare port (`--front-door`, the embedding API); undefined when malformed. */
export function parseListenAddress(text: string): ListenAddress | undefined {
  const found = /^(?:(\[[0-9A-Fa-f:.]+\]|[^\s:[\]]+)?:)?(\d{1,5})$/.exec(text);
  if (found === null) return undefined;
  const port = Number(found[2]);
  if (port > 65535) return undefined;
  const host = found[1]?.replace(/^\[(.*)\]$/, '$1');
  return host === undefined ? { port } : { host, port };
}

/** `host:port` as a client would write it (`[v6]:port`), for logs and `GET /config`. */
export function formatListenAddress(address: ListenAddress, boundPort: number): string {
  const host = address.host === undefined ? '0.0.0.0' : address.host.includes(':') ? `[${address.host}]` : address.host;
  return `${host}:${boundPort}`;
}
