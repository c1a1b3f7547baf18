/** `--front-door` address forms. */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatListenAddress, parseListenAddress } from '../../../admin/front-door/index.js';

const cases: Array<[string, ReturnType<typeof parseListenAddress>]> = [
  ['8080', { port: 8080 }],
  [':8080', { port: 8080 }],
  ['127.0.0.2:8080', { host: '127.0.0.2', port: 8080 }],
  ['localhost:0', { host: 'localhost', port: 0 }],
  ['[::1]:8080', { host: '::1', port: 8080 }],
  ['65536', undefined],
  ['host:', undefined],
  ['nowhere', undefined],
  ['::1:8080', undefined],
  ['a b:80', undefined],
  ['', undefined],
];
for (const [text, expected] of cases) {
  test(`parseListenAddress(${JSON.stringify(text)})`, () => {
    assert.equal(parseListenAddress(text), expected);
  });
}

test('formatListenAddress writes the bound port, every interface as 0.0.0.0 and IPv6 in brackets', () => {
  assert.is(formatListenAddress({ port: 0 }, 4321), '0.0.0.0:4321');
  assert.is(formatListenAddress({ host: '::1', port: 0 }, 4321), '[::1]:4321');
  assert.is(formatListenAddress({ host: '127.0.0.1', port: 80 }, 80), '127.0.0.1:80');
});

test.run();
