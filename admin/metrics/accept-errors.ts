/**
 * Accept-loop failures by class (docs/metrics-and-events.md). Node reports a failed accept() as the server's
 * 'error' event (syscall `accept`); libuv keeps the loop running afterwards.
 */
export type AcceptErrorClass = 'transient' | 'systemic' | 'fatal';

/** One connection was lost before or during accept; the loop itself is healthy (accept(2) says retry). */
const TRANSIENT = new Set([
  'ECONNABORTED',
  'ECONNRESET',
  'EINTR',
  'EAGAIN',
  'EWOULDBLOCK',
  'EPROTO',
  'EPERM',
  'ETIMEDOUT',
  'ENETDOWN',
  'ENETUNREACH',
  'ENOPROTOOPT',
  'EHOSTDOWN',
  'EHOSTUNREACH',
  'ENONET',
  'EOPNOTSUPP',
]);

/** The process or host ran out of a resource: every accept fails until it frees up (an outage). */
const SYSTEMIC = new Set(['EMFILE', 'ENFILE', 'ENOBUFS', 'ENOMEM']);

/** Anything else means the listening socket itself is broken (EBADF, EINVAL, ENOTSOCK...). */
export function classifyAcceptError(error: Error): AcceptErrorClass {
  const code = (error as NodeJS.ErrnoException).code ?? '';
  if (TRANSIENT.has(code)) return 'transient';
  if (SYSTEMIC.has(code)) return 'systemic';
  return 'fatal';
}
