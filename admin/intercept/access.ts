/**
 * Who may control the intercept proxy (docs/cli.md rules 6–7). Actions are named as the spec names
 * them; under `--require-admin-auth` an `intercept.write` from another host needs authentication.
 */
import { isIP } from 'node:net';

export type InterceptAction = 'intercept.read' | 'intercept.write';

export interface AccessContext {
  action: InterceptAction;
  /** The TCP peer address as node reports it (may be IPv4-mapped IPv6). */
  remoteAddress: string | undefined;
  requireAdminAuth: boolean;
  /** True when the request carried a valid API key (never true when no key is configured). */
  authenticated: boolean;
}

/** 127.0.0.0/8, ::1 and their IPv4-mapped forms; an unknown peer counts as off-host. */
export function isLoopbackPeer(address: string | undefined): boolean {
  if (address === undefined) return false;
  const plain = address.toLowerCase().startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(plain) === 4) return plain.startsWith('127.');
  return plain === '::1' || plain === '0:0:0:0:0:0:0:1';
}

/** 'allow', or 'forbidden' (403) for an unauthenticated off-host write under --require-admin-auth. */
export function interceptAccess(context: AccessContext): 'allow' | 'forbidden' {
  if (context.action === 'intercept.read' || !context.requireAdminAuth) return 'allow';
  return context.authenticated || isLoopbackPeer(context.remoteAddress) ? 'allow' : 'forbidden';
}
