import { DEFAULT_TIMEOUT_MS } from './hook-calls.js';

/** `_svc.scriptEngine.timeoutMs` of an imposter config (docs/imposters.md, §8); the default when absent or not a positive number. */
export function scriptTimeoutOf(imposterConfig: Record<string, unknown>): number {
  const svc = imposterConfig._svc;
  const engine = svc !== null && typeof svc === 'object' ? (svc as Record<string, unknown>).scriptEngine : undefined;
  const timeoutMs = engine !== null && typeof engine === 'object' ? (engine as Record<string, unknown>).timeoutMs : undefined;
  return typeof timeoutMs === 'number' && Number.isFinite(timeoutMs) && timeoutMs > 0 ? timeoutMs : DEFAULT_TIMEOUT_MS;
}
