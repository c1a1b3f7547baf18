/**
 * The TLS-intercepting forward proxy and its control (docs/intercept.md, §4.9). Admin routes and the C ABI
 * use `InterceptControl`; the rest is exported for tests and tools.
 */
export {
  InterceptControl,
  imposterProtocols,
  type InterceptControlOptions,
  type RuleGate,
  type ListenerWatch,
  type InterceptAddress,
  type InterceptStarted,
} from './control.js';
export { interceptAccess, isLoopbackPeer, type InterceptAction, type AccessContext } from './access.js';
export { interceptErrors } from './errors.js';
export { RULE_CAPACITY } from './rules.js';
export { DEFAULT_TRUSTSTORE_PASSWORD, TRUSTSTORE_ALIAS, type TruststoreFormat } from './truststore-format.js';
export type { OriginProtocol } from './proxy.js';
