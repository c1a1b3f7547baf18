/**
 * The admin router (admin/http/router.ts) indexes routes by segment count and last literal segment; what
 * it finds must stay what trying every route in the order they were added finds.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Router, type RouteHandler } from '../../admin/http/index.js';

const test = suite('admin router');

/** A handler that names itself, so a find says which route it found. */
function named(name: string): RouteHandler {
  const handler: RouteHandler = () => ({ status: 200, body: name });
  Object.defineProperty(handler, 'name', { value: name });
  return handler;
}

function found(router: Router, method: string, path: string): string | undefined {
  const hit = router.find(method, path);
  if (hit === undefined) return 'none';
  if (hit === 'method') return 'method';
  return `${hit.handler.name} ${JSON.stringify(hit.params)}`;
}

test('the first route added that fits wins, whether its last segment is a literal or a parameter', () => {
  const literalFirst = new Router().on('GET', '/imposters/:port/stubs', named('literal')).on('GET', '/imposters/:port/:what', named('param'));
  assert.is(found(literalFirst, 'GET', '/imposters/1/stubs'), 'literal {"port":"1"}');
  assert.is(found(literalFirst, 'GET', '/imposters/1/other'), 'param {"port":"1","what":"other"}');
  const paramFirst = new Router().on('GET', '/imposters/:port/:what', named('param')).on('GET', '/imposters/:port/stubs', named('literal'));
  assert.is(found(paramFirst, 'GET', '/imposters/1/stubs'), 'param {"port":"1","what":"stubs"}');
  const restFirst = new Router().on('GET', '/files/*', named('rest')).on('GET', '/files/a/b', named('exact'));
  assert.is(found(restFirst, 'GET', '/files/a/b'), 'rest {"*":"a/b"}');
  assert.is(found(restFirst, 'GET', '/files'), 'rest {"*":""}');
});

test('a method that does not fit finds the next route that does, or says the path exists under another method', () => {
  const router = new Router()
    .on('DELETE', '/imposters/:port/savedRequests', named('delete'))
    .on('*', '/imposters/:port/:any', named('any'))
    .on('GET', '/', named('root'))
    .on('POST', '/imposters', named('create'));
  assert.is(found(router, 'GET', '/imposters/5/savedRequests'), 'any {"port":"5","any":"savedRequests"}');
  assert.is(found(router, 'DELETE', '/imposters/5/savedRequests'), 'delete {"port":"5"}');
  assert.is(found(router, 'GET', '/'), 'root {}');
  assert.is(found(router, 'GET', '/imposters'), 'method');
  assert.is(found(router, 'GET', '/nothing/here'), 'none');
  assert.is(found(router, 'GET', `/${'a/'.repeat(40)}`), 'none', 'a path longer than the kept indexes');
});

test('parameters are percent-decoded, and a malformed escape is a 400', () => {
  const router = new Router().on('GET', '/imposters/:port/stubs/by-id/:id', named('by-id'));
  assert.is(found(router, 'GET', '/imposters/1/stubs/by-id/caf%C3%A9'), 'by-id {"port":"1","id":"café"}');
  assert.is(found(router, 'GET', '/imposters/1/stubs/by-id/plain'), 'by-id {"port":"1","id":"plain"}');
  assert.throws(
    () => router.find('GET', '/imposters/1/stubs/by-id/%E0'),
    (err: { status?: number }) => err.status === 400,
  );
});

test.run();
