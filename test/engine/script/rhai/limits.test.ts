/**
 * Rhai engine API: limits (deadline, operations, call depth, data sizes), host interface, value
 * conversion, errors with positions, compile-once / run-many and re-entrancy.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { RhaiEngine, RhaiError, RhaiTimeoutError, compileRhai } from '../../../../engine/script/rhai/index.js';

function failure(f: () => unknown): RhaiError {
  try {
    f();
  } catch (e) {
    if (e instanceof RhaiError) return e;
    throw e;
  }
  throw new Error('expected a RhaiError');
}

/**
 * How late `run` returns after its deadline: the best of three runs, so a moment the OS takes the
 * core away (CI machines are shared) does not count against the interpreter's own precision.
 */
function lateness(source: string, deadlineMs: number): number {
  const program = compileRhai(source);
  let best = Infinity;
  for (let attempt = 0; attempt < 3; attempt++) {
    const start = performance.now();
    const err = failure(() => program.run({ deadlineMs }));
    assert.instance(err, RhaiTimeoutError);
    assert.is(err.kind, 'timeout');
    best = Math.min(best, performance.now() - start - deadlineMs);
  }
  return best;
}

// The interrupt is checked every few operations (well under 5 ms late on an idle core); the bounds hold with a 5x margin on a busy box.
test('the deadline interrupts `loop {}` within 25 ms', () => {
  for (const deadlineMs of [20, 50]) {
    const late = lateness('loop {}', deadlineMs);
    assert.ok(late >= 0 && late < 25, `interrupted ${late.toFixed(2)} ms after the deadline`);
  }
});

test('the deadline also interrupts busy recursion-free work and cannot be caught by try', () => {
  const late = lateness('try { let s = 0; while true { s = (s + 1) % 7; } } catch { 1 }', 30);
  assert.ok(late >= 0 && late < 50, `interrupted ${late.toFixed(2)} ms after the deadline`);
});

test('the deadline applies inside script function calls and callbacks', () => {
  const err = failure(() => compileRhai('fn spin() { loop {} } [1, 2].map(|x| spin())').run({ deadlineMs: 20 }));
  assert.instance(err, RhaiTimeoutError);
  assert.match(err.message, /Script terminated/);
});

test('the operation budget stops long scripts with a timeout error', () => {
  const engine = new RhaiEngine({ limits: { maxOperations: 1000 } });
  const err = failure(() => engine.compile('let x = 0; for i in 0..100000 { x += i; } x').run());
  assert.instance(err, RhaiTimeoutError);
  assert.match(err.message, /Too many operations/);
  assert.is(engine.compile('let x = 0; for i in 0..500 { x += i; } x').run(), 124750);
});

test('maximum call depth', () => {
  const engine = new RhaiEngine({ limits: { maxCallDepth: 10 } });
  const program = engine.compile('fn down(n) { if n == 0 { 0 } else { 1 + down(n - 1) } }');
  assert.is(program.call('down', [9]), 9);
  const err = failure(() => program.call('down', [50]));
  assert.is(err.kind, 'limit');
  assert.match(err.message, /Stack overflow/);
  const caught = failure(() => engine.compile('fn f(n) { f(n + 1) } try { f(0) } catch { "caught" }').run());
  assert.is(caught.kind, 'limit');
});

test('maximum string, array and map sizes', () => {
  const engine = new RhaiEngine({ limits: { maxStringSize: 100, maxArraySize: 50, maxMapSize: 20 } });
  const s = failure(() => engine.compile('let s = ""; loop { s += "abc"; }').run());
  assert.match(s.message, /Length of string exceeds maximum limit/);
  const a = failure(() => engine.compile('let a = []; loop { a.push(1); }').run());
  assert.match(a.message, /Size of array exceeds maximum limit/);
  const m = failure(() => engine.compile('let m = #{}; for i in 0..100 { m[`k${i}`] = i; }').run());
  assert.match(m.message, /Size of object map exceeds maximum limit/);
  assert.is(engine.compile('let a = []; for i in 0..50 { a.push(i); } a.len()').run(), 50);
  // Single natives that would allocate hugely fail before allocating, with or without configured limits.
  for (const src of ['range(0, 100000000000)', 'let a = []; a.pad(10000000000, 0)', 'let s = ""; s.pad(10000000000, "x")']) {
    // CPU time, not wall time: a loaded machine stretches the latter; allocating first would cost seconds of CPU.
    const start = process.cpuUsage();
    assert.is(failure(() => compileRhai(src).run()).kind, 'limit', src);
    const used = process.cpuUsage(start);
    assert.ok((used.user + used.system) / 1000 < 100, src);
  }
});

test('the allocation budget stops string, array, map and copy bombs with an uncatchable limit error', () => {
  const bombs = [
    'let s = "x"; loop { s += s; }',
    'let s = "abc"; loop { s = s + s; }',
    'let s = ""; loop { s.push("0123456789"); }',
    'let s = "0123456789"; loop { s = `${s}${s}`; }',
    'let a = []; loop { a.push(1); }',
    'let a = [1]; loop { a += a; }',
    'let a = [1, 2, 3]; loop { a.append(a); }',
    'let m = #{}; let i = 0; loop { m[`k${i}`] = i; i += 1; }',
    'let a = []; for i in 0..1000 { a.push(i); } let keep = []; loop { keep.push(a); }',
    'let s = "x"; s.pad(1000000, "y"); let parts = []; loop { parts.push(s.split("")); }',
    'try { let a = []; loop { a.push("item"); } } catch { "caught" }',
  ];
  for (const source of bombs) {
    const err = failure(() => compileRhai(source).run({ deadlineMs: 20_000 }));
    assert.is(err.kind, 'limit', source);
    assert.match(err.message, /Script memory budget exceeded: allocated more than 67108864 bytes/, source);
  }
});

test('the allocation budget is configurable and counts what a run creates, not what it reads', () => {
  const engine = new RhaiEngine({ limits: { maxMemoryBytes: 4 * 1024 * 1024 } });
  // 80,000 appends of 10 characters (each a new rope node): about 2 MB, within a 4 MiB budget.
  assert.is(engine.compile('let s = ""; for i in 0..80000 { s += "0123456789"; } s.len()').run(), 800_000);
  // Reading and comparing a big value again and again allocates nothing new.
  const reads = 'let s = ""; s.pad(500000, "x"); let n = 0; for i in 0..10000 { if s.len() > 0 && s.contains("x") { n += 1; } } n';
  assert.is(engine.compile(reads).run(), 10_000);
  // 200,000 appends are past it; each run has its own count.
  const program = engine.compile('let s = ""; for i in 0..200000 { s += "0123456789"; } s.len()');
  for (let k = 0; k < 2; k++) assert.match(failure(() => program.run()).message, /memory budget/);
  // A single native that would build past the budget fails before building it.
  assert.match(failure(() => engine.compile('let a = []; a.pad(10000000, 0)').run()).message, /memory budget/);
  assert.is(new RhaiEngine({ limits: { maxMemoryBytes: 0 } }).compile('let s = ""; for i in 0..200000 { s += "0123456789"; } s.len()').run(), 2_000_000);
});

test('errors carry kind, line and column in Rhai style', () => {
  const p = failure(() => compileRhai('let x = 1;\nlet y = (x + ;'));
  assert.is(p.kind, 'parse');
  assert.is(p.line, 2);
  assert.is(p.column, 14);
  assert.is(p.message, "Unexpected ';' (line 2, position 14)");
  const r = failure(() => compileRhai('let a = [1];\n  a[3]').run());
  assert.is(r.kind, 'runtime');
  assert.equal([r.line, r.column], [2, 4]);
  assert.is(r.description, 'Array index 3 out of bounds: only 1 element in array');
  const t = failure(() => compileRhai('throw #{code: 7}').run());
  assert.is(t.kind, 'throw');
  assert.equal(t.thrown, { code: 7 });
});

test('host functions and methods, with JS values in and out', () => {
  class Reply {
    headers: Record<string, string> = {};
    constructor(readonly status: number) {}
  }
  const engine = new RhaiEngine();
  engine.registerFunction('reply', (status: number) => new Reply(status));
  engine.registerMethod('Reply', 'header', (self: Reply, k: string, v: string) => {
    self.headers[k] = v;
    return self;
  });
  engine.registerFunction('double_all', (xs: number[]) => xs.map((x) => x * 2));
  engine.registerFunction('fail', (msg: string) => {
    throw new Error(msg);
  });
  const out = engine.compile('reply(201).header("a", "1").header("b", "2")').run() as Reply;
  assert.instance(out, Reply);
  assert.is(out.status, 201);
  assert.equal(out.headers, { a: '1', b: '2' });
  assert.equal(engine.compile('double_all([1, 2, 3])').run(), [2, 4, 6]);
  assert.is(engine.compile('try { fail("nope") } catch (e) { e.message }').run(), 'nope');
  assert.is(engine.compile('type_of(reply(200))').run(), 'Reply');
});

test('value conversion rule: ints, floats, bigints, maps, unit', () => {
  const p = compileRhai('[a, type_of(a), b, type_of(b), c, type_of(c), m.k, type_of(n), big + 1]');
  const v = p.run({ scope: { a: 3, b: 2.5, c: null, m: { k: 'v' }, n: 4.0, big: 9007199254740993n } });
  assert.equal(v, [3, 'i64', 2.5, 'f64', null, '()', 'v', 'i64', 9007199254740994n]);
  assert.equal(compileRhai('#{z: 1, a: [1.5, ()], s: "x", c: \'c\'}').run(), { a: [1.5, null], c: 'c', s: 'x', z: 1 });
  assert.is(compileRhai('9223372036854775807').run(), 9223372036854775807n);
  assert.is(compileRhai('1.0').run(), 1);
});

test('entrypoints: call respond(ctx) with JS functions in ctx, or run top level with ctx in scope', () => {
  const store = new Map<string, unknown>();
  const ctx = {
    request: { method: 'POST', json: { n: 2 }, header: (name: string) => (name === 'x-id' ? 'abc' : null) },
    state: { get: (k: string) => store.get(k) ?? null, set: (k: string, v: unknown) => void store.set(k, v) },
  };
  const src = 'fn respond(ctx) { ctx.state.set("seen", ctx.request.header("x-id")); #{ n: ctx.request.json.n * 10 } }';
  const program = compileRhai(src);
  assert.ok(program.hasFunction('respond', 1));
  assert.equal(program.call('respond', [ctx]), { n: 20 });
  assert.is(store.get('seen'), 'abc');
  const bare = compileRhai('if ctx.request.method == "POST" { "post" } else { "other" }');
  assert.not.ok(bare.hasFunction('respond'));
  assert.is(bare.run({ scope: { ctx } }), 'post');
  assert.is(failure(() => bare.run()).description, 'Variable not found: ctx');
});

test('compile once, run many times and re-entrantly', () => {
  const engine = new RhaiEngine();
  const inner = engine.compile('fn sq(x) { x * x }');
  engine.registerFunction('host_sq', (x: number) => inner.call('sq', [x]));
  const outer = engine.compile('let t = 0; for i in 0..n { t += host_sq(i); } t');
  assert.is(outer.run({ scope: { n: 4 } }), 14);
  assert.is(outer.run({ scope: { n: 10 } }), 285);
  // The same program re-entered from a host function while it is running.
  let depth = 0;
  const self = engine.compile('fn f(n) { if n == 0 { 0 } else { n + again(n - 1) } }');
  engine.registerFunction('again', (n: number) => {
    depth++;
    return self.call('f', [n]);
  });
  assert.is(self.call('f', [5]), 15);
  assert.is(depth, 5);
});

test('import is refused with a clear parse error', () => {
  const err = failure(() => compileRhai('import "utils" as u;'));
  assert.is(err.kind, 'parse');
  assert.match(err.message, /Modules are not supported/);
});

test.run();
