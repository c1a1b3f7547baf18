/** Request builder for the match unit tests: mountebank's simplified request with defaults. */
import type { MockRequest } from '../../engine/model/request.js';

export function mockRequest(overrides: Partial<MockRequest> = {}): MockRequest {
  const body = overrides.body ?? '';
  return {
    requestFrom: '127.0.0.1:50000',
    method: 'GET',
    path: '/',
    query: {},
    headers: {},
    body,
    rawBody: Buffer.from(body),
    ip: '127.0.0.1',
    isBinary: false,
    ...overrides,
  };
}
