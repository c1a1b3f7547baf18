/**
 * Issue 23 attack classes for the soak: HTTP/2 sessions that half-close, idle, flood streams or keep
 * their window shut, and TLS handshakes that stall or renegotiate. Each is a round a loop repeats;
 * `measureAttacks` runs each class alone for a while and reports the server's RSS and fds before, at
 * peak and once settled after. Their sockets come and go in bursts, so the mixed soak's sampled
 * flatness would mostly see the phase a burst is in: each class is judged on its own run instead.
 * A class's run is a few rounds, so heap saw-tooth makes its "after" RSS noisy: the mixed soak (with
 * SOAK_MIXED_ATTACKS=1) is where a slow leak shows.
 */
import http2 from 'node:http2';
import net from 'node:net';
import tls from 'node:tls';
import { openRaw, request } from '../test/support/h2-frames.js';

export interface SessionTargets {
  /** h2c imposter answering small bodies. */
  plainPort: number;
  /** https imposter (ALPN h2). */
  securePort: number;
  /** h2c imposter answering 1 MB bodies. */
  bigPort: number;
  adminPort: number;
  metricsPort: number;
}

/** How long a round waits for the server to close what it opened before giving up on it. */
const ROUND_LIMIT_MS = 30_000;
const HALF_HELLO = Buffer.from('16030100c8010000c40303', 'hex');

function whenClosed(socket: net.Socket): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => socket.destroy(), ROUND_LIMIT_MS);
    socket.on('error', () => {});
    socket.resume();
    socket.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

function h2Session(port: number, secure: boolean, settings: http2.Settings = {}): http2.ClientHttp2Session {
  const session = http2.connect(`${secure ? 'https' : 'http'}://127.0.0.1:${port}`, { rejectUnauthorized: false, settings });
  session.on('error', () => {});
  return session;
}

function sessionClosed(session: http2.ClientHttp2Session): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => session.destroy(), ROUND_LIMIT_MS);
    session.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/** 30 sessions on every plane that half-close after the preface. */
async function halfClosed(t: SessionTargets): Promise<void> {
  const planes: Array<[number, boolean]> = [
    [t.plainPort, false],
    [t.securePort, true],
    [t.adminPort, false],
    [t.metricsPort, false],
  ];
  await Promise.all(
    planes.flatMap(([port, secure]) =>
      Array.from({ length: 30 }, async () => {
        const socket = await openRaw(port, secure);
        const closed = whenClosed(socket);
        setTimeout(() => socket.end(), 50);
        await closed;
      }),
    ),
  );
}

/** 30 h2c and 30 TLS sessions that get one answer and then idle until the server closes them. */
async function idle(t: SessionTargets): Promise<void> {
  await Promise.all(
    [false, true].flatMap((secure) =>
      Array.from({ length: 30 }, async () => {
        const session = h2Session(secure ? t.securePort : t.plainPort, secure);
        const closed = sessionClosed(session);
        const stream = session.request({ ':path': '/' });
        stream.on('error', () => {});
        stream.resume();
        stream.end();
        await closed;
      }),
    ),
  );
}

/** 4 sessions opening 10,000 streams each at once (POST heads whose bodies never come). */
async function streamFlood(t: SessionTargets): Promise<void> {
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      const socket = await openRaw(t.plainPort, false);
      const closed = whenClosed(socket);
      socket.write(Buffer.concat(Array.from({ length: 10_000 }, (_, k) => request(2 * k + 1, 'POST'))));
      await closed;
    }),
  );
}

/** 3 sessions with INITIAL_WINDOW_SIZE 0 asking for 150 1 MB answers each, never reading. */
async function windowShut(t: SessionTargets): Promise<void> {
  await Promise.all(
    Array.from({ length: 3 }, async () => {
      const session = h2Session(t.bigPort, false, { initialWindowSize: 0 });
      const closed = sessionClosed(session);
      for (let k = 0; k < 150; k++) {
        const stream = session.request({ ':path': '/' });
        stream.on('error', () => {});
        stream.end();
      }
      await closed;
    }),
  );
}

/** 100 TLS connections that stall in the handshake: silent, or half a ClientHello. */
async function stalledHandshakes(t: SessionTargets): Promise<void> {
  await Promise.all(
    Array.from({ length: 100 }, (_, k) => {
      const socket = net.connect(t.securePort, '127.0.0.1', () => {
        if (k % 2 === 1) socket.write(HALF_HELLO);
      });
      return whenClosed(socket);
    }),
  );
}

/** 10 TLS 1.2 connections asking for 4 renegotiations each, then closing. */
async function renegotiations(t: SessionTargets): Promise<void> {
  await Promise.all(
    Array.from(
      { length: 10 },
      () =>
        new Promise<void>((resolve) => {
          const socket = tls.connect(
            { port: t.securePort, host: '127.0.0.1', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] },
            () => {
              let asked = 0;
              const again = (): void => {
                if (asked++ === 4 || socket.destroyed) {
                  socket.destroy();
                  return;
                }
                socket.renegotiate({ rejectUnauthorized: false }, again);
              };
              again();
            },
          );
          socket.on('error', () => socket.destroy());
          socket.once('close', () => resolve());
          setTimeout(() => socket.destroy(), ROUND_LIMIT_MS);
        }),
    ),
  );
}

export const SESSION_ATTACKS: ReadonlyArray<{ name: string; round: (targets: SessionTargets) => Promise<void> }> = [
  { name: 'h2 half-closed sessions (4 planes x 30)', round: halfClosed },
  { name: 'h2 sessions idle after an answer (h2c+TLS x 30)', round: idle },
  { name: 'h2 stream flood (4 x 10,000 streams)', round: streamFlood },
  { name: 'h2 window-shut readers (3 x 150 x 1 MB)', round: windowShut },
  { name: 'TLS stalled handshakes (100)', round: stalledHandshakes },
  { name: 'TLS renegotiation (10 x 4)', round: renegotiations },
];

/** Runs every class's rounds back to back while `running()` (the mixed soak's load with SOAK_MIXED_ATTACKS=1). */
export async function sessionAttackLoops(targets: SessionTargets, running: () => boolean): Promise<void> {
  await Promise.all(
    SESSION_ATTACKS.map(async (attack) => {
      while (running()) await attack.round(targets);
    }),
  );
}

export interface ProcessProbe {
  rssMb(): number;
  fds(): number;
}

export interface AttackFigures {
  name: string;
  rounds: number;
  before: { rssMb: number; fds: number };
  /** Peaks over the first and the second half of the class's run. */
  firstHalf: { rssMb: number; fds: number };
  peak: { rssMb: number; fds: number };
  after: { rssMb: number; fds: number };
}

/**
 * How far RSS may rise over "before" while a class runs, and stay over it once the class is over. Not
 * a tight bound: under Node 24 on this 24 GiB box V8 grows its young generation to 128 MiB semi-spaces
 * under a session flood (docs/limits.md), +140 to +160 MB of RSS that is heap slack, not sessions held;
 * `svc start` gives it back once quiet (app/process/heap-reclaim.ts), and what stays is the C
 * allocator's. The failures issue 23 reported were +231 MB held after the clients had gone and
 * +904 MB at peak.
 */
export const ATTACK_RSS_PEAK_MB = 256;
export const ATTACK_RSS_AFTER_MB = 128;
/** fds "after" may exceed "before" by this many (sockets the server is still closing). */
export const ATTACK_FD_SLACK = 5;

/**
 * Bounded: every fd the attack took came back; RSS stayed within ATTACK_RSS_PEAK_MB of "before" and came
 * back within ATTACK_RSS_AFTER_MB of it. Not "levels off between halves": V8 grows the young generation
 * in steps, and a step in the second half of a 30 s class read +19% and +21% in one run.
 */
export function attackIsBounded(f: AttackFigures): boolean {
  return (
    f.after.fds <= f.before.fds + ATTACK_FD_SLACK
    && f.peak.rssMb <= f.before.rssMb + ATTACK_RSS_PEAK_MB
    && f.after.rssMb <= f.before.rssMb + ATTACK_RSS_AFTER_MB
  );
}

/**
 * Each class alone: its rounds for `seconds`, sampled every 100 ms (peaks kept per half); "after" is read
 * once fds are back within ATTACK_FD_SLACK of "before" (or `settleSeconds` later) and 4 s more.
 */
export async function measureAttacks(targets: SessionTargets, probe: ProcessProbe, seconds: number, settleSeconds: number): Promise<AttackFigures[]> {
  const figures: AttackFigures[] = [];
  for (const attack of SESSION_ATTACKS) {
    const before = { rssMb: probe.rssMb(), fds: probe.fds() };
    const firstHalf = { ...before };
    const secondHalf = { ...before };
    const started = Date.now();
    const sampler = setInterval(() => {
      const peak = Date.now() - started < (seconds * 1000) / 2 ? firstHalf : secondHalf;
      peak.rssMb = Math.max(peak.rssMb, probe.rssMb());
      peak.fds = Math.max(peak.fds, probe.fds());
    }, 100);
    let rounds = 0;
    while (Date.now() - started < seconds * 1000) {
      await attack.round(targets);
      rounds++;
    }
    clearInterval(sampler);
    const settled = Date.now() + settleSeconds * 1000;
    while (probe.fds() > before.fds + ATTACK_FD_SLACK && Date.now() < settled) await new Promise((resolve) => setTimeout(resolve, 100));
    // RSS is read a fixed while after the last round, so the classes compare: long enough for `svc start`
    // to see a quiet second and give a burst's heap back (app/process/heap-reclaim.ts).
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const peak = { rssMb: Math.max(firstHalf.rssMb, secondHalf.rssMb), fds: Math.max(firstHalf.fds, secondHalf.fds) };
    figures.push({ name: attack.name, rounds, before, firstHalf, peak, after: { rssMb: probe.rssMb(), fds: probe.fds() } });
  }
  return figures;
}
