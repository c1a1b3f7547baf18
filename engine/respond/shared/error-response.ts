import { errorBody, statusOf, type ErrorSlug } from '../../model/index.js';
import type { OutgoingHeaders } from '../../transport/index.js';
import type { PreparedResponse } from './is-response.js';

const JSON_TYPE: Array<[string, string]> = [['Content-Type', 'application/json']];

export interface ErrorResponseOptions {
  /** Where a door answers the slug with another status than the catalogue's (a behavior's injection failure: 500). */
  status?: number;
  headers?: OutgoingHeaders;
  /** Fields after `message` in the entry (`errorType`, `data`). */
  extra?: Record<string, unknown>;
}

/** A docs/errors.md envelope answer on an imposter port, built from the error catalogue. */
export function errorResponse(type: ErrorSlug, message: string, options: ErrorResponseOptions = {}): PreparedResponse {
  return { statusCode: options.status ?? statusOf(type), headers: options.headers ?? JSON_TYPE, body: errorBody(type, message, options.extra) };
}
