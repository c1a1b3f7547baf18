import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { applyRcfileDefaults, parseCliOptions } from '../../../tools/cli/options/index.js';
import { defaultCliOptions, UsageError } from '../../../app/index.js';
import { parseLogFilter } from '../../../engine/log/index.js';
import { tempDirForSuite } from '../../support/temp-dir.js';

const test = suite('cli: options, rcfile and log filter');
const temp = tempDirForSuite(test, 'svc-options-');

function rc(name: string, doc: unknown): string {
  const path = join(temp.path, name);
  writeFileSync(path, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return path;
}

function usageError(argv: string[], env: NodeJS.ProcessEnv = {}): string {
  try {
    parseCliOptions(argv, env);
  } catch (err) {
    assert.instance(err, UsageError);
    return (err as Error).message;
  }
  throw new Error(`expected a usage error for ${argv.join(' ')}`);
}

test("no flags, environment or rcfile: exactly app's defaultCliOptions()", () => {
  assert.equal(parseCliOptions([], {}), defaultCliOptions());
});

test('defaults', () => {
  const options = parseCliOptions([], {});
  assert.is(options.port, 2525);
  assert.is(options.pidFile, 'svc.pid');
  assert.is(options.allowInjection, false);
  assert.is(options.logLevel, 'info');
  // Absent unless given (flag, SVC_RUNTIME, rcfile): one loop then, unless the manager finds SVC_RUNTIME.
  assert.is(options.runtime, undefined);
  assert.equal(options.ipWhitelist, ['*']);
});

test('rcfile keys in both spellings; explicit flags win over environment over rcfile', () => {
  const path = rc('snake.json', {
    port: 3000,
    host: '127.0.0.1',
    loglevel: 'warn',
    allow_injection: true,
    local_only: true,
    datadir: 'd',
    configfile: 'c.json',
  });
  const fromRc = parseCliOptions(['--rcfile', path], {});
  assert.is(fromRc.port, 3000);
  assert.is(fromRc.host, '127.0.0.1');
  assert.is(fromRc.logLevel, 'warn');
  assert.is(fromRc.allowInjection, true);
  assert.is(fromRc.localOnly, true);
  assert.is(fromRc.datadir, 'd');
  assert.is(fromRc.configFile, 'c.json');
  assert.equal(fromRc.warnings, []);

  const camel = rc('camel.json', { logLevel: 'debug', allowInjection: false, localOnly: false });
  assert.is(parseCliOptions(['--rcfile', camel], {}).logLevel, 'debug');

  const env = { MB_PORT: '4000', MB_ALLOW_INJECTION: 'false' };
  const envOverRc = parseCliOptions(['--rcfile', path], env);
  assert.is(envOverRc.port, 4000);
  assert.is(envOverRc.allowInjection, false);
  const flagsOverAll = parseCliOptions(['--rcfile', path, '--port', '5000', '--allowInjection', '--loglevel', 'error'], env);
  assert.is(flagsOverAll.port, 5000);
  assert.is(flagsOverAll.allowInjection, true);
  assert.is(flagsOverAll.logLevel, 'error');
});

test('unknown rcfile keys are warned and ignored; bad values are usage errors; unreadable files are warned (mountebank starts anyway)', () => {
  const path = rc('unknown.json', { port: 3001, pidfile: 'x.pid', colour: 'blue' });
  const options = parseCliOptions(['--rcfile', path], {});
  assert.is(options.port, 3001);
  assert.is(options.pidFile, 'svc.pid');
  assert.equal(options.warnings, [`rcfile ${path}: unknown key 'pidfile' ignored`, `rcfile ${path}: unknown key 'colour' ignored`]);
  assert.match(usageError(['--rcfile', rc('badport.json', { port: 'abc' })]), /'port' must be a port number/);
  assert.match(usageError(['--rcfile', rc('badbool.json', { allowInjection: 'maybe' })]), /must be true or false/);
  const ignored = (path: string) => {
    const options = parseCliOptions(['--rcfile', path], {});
    assert.is(options.port, 2525, 'defaults apply');
    return options.warnings.join('\n');
  };
  assert.match(ignored(rc('array.json', [1])), /JSON object; ignored/);
  assert.match(ignored(rc('broken.json', '{')), /cannot read rcfile .*; ignored/);
  assert.match(ignored(join(temp.path, 'absent.json')), /cannot read rcfile .*ENOENT; ignored/);
});

test('mountebank spellings, aliases and flags svc does not implement', () => {
  const options = parseCliOptions(
    [
      '-p',
      '3002',
      '-i',
      '--apikey',
      'k',
      '--ipWhitelist',
      '1.2.3.4|::1',
      '--noParse',
      '--nologfile',
      '--mock',
      '--debug',
      '--protofile',
      'p.json',
      'save.json',
    ],
    {},
  );
  assert.is(options.port, 3002);
  assert.is(options.allowInjection, true);
  assert.is(options.apiKey, 'k');
  assert.equal(options.ipWhitelist, ['1.2.3.4', '::1']);
  assert.is(options.noParse, true);
  assert.is(options.noLogFile, true);
  assert.equal(options.positionals, ['save.json']);
  assert.equal(options.warnings, ['option --protofile is not supported and was ignored']);
  assert.is(parseCliOptions(['--port=3003', '--allowInjection=false'], {}).allowInjection, false);
  assert.is(parseCliOptions(['--port=3003'], {}).port, 3003);
  assert.is(parseCliOptions(['--imposters', 'i.json'], {}).configFile, 'i.json', 'SPEC spelling of --configfile');
});

test('SPEC options: runtime, front door, metrics port, scripts dir, require-admin-auth, api key', () => {
  const options = parseCliOptions(
    ['--runtime', 'per-core', '--front-door', '127.0.0.1:8080', '--metrics-port', '9191', '--scripts-dir', temp.path, '--require-admin-auth'],
    {},
  );
  assert.is(options.runtime, 'per-core');
  assert.is(options.frontDoor, '127.0.0.1:8080');
  assert.is(options.metricsPort, 9191);
  assert.is(options.scriptsDir, temp.path);
  assert.is(options.requireAdminAuth, true);
  assert.is(parseCliOptions([], { SVC_METRICS_PORT: '9292', MB_APIKEY: 'env-key' }).metricsPort, 9292);
  assert.is(parseCliOptions([], { MB_APIKEY: 'env-key' }).apiKey, 'env-key');
  assert.is(parseCliOptions(['--front-door', '8081'], {}).frontDoor, '8081');
  assert.match(usageError(['--runtime', 'many']), /per-core/);
  assert.match(usageError(['--front-door', 'nowhere']), /\[host:\]port/);
  assert.match(usageError(['--scripts-dir', join(temp.path, 'absent')]), /not a directory/);
  assert.match(usageError(['--api-key', '  ']), /blank/);
  assert.match(usageError([], { MB_APIKEY: '' }), /blank/);
  assert.match(usageError(['--port', '70000']), /port number/);
  assert.match(usageError(['--port']), /needs a value/);
});

test('SVC_LOG / RUST_LOG filters', () => {
  assert.equal(parseLogFilter('debug'), { level: 'debug', quiet: false });
  assert.equal(parseLogFilter('warn,svc=debug'), { level: 'debug', quiet: false });
  assert.equal(parseLogFilter('svc::admin=error,info'), { level: 'error', quiet: false });
  assert.equal(parseLogFilter('hyper=trace,warn'), { level: 'warn', quiet: false });
  assert.equal(parseLogFilter('svc'), { level: 'debug', quiet: false });
  assert.equal(parseLogFilter('off'), { level: 'error', quiet: true });
  assert.ok('error' in parseLogFilter('loud'));
  assert.is(parseCliOptions([], { RUST_LOG: 'warn' }).logLevel, 'warn');
  assert.is(parseCliOptions([], { RUST_LOG: 'warn', SVC_LOG: 'error' }).logLevel, 'error', 'SVC_LOG first');
  assert.is(parseCliOptions(['--loglevel', 'debug'], { SVC_LOG: 'error' }).logLevel, 'debug', 'the flag wins');
  const bad = parseCliOptions([], { SVC_LOG: 'loud' });
  assert.is(bad.logLevel, 'info');
  assert.match(bad.warnings[0], /SVC_LOG/);
});

test('applyRcfileDefaults (hosts that build options themselves) fills only the options still at their defaults, and warns about unknown keys', () => {
  const rcFile = rc('svcrc.json', { port: 4000, host: '127.0.0.2', allowInjection: true, colour: 'blue' });
  const options = { ...defaultCliOptions(), port: 3000, rcFile };
  applyRcfileDefaults(options);
  assert.is(options.port, 3000, 'explicit port wins');
  assert.is(options.host, '127.0.0.2');
  assert.is(options.allowInjection, true);
  assert.ok(
    options.warnings.some((w) => w.includes("unknown key 'colour'")),
    options.warnings.join('; '),
  );
});

test.run();
