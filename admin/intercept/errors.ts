/** The SPEC §7 errors of the intercept control (403, 404, 409, 429, 500) and its 400s. */
import { SvcError, errorEntries } from '../../engine/model/index.js';

export const interceptErrors = {
  badOptions: (message: string) => new SvcError(400, [{ code: 'bad data', type: 'invalid_intercept_options', message }]),
  badCa: (message: string) => new SvcError(400, [{ code: 'bad data', type: 'invalid_intercept_ca', message }]),
  bindFailed: (message: string) => new SvcError(400, [{ code: 'bad data', type: 'intercept_bind_failed', message }]),
  badRule: (message: string, source?: unknown) => new SvcError(400, [errorEntries.badData(message, source)]),
  invalidInjection: (message: string) => new SvcError(400, [errorEntries.invalidInjection(message)]),
  forbidden: () => new SvcError(403, [{
    code: 'insufficient access',
    type: 'forbidden',
    message: 'intercept control from another host needs authentication (--require-admin-auth)',
  }]),
  notRunning: () => new SvcError(404, [{ code: 'no such resource', type: 'intercept_not_running', message: 'the intercept proxy is not running' }]),
  alreadyRunning: (url: string) => new SvcError(409, [{ code: 'resource conflict', type: 'intercept_already_running', message: `the intercept proxy is already running at ${url}` }]),
  rulesFull: (capacity: number, stored: number, offered: number) => new SvcError(429, [{
    code: 'too many requests',
    type: 'intercept_rules_full',
    message: `the intercept rule store holds at most ${capacity} rules (${stored} stored, ${offered} offered)`,
  }]),
  exportFailed: (message: string) => new SvcError(500, [{ code: '500', type: 'truststore_export_failed', message }]),
};
