export { DEFAULT_TIMEOUTS } from './contract.js';
export type {
  ConnectionTimeouts,
  Listener,
  ListenerEvents,
  ListenerOptions,
  OutgoingHeaders,
  RequestHandler,
  ResponseSink,
} from './contract.js';
export { createListener } from './listener.js';
export { DeadlineSweep } from './deadline-sweep.js';
export { checkBindable } from './bind-check.js';
export { BodyBudget, DEFAULT_BUFFERED_BODY_BYTES } from './body-budget.js';
export { Http1Connection } from './http1-connection.js';
export { connectionFilter, connectionFilterSpec, type ConnectionFilter, type ConnectionFilterSpec } from './ip-filter.js';
export { defaultKeyPair, type KeyPair } from './default-cert.js';
export { isHttp2Disabled } from './env.js';
export { sniffHttp2Preface } from './preface-sniff.js';
export { CONNECTION_SPECIFIC_HEADERS } from './http2-headers.js';
export { formatListenAddress, parseListenAddress, type ListenAddress } from './listen-address.js';
export { reasonPhrase } from './status-text.js';
export { permissiveCiphers, weakCertificateReasons } from './tls-compat.js';
