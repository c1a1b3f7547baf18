import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { tempDirForSuite } from '../../support/temp-dir.js';
import { readConfigFile, ConfigFileError } from '../../../engine/config/index.js';

const test = suite('config: config files and templates');
const tmp = tempDirForSuite(test, 'svc-config-');
const file = (name: string, text: string): string => tmp.file(name, text);

function failure(path: string, noParse = false): string {
  try {
    readConfigFile(path, { noParse });
  } catch (err) {
    assert.instance(err, ConfigFileError);
    return (err as Error).message;
  }
  throw new Error('expected the config file to fail');
}

test('JSON wrapper, bare imposter and bare array forms', () => {
  const wrapped = file('wrapped.json', JSON.stringify({ imposters: [{ port: 1, protocol: 'http' }], routes: [{ id: 'a' }] }));
  assert.equal(readConfigFile(wrapped, { noParse: false }), { imposters: [{ port: 1, protocol: 'http' }], routes: [{ id: 'a' }] });
  const single = file('single.json', JSON.stringify({ port: 2, protocol: 'http' }));
  assert.equal(readConfigFile(single, { noParse: false }).imposters, [{ port: 2, protocol: 'http' }]);
  const list = file('list.json', JSON.stringify([{ port: 3, protocol: 'http' }]));
  assert.equal(readConfigFile(list, { noParse: false }).imposters, [{ port: 3, protocol: 'http' }]);
});

test('a routes block on a single-imposter document is an error', () => {
  const path = file('routes-single.json', JSON.stringify({ port: 2, protocol: 'http', routes: [] }));
  assert.match(failure(path), /routes/);
});

test('YAML root sequence, including a one-element sequence', () => {
  const two = file('two.yaml', '- port: 4545\n  protocol: http\n  stubs:\n    - responses:\n        - is: {statusCode: 201, body: hi}\n- protocol: http\n');
  assert.equal(readConfigFile(two, { noParse: false }).imposters, [
    { port: 4545, protocol: 'http', stubs: [{ responses: [{ is: { statusCode: 201, body: 'hi' } }] }] },
    { protocol: 'http' },
  ]);
  const one = file('one.yml', '- port: 4546\n  protocol: http\n');
  assert.equal(readConfigFile(one, { noParse: false }).imposters, [{ port: 4546, protocol: 'http' }]);
});

test('a YAML mapping root is rejected naming the file', () => {
  const path = file('mapping.yaml', 'port: 4545\nprotocol: http\n');
  const message = failure(path);
  assert.ok(message.startsWith(path), message);
  assert.match(message, /sequence of imposters/);
});

test('include and stringify resolve relative to the including file, recursively', () => {
  file('tpl/stubs/body.txt', 'say "<%- include(\'word.txt\') %>"\n');
  file('tpl/stubs/word.txt', 'hello');
  file('tpl/stubs/stub.ejs', '{ "responses": [{ "is": { "body": "<%- stringify(filename, \'body.txt\') %>" } }] }');
  file('tpl/imposter.ejs', '{ "port": 4547, "protocol": "http", "stubs": [<%- include stubs/stub.ejs %>] }');
  file('tpl/other.json', '{ "port": 4548, "protocol": "http" }');
  const main = file('tpl/main.json', '{ "imposters": [\n  <%- include imposter %>,\n  <% include other.json -%>\n] }');
  const doc = readConfigFile(main, { noParse: false });
  assert.equal(doc.imposters, [
    { port: 4547, protocol: 'http', stubs: [{ responses: [{ is: { body: 'say "hello"' } }] }] },
    { port: 4548, protocol: 'http' },
  ]);
});

test('comments vanish and <%% is a literal', () => {
  const path = file('comment.json', '<%# a note %>{ "port": 4549, "protocol": "http", "name": "<%%-x" }');
  assert.equal(readConfigFile(path, { noParse: false }).imposters, [{ port: 4549, protocol: 'http', name: '<%-x' }]);
});

test('any other tag fails naming the file and the tag, and nothing is evaluated', () => {
  const path = file('evil.json', '{ "port": <%= process.exit(3) %>, "protocol": "http" }');
  const message = failure(path);
  assert.ok(message.startsWith(path), message);
  assert.ok(message.includes('<%= process.exit(3) %>'), message);
  const nested = file('nested/outer.json', '{ "imposters": [<%- include inner.ejs %>] }');
  const inner = file('nested/inner.ejs', '<% if (true) { %>{}<% } %>');
  const nestedMessage = failure(nested);
  assert.ok(nestedMessage.startsWith(inner), nestedMessage);
  assert.ok(nestedMessage.includes('<% if (true) { %>'), nestedMessage);
});

test('include cycles, missing includes and unterminated tags fail', () => {
  file('cycle/a.ejs', '<%- include b.ejs %>');
  file('cycle/b.ejs', '<%- include a.ejs %>');
  assert.match(failure(file('cycle/main.json', '<%- include a.ejs %>')), /include cycle/);
  assert.match(failure(file('missing.json', '<%- include nowhere.json %>')), /cannot read .*nowhere\.json: ENOENT/);
  assert.match(failure(file('open.json', '{ <%- include x.json ')), /unterminated template tag/);
});

test('--no-parse leaves template tags as they are', () => {
  const path = file('raw.json', '{ "port": 4550, "protocol": "http", "name": "<%= not a tag here %>" }');
  assert.equal(readConfigFile(path, { noParse: true }).imposters, [{ port: 4550, protocol: 'http', name: '<%= not a tag here %>' }]);
  assert.match(failure(path), /unsupported template tag/);
});

test('a file that is neither JSON nor a YAML sequence names the file', () => {
  const path = file('broken.json', '{ "imposters": [ ');
  const message = failure(path);
  assert.ok(message.startsWith(path), message);
  assert.match(message, /not valid JSON/);
  assert.match(failure(join(tmp.path, 'absent.json')), /ENOENT/);
});

test.run();
