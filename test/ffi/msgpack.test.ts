import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { decode, encode } from '@msgpack/msgpack';
import { repoRoot } from '../support/servers.js';
import { tempDirForSuite } from '../support/temp-dir.js';
import { frame, FrameReader } from '../../ffi/host/frames.js';

const temp = tempDirForSuite(test, 'svc-msgpack-');
let built: string | undefined;
/** Compiled on first use (a before hook's error would be dropped by uvu). */
function checker(): string {
  if (built) return built;
  try {
    execFileSync('gcc', ['--version'], { stdio: 'ignore' });
  } catch {
    throw new Error('the msgpack check needs gcc: install gcc (e.g. apt-get install gcc) and run again');
  }
  const program = join(temp.path, 'msgpack-check');
  execFileSync(
    'gcc',
    [
      '-std=c11',
      '-Wall',
      '-Wextra',
      '-Werror',
      '-o',
      program,
      join(repoRoot, 'test', 'ffi', 'msgpack-check.c'),
      join(repoRoot, 'ffi', 'src', 'msgpack.c'),
      '-I',
      join(repoRoot, 'ffi', 'src'),
    ],
    { stdio: 'inherit' },
  );
  built = program;
  return program;
}

function encodedByC(): Buffer {
  return Buffer.from(execFileSync(checker(), ['encode'], { encoding: 'utf8', maxBuffer: 1 << 20 }).trim(), 'hex');
}

/** The C decoder's output for `bytes` (it exits 1 on malformed input, which is an answer here). */
function decodedByC(bytes: Uint8Array): string {
  const result = spawnSync(checker(), ['decode'], { input: Buffer.from(bytes).toString('hex'), encoding: 'utf8', maxBuffer: 1 << 20 });
  if (result.error) throw result.error;
  return result.stdout;
}

test('what the C encoder writes, @msgpack/msgpack reads back (every width it uses)', () => {
  const decoded = decode(encodedByC()) as unknown[];
  const [bin, ...rest] = decoded.splice(12, 1);
  assert.equal(Array.from(bin as Uint8Array), [1, 2, 3]);
  assert.equal(rest, []);
  const strings = decoded.splice(8, 4) as string[];
  assert.equal(
    strings.map((s) => [s.length, new Set(s).size]),
    [
      [5, 4],
      [40, 1],
      [300, 1],
      [70000, 1],
    ],
  );
  assert.is(strings[0], 'hello');
  assert.equal(decoded, [null, true, false, 5, -3, 300, -70000, 1099511627776, { a: Array.from({ length: 20 }, (_, i) => i) }]);
});

test('what @msgpack/msgpack writes, the C decoder reads (and skips) whole', () => {
  const value = {
    ok: [true, false, null],
    ints: [0, 127, 128, 255, 256, 65535, 65536, 4294967295, 4294967296, -1, -32, -33, -128, -129, -32768, -32769, -2147483648, -2147483649],
    strs: ['', 'a'.repeat(31), 'b'.repeat(32), 'c'.repeat(255), 'd'.repeat(256), 'e'.repeat(65536)],
    list: Array.from({ length: 16 }, (_, i) => i),
    bin: new Uint8Array([0, 255]),
    float: 1.5,
  };
  const lines = decodedByC(encode(value)).trim().split('\n');
  assert.equal(JSON.parse(lines[0]), { ...value, bin: { bin: [0, 255] }, float: 'other' });
  assert.is(lines[1], 'skip\tok');
});

test('truncated input is refused, never read past its end', () => {
  const whole = Buffer.from(encode(['hello', 1234567]));
  for (let cut = 1; cut < whole.length; cut += 1) {
    assert.match(decodedByC(whole.subarray(0, cut)), /MALFORMED/, `cut at ${cut}`);
  }
});

test('FrameReader returns each frame once complete, however the stream is split', () => {
  const payloads = [Buffer.from('one'), Buffer.alloc(0), Buffer.from('three'.repeat(1000))];
  const stream = Buffer.concat(payloads.map((p) => frame(p)));
  for (const size of [1, 3, 7, 4096, stream.length]) {
    const reader = new FrameReader();
    const got: string[] = [];
    for (let at = 0; at < stream.length; at += size) {
      for (const payload of reader.push(stream.subarray(at, at + size))) got.push(payload.toString());
    }
    assert.equal(
      got,
      payloads.map((p) => p.toString()),
      `chunks of ${size}`,
    );
  }
});

test.run();
