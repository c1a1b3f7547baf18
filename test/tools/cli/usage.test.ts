/**
 * A command line a user can trust: an unknown option is an error naming it (with a "did you mean" for
 * a near miss) instead of a server with zero imposters; `-V` prints the version and never serves;
 * `--help` / `help <command>` list every option and subcommand; `-h` is mountebank's `--host` only
 * where a value follows it, else help.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KNOWN_FLAGS, parseCliOptions } from '../../../tools/cli/options/index.js';
import { UsageError, VERSION } from '../../../app/index.js';
import { runSvc } from '../../support/run-svc.js';

const test = suite('cli: unknown options, version and help');

test('an unknown option exits 2 naming it, with a suggestion for a near miss', async () => {
  const typo = await runSvc(['--confgfile', 'x.json', '--port', '1']);
  assert.is(typo.status, 2, typo.stdout + typo.stderr);
  assert.match(typo.stderr, /unknown option --confgfile \(did you mean --configfile\?\)/);
  const far = await runSvc(['start', '--zzzzzzzzzz']);
  assert.is(far.status, 2);
  assert.match(far.stderr, /unknown option --zzzzzzzzzz;/);
  assert.not.match(far.stderr, /did you mean/);
  assert.throws(
    () => parseCliOptions(['--allowinjection'], {}),
    (err: unknown) => err instanceof UsageError && /did you mean --allowInjection\?/.test((err as Error).message),
  );
});

test('mountebank flags svc does not implement are accepted with a warning; kebab spellings of its flags parse', () => {
  const options = parseCliOptions(
    ['--protofile', 'p.json', '--formatter', 'f', '--allow-injection', '--local-only', '--ip-whitelist', '::1', '--remove-proxies'],
    {},
  );
  assert.is(options.allowInjection, true);
  assert.is(options.localOnly, true);
  assert.is(options.removeProxies, true);
  assert.equal(options.ipWhitelist, ['::1']);
  assert.equal(options.warnings, ['option --protofile is not supported and was ignored', 'option --formatter is not supported and was ignored']);
});

test('-V, -v, --version and version print the version and exit 0 without serving', async () => {
  for (const args of [['-V'], ['-v'], ['--version'], ['version'], ['start', '--port', '1', '-V']]) {
    const run = await runSvc(args);
    assert.is(run.status, 0, args.join(' '));
    assert.is(run.stdout, `${VERSION}\n`, args.join(' '));
  }
});

test('--help lists every subcommand and every long option the parser accepts', async () => {
  const run = await runSvc(['--help']);
  assert.is(run.status, 0);
  for (const command of ['start', 'stop', 'restart', 'save', 'replay', 'healthcheck', 'script', 'verify', 'help']) {
    assert.match(run.stdout, new RegExp(`^  ${command} `, 'm'), command);
  }
  for (const flag of KNOWN_FLAGS.filter((f) => f.startsWith('--') && f !== '--help' && f !== '--version')) {
    assert.ok(run.stdout.includes(flag), `--help does not mention ${flag}`);
  }
});

test('help <command> and <command> --help show that command; an unknown topic exits 2', async () => {
  const stop = await runSvc(['help', 'stop']);
  assert.is(stop.status, 0);
  assert.match(stop.stdout, /^Usage: svc stop/);
  assert.match(stop.stdout, /--pidfile F/);
  const save = await runSvc(['save', '--help']);
  assert.match(save.stdout, /^Usage: svc save/);
  assert.match(save.stdout, /--removeProxies/);
  for (const command of ['script', 'verify']) {
    const own = await runSvc([command, '--help']);
    assert.is(own.status, 0, command);
    assert.match(own.stdout, new RegExp(`^Usage: svc ${command}`), command);
  }
  const unknown = await runSvc(['help', 'nope']);
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /no help for 'nope'/);
});

test('-h alone (or before another option) prints help; -h with a value is the host', async () => {
  for (const args of [['-h'], ['-h', '--port', '1'], ['start', '-h']]) {
    const run = await runSvc(args);
    assert.is(run.status, 0, args.join(' '));
    assert.match(run.stdout, /^Usage: svc/, args.join(' '));
  }
  assert.is(parseCliOptions(['-h', '127.0.0.1'], {}).host, '127.0.0.1');
});

test.run();
