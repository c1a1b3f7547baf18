import { networkInterfaces } from 'node:os';

/** Decides per accepted connection, from the peer address, whether to serve it. */
export type ConnectionFilter = (remoteAddress: string | undefined) => boolean;

/** What a filter was built from, so another thread can build the same one (per-core engine threads). */
export interface ConnectionFilterSpec {
  localOnly: boolean;
  ipWhitelist: string[];
}

const specs = new WeakMap<ConnectionFilter, ConnectionFilterSpec>();

/** The spec of a filter `connectionFilter` made; undefined for any other function. */
export function connectionFilterSpec(filter: ConnectionFilter): ConnectionFilterSpec | undefined {
  return specs.get(filter);
}

/**
 * mountebank's `--localOnly` / `--ipWhitelist`: the machine's internal (loopback) addresses are always
 * allowed, plus (without localOnly) the whitelist entries; `*` in the whitelist allows everyone, which
 * is the default and yields no filter at all. A blocked connection is destroyed on accept, as
 * mountebank does, so its client sees a reset.
 */
export function connectionFilter(localOnly: boolean, ipWhitelist: string[], onBlocked: (address: string) => void): ConnectionFilter | undefined {
  const allowed = new Set<string>();
  for (const addresses of Object.values(networkInterfaces())) {
    for (const address of addresses ?? []) {
      if (!address.internal) continue;
      allowed.add(address.address.toLowerCase());
      if (address.family === 'IPv4') allowed.add(`::ffff:${address.address}`);
    }
  }
  if (!localOnly) for (const ip of ipWhitelist) allowed.add(ip.toLowerCase());
  if (allowed.has('*')) return undefined;
  const filter: ConnectionFilter = (remoteAddress) => {
    // A link-local peer may carry its zone (`fe80::1%eth0`); the whitelist names the bare address. An
    // IPv4 peer of a dual-stack listener shows as `::ffff:a.b.c.d`: a whitelisted `a.b.c.d` admits it
    // (mountebank 2.9.1 compares the mapped form only, so its own whitelist test cannot pass there).
    const bare = remoteAddress?.replace(/%\w+$/, '').toLowerCase();
    const ok = bare !== undefined && (allowed.has(bare) || allowed.has(bare.replace(/^::ffff:(?=\d+\.)/, '')));
    if (!ok) onBlocked(remoteAddress ?? 'an unknown address');
    return ok;
  };
  specs.set(filter, { localOnly, ipWhitelist: [...ipWhitelist] });
  return filter;
}
