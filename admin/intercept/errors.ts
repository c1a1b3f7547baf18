/** The docs/errors.md errors of the intercept control (403, 404, 409, 429, 500) and its 400s. */
import { errorOf, errors } from '../../engine/model/index.js';

export const interceptErrors = {
  badOptions: (message: string) => errorOf('invalid_intercept_options', message),
  badCa: (message: string) => errorOf('invalid_intercept_ca', message),
  bindFailed: (message: string) => errorOf('intercept_bind_failed', message),
  badRule: (message: string, source?: unknown) => errors.badData(message, source),
  invalidInjection: (message: string) => errorOf('invalid_injection', message),
  forbidden: () => errorOf('forbidden', 'intercept control from another host needs authentication (--require-admin-auth)'),
  notRunning: () => errorOf('intercept_not_running', 'the intercept proxy is not running'),
  alreadyRunning: (url: string) => errorOf('intercept_already_running', `the intercept proxy is already running at ${url}`),
  rulesFull: (capacity: number, stored: number, offered: number) =>
    errorOf('intercept_rules_full', `the intercept rule store holds at most ${capacity} rules (${stored} stored, ${offered} offered)`),
  exportFailed: (message: string) => errorOf('truststore_export_failed', message),
};
