/**
 * Soak test (issue 10, not in CI): `node --import tsx bench/soak.ts` after a build. Runs the built svc
 * CLI for SOAK_SECONDS (default 600) under mixed load — static answers, predicate matching, a recording
 * imposter kept at the journal's 10,000-entry cap, an SSE subscriber on /events, admin churn,
 * connect+close probes and slowloris clients — sampling the server's RSS and open fds every
 * SOAK_SAMPLE_SECONDS (default 10). Issue 23's HTTP/2 and TLS attack classes (bench/soak-sessions.ts) run
 * first, one at a time (RSS and fds before, at peak and after each; bounded when the fds come back and
 * RSS stays within 256 MB of before and comes back within 128 MB of it: `attackIsBounded`), and with SOAK_MIXED_ATTACKS=1 also in the mixed load. The recording imposter is filled to the cap before sampling starts. After the warm-up (the first fifth) both must stay flat: the last
 * third's peak within 15% (RSS) / 20 fds of the warm-up end's peak. Then the script-bomb phase
 * (bench/soak-script-bombs.ts) reports RSS and fds before, at peak and after each bomb. Exit status 1
 * when not flat, an attack class was not bounded or a bomb did not hold.
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { Agent, request } from 'node:http';
import net from 'node:net';
import { join } from 'node:path';
import { freePort, repoRoot, rssMbOf } from '../test/support/servers.js';
import { envInteger } from './env.js';
import { attackIsBounded, measureAttacks, sessionAttackLoops, type SessionTargets } from './soak-sessions.js';
import { soakScriptBombs } from './soak-script-bombs.js';

const SECONDS = envInteger('SOAK_SECONDS', 600);
const SAMPLE_SECONDS = envInteger('SOAK_SAMPLE_SECONDS', 10);
const SLOWLORIS = envInteger('SOAK_SLOWLORIS', 50);
const LOAD_LOOPS = envInteger('SOAK_LOOPS', 8);
const RSS_GROWTH = 1.15;
const FD_SLACK = 20;
/** Issue 23's HTTP/2 and TLS attack classes: each alone for this long before the mixed soak (0: skip). */
const ATTACK_SECONDS = envInteger('SOAK_ATTACK_SECONDS', 30, 0);
/** 1: the attack classes also run throughout the mixed soak (their bursts then show in its samples). */
const MIXED_ATTACKS = envInteger('SOAK_MIXED_ATTACKS', 0, 0) === 1;
/** Imposter and front-door timeouts (ms): keep-alive, head, request; short, so attacks are cut within a sample. */
const TIMEOUTS = [envInteger('SOAK_KEEP_ALIVE_MS', 2000), envInteger('SOAK_HEADERS_MS', 3000), envInteger('SOAK_REQUEST_MS', 4000)];

interface Sample {
  second: number;
  rssMb: number;
  /** V8 heap in use (GET /config), to tell a leak (heap grows) from allocator and heap-size slack. */
  heapMb: number;
  fds: number;
  requests: number;
  errors: number;
}

/** SOAK_SVC_ENTRY: another build of the CLI (a copy of dist/, so rebuilding during the run changes nothing). */
const entry = process.env.SOAK_SVC_ENTRY ?? join(repoRoot, 'dist/tools/svc.js');
if (!existsSync(entry)) throw new Error(`${entry} is missing: build with \`npx tsc -p tsconfig.json\``);

const adminPort = await freePort();
const metricsPort = await freePort();
const [staticPort, predicatePort, recordPort, churnPort, bombPort] = [await freePort(), await freePort(), await freePort(), await freePort(), await freePort()];
const child = spawn(
  process.execPath,
  [
    entry,
    'start',
    '--port',
    String(adminPort),
    '--metrics-port',
    String(metricsPort),
    '--nologfile',
    '--loglevel',
    'error',
    '--allowInjection',
    '--keep-alive-timeout',
    String(TIMEOUTS[0]),
    '--headers-timeout',
    String(TIMEOUTS[1]),
    '--request-timeout',
    String(TIMEOUTS[2]),
  ],
  {
    cwd: repoRoot,
    stdio: ['ignore', 'inherit', 'inherit'],
  },
);
const pid = child.pid as number;
let stopping = false;
child.on('exit', (code, signal) => {
  if (!stopping) {
    console.error(`svc exited during the soak (code ${code}, signal ${signal})`);
    process.exit(2);
  }
});

const agent = new Agent({ keepAlive: true, maxSockets: 64 });
let requests = 0;
let errors = 0;
/** Client-side failures by error code, for the final report. */
const errorKinds = new Map<string, number>();
function failed(error: NodeJS.ErrnoException): void {
  errors++;
  const kind = error.code ?? error.message;
  errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
}

function call(method: string, port: number, path: string, body?: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, agent, headers: body === undefined ? headers : { 'Content-Type': 'application/json', ...headers } },
      (res) => {
        res.resume();
        res.on('end', () => {
          requests++;
          resolve(res.statusCode ?? 0);
        });
        res.on('error', (error) => {
          failed(error);
          resolve(0);
        });
      },
    );
    req.setTimeout(30_000, () => req.destroy());
    req.on('error', (error) => {
      failed(error);
      resolve(0);
    });
    req.end(body);
  });
}

/** A call whose answer body is wanted (the script-bomb phase reads the error envelope). */
function callText(method: string, port: number, path: string, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path, method, agent: false, headers: body === undefined ? {} : { 'Content-Type': 'application/json' } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        res.on('error', () => resolve({ status: 0, body: '' }));
      },
    );
    req.setTimeout(120_000, () => req.destroy());
    req.on('error', () => resolve({ status: 0, body: '' }));
    req.end(body);
  });
}

async function waitForAdmin(): Promise<void> {
  for (let tries = 0; tries < 200; tries++) {
    if ((await call('GET', adminPort, '/health')) === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('svc did not answer /health');
}

const readRssMb = (): number => rssMbOf(pid);

function countFds(): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

await waitForAdmin();
const keepAlive = { Connection: 'keep-alive' };
const imposters = [
  { protocol: 'http', port: staticPort, stubs: [{ responses: [{ is: { body: 'static', headers: keepAlive } }] }] },
  {
    protocol: 'http',
    port: predicatePort,
    stubs: [
      ...Array.from({ length: 50 }, (_, k) => ({
        predicates: [{ equals: { path: `/item/${k}`, method: 'GET' } }],
        responses: [{ is: { body: `item ${k}`, headers: keepAlive } }],
      })),
      { predicates: [{ matches: { path: '^/search/\\w+$' } }, { contains: { body: 'needle' } }], responses: [{ is: { statusCode: 201, headers: keepAlive } }] },
      { predicates: [{ deepEquals: { query: { a: '1', b: '2' } } }], responses: [{ is: { body: 'query', headers: keepAlive } }] },
    ],
  },
  { protocol: 'http', port: recordPort, recordRequests: true, stubs: [{ responses: [{ is: { body: 'recorded', headers: keepAlive } }] }] },
];
for (const imposter of imposters) {
  const status = await call('POST', adminPort, '/imposters', JSON.stringify(imposter));
  if (status !== 201) throw new Error(`creating imposter ${imposter.port}: ${status}`);
}

const sessionTargets: SessionTargets = { plainPort: staticPort, securePort: await freePort(), bigPort: await freePort(), adminPort, metricsPort };
for (const imposter of [
  { protocol: 'https', port: sessionTargets.securePort, stubs: [{ responses: [{ is: { body: 'secure' } }] }] },
  { protocol: 'http', port: sessionTargets.bigPort, stubs: [{ responses: [{ is: { body: 'x'.repeat(1024 * 1024) } }] }] },
]) {
  const status = await call('POST', adminPort, '/imposters', JSON.stringify(imposter));
  if (status !== 201) throw new Error(`creating imposter ${imposter.port}: ${status}`);
}
let attacksBounded = true;
if (ATTACK_SECONDS > 0) {
  console.log(`attack classes, each alone for ${ATTACK_SECONDS}s (timeouts keep-alive/head/request ${TIMEOUTS.join('/')} ms):`);
  for (const f of await measureAttacks(sessionTargets, { rssMb: readRssMb, fds: countFds }, ATTACK_SECONDS, 30)) {
    const bounded = attackIsBounded(f);
    attacksBounded &&= bounded;
    console.log(
      `  ${f.name.padEnd(50)} rounds=${String(f.rounds).padStart(4)}  RSS ${f.before.rssMb.toFixed(1)} / peak ${f.firstHalf.rssMb.toFixed(1)} (1st half) ${f.peak.rssMb.toFixed(1)} / after ${f.after.rssMb.toFixed(1)} MB  fds ${f.before.fds} / peak ${f.peak.fds} / after ${f.after.fds} -> ${bounded ? 'bounded' : 'UNBOUNDED'}`,
    );
  }
}

/** The recording traffic's one request shape, so the journal's size is steady once at its cap. */
const recordBody = (n: number): string => JSON.stringify({ n: n % 1000, pad: 'x'.repeat(200) });
// Fill the journal to its cap first, so later growth is not mistaken for the journal filling up.
for (let batch = 0; batch < 10_000 / 50; batch++) {
  await Promise.all(Array.from({ length: 50 }, (_, k) => call('POST', recordPort, `/record/${(batch * 50 + k) % 1000}`, recordBody(k))));
}
requests = 0;
errors = 0;
errorKinds.clear();

const deadline = Date.now() + SECONDS * 1000;
const running = (): boolean => Date.now() < deadline;

async function trafficLoop(k: number): Promise<void> {
  let n = k;
  while (running()) {
    n++;
    switch (n % 5) {
      case 0:
        await call('GET', staticPort, '/');
        break;
      case 1:
        await call('GET', predicatePort, `/item/${n % 60}`);
        break;
      case 2:
        await call('POST', predicatePort, `/search/q${n % 7}`, `{"text":"a needle ${n}"}`);
        break;
      case 3:
        await call('GET', predicatePort, '/x?a=1&b=2');
        break;
      default:
        await call('POST', recordPort, `/record/${n % 1000}`, recordBody(n));
        break;
    }
  }
}

async function adminChurn(): Promise<void> {
  while (running()) {
    await call('POST', adminPort, '/imposters', JSON.stringify({ protocol: 'http', port: churnPort, stubs: [{ responses: [{ is: { body: 'churn' } }] }] }));
    await call('GET', churnPort, '/');
    await call('GET', adminPort, '/imposters');
    await call('GET', adminPort, `/imposters/${recordPort}`);
    await call('DELETE', adminPort, `/imposters/${churnPort}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Connect and close at once, as TCP health probes do, on an imposter and the admin port. */
async function probes(): Promise<void> {
  let n = 0;
  while (running()) {
    const port = n++ % 2 === 0 ? staticPort : adminPort;
    await new Promise<void>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => socket.end());
      socket.on('error', () => resolve());
      socket.on('close', () => resolve());
      socket.resume();
    });
  }
}

/** Clients that trickle a request head a byte at a time; each is replaced once the server closes it. */
function slowloris(): void {
  if (!running()) return;
  const socket = net.connect(staticPort, '127.0.0.1');
  let timer: NodeJS.Timeout | undefined;
  socket.on('connect', () => {
    socket.write('GET / HTTP/1.1\r\nHost: soak\r\n');
    timer = setInterval(() => socket.write('X'), 2000);
  });
  socket.on('error', () => {});
  socket.resume();
  socket.on('close', () => {
    clearInterval(timer);
    setTimeout(slowloris, 100);
  });
  sockets.add(socket);
  socket.on('close', () => sockets.delete(socket));
}
const sockets = new Set<net.Socket>();

/** An SSE subscriber reading /events for the whole run. */
function subscribe(): void {
  const req = request({ host: '127.0.0.1', port: adminPort, path: '/events', headers: { Accept: 'text/event-stream' } }, (res) => {
    res.on('data', () => {});
    res.on('end', () => {
      if (running()) setTimeout(subscribe, 100);
    });
    res.on('error', () => {});
  });
  req.on('error', () => {
    if (running()) setTimeout(subscribe, 100);
  });
  req.end();
  subscription = req;
}
let subscription: ReturnType<typeof request> | undefined;

function readHeapMb(): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port: adminPort, path: '/config', agent: false }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on('end', () => {
        try {
          resolve(JSON.parse(text).process.heapUsed / 1024 / 1024);
        } catch {
          resolve(NaN);
        }
      });
    });
    req.on('error', () => resolve(NaN));
    req.end();
  });
}

const samples: Sample[] = [];
const started = Date.now();
async function sample(): Promise<void> {
  const second = Math.round((Date.now() - started) / 1000);
  const rssMb = readRssMb();
  const fds = countFds();
  const entry: Sample = { second, rssMb, heapMb: await readHeapMb(), fds, requests, errors };
  samples.push(entry);
  console.log(
    `t=${String(entry.second).padStart(4)}s rss=${entry.rssMb.toFixed(1)} MB heapUsed=${entry.heapMb.toFixed(1)} MB fds=${entry.fds} requests=${entry.requests} errors=${entry.errors}`,
  );
}

await sample();
const sampler = setInterval(() => void sample(), SAMPLE_SECONDS * 1000);
subscribe();
for (let k = 0; k < SLOWLORIS; k++) slowloris();
await Promise.all([
  ...Array.from({ length: LOAD_LOOPS }, (_, k) => trafficLoop(k)),
  adminChurn(),
  probes(),
  ...(MIXED_ATTACKS ? [sessionAttackLoops(sessionTargets, running)] : []),
]);
clearInterval(sampler);
await sample();

const recorded = await new Promise<number>((resolve) => {
  request({ host: '127.0.0.1', port: adminPort, path: `/imposters/${recordPort}`, agent }, (res) => {
    let text = '';
    res.on('data', (chunk: Buffer) => {
      text += chunk.toString();
    });
    res.on('end', () => resolve((JSON.parse(text).requests ?? []).length));
  }).end();
});

const bombsHeld = await soakScriptBombs({ call: callText, rssMb: readRssMb, fds: countFds }, adminPort, bombPort);

subscription?.destroy();
for (const socket of sockets) socket.destroy();
agent.destroy();
stopping = true;
child.kill('SIGTERM');

const warmEnd = Math.max(1, Math.floor(samples.length / 5));
const afterWarm = samples.slice(warmEnd);
const lastThird = samples.slice(samples.length - Math.max(1, Math.floor(samples.length / 3)));
const peak = (list: Sample[], key: 'rssMb' | 'fds'): number => Math.max(...list.map((s) => s[key]));
const warmRss = peak(samples.slice(0, warmEnd + 1), 'rssMb');
const warmFds = peak(samples.slice(0, warmEnd + 1), 'fds');
const rssFlat = peak(lastThird, 'rssMb') <= warmRss * RSS_GROWTH;
const fdsFlat = peak(lastThird, 'fds') <= warmFds + FD_SLACK;
console.log(
  `\nsoak ${SECONDS}s: ${requests} requests, ${errors} client errors ${JSON.stringify(Object.fromEntries(errorKinds))}, recorded entries at the end: ${recorded}`,
);
console.log(
  `RSS after warm-up: min ${Math.min(...afterWarm.map((s) => s.rssMb)).toFixed(1)} / max ${peak(afterWarm, 'rssMb').toFixed(1)} MB; warm-up peak ${warmRss.toFixed(1)} MB; last-third peak ${peak(lastThird, 'rssMb').toFixed(1)} MB -> ${rssFlat ? 'flat' : 'GROWING'}`,
);
console.log(
  `heapUsed after warm-up: min ${Math.min(...afterWarm.map((s) => s.heapMb)).toFixed(1)} / max ${Math.max(...afterWarm.map((s) => s.heapMb)).toFixed(1)} MB (first post-warm-up third min ${Math.min(...afterWarm.slice(0, Math.max(1, Math.floor(afterWarm.length / 3))).map((s) => s.heapMb)).toFixed(1)}, last third min ${Math.min(...lastThird.map((s) => s.heapMb)).toFixed(1)})`,
);
console.log(
  `fds after warm-up: min ${Math.min(...afterWarm.map((s) => s.fds))} / max ${peak(afterWarm, 'fds')}; warm-up peak ${warmFds}; last-third peak ${peak(lastThird, 'fds')} -> ${fdsFlat ? 'flat' : 'GROWING'}`,
);
process.exit(rssFlat && fdsFlat && attacksBounded && bombsHeld ? 0 : 1);
