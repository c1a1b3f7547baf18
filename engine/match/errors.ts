import { SvcFailure } from '../model/index.js';

/**
 * An error raised while evaluating a predicate. mountebank answers these with 400 (at stub
 * validation) or 500 (at request time); `code` is mountebank's error code where it has one.
 */
export class PredicateError extends SvcFailure {
  readonly code: string;
  readonly source: unknown;

  constructor(message: string, source?: unknown, code = 'bad data') {
    super(message);
    this.name = 'PredicateError';
    this.code = code;
    this.source = source;
  }
}
