import type { FaultRandom } from '../shared/index.js';

/** FNV-1a over the seed's UTF-8 bytes: any string (a number or a word) becomes a 32-bit state. */
function seedState(seed: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(seed, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32's step: its state moves by this each draw, so draw i's state is seed + i·STEP. */
const STEP = 0x6d2b79f5;

/** mulberry32's output for a state. */
function mix(state: number): number {
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** mulberry32: tiny, fast and well distributed for a 32-bit state; deterministic for a given seed. */
export function seededRandom(seed: string): FaultRandom {
  let state = seedState(seed);
  return () => {
    state = (state + STEP) >>> 0;
    return mix(state);
  };
}

/**
 * The draw source for one imposter: seeded from `SVC_FAULT_SEED` when it is set (read when the
 * imposter is created, so every imposter replays the same sequence for the same seed), else from
 * Math.random so runs differ.
 */
export function faultRandom(): FaultRandom {
  const seed = process.env.SVC_FAULT_SEED;
  return seed === undefined || seed === '' ? Math.random : seededRandom(seed);
}

/**
 * One imposter's draws as every per-core thread takes them: the seed read on the main thread when
 * the imposter was created (engine threads have their own copy of the environment) and the draw
 * position in shared memory, so the seeded stream follows arrival order whichever thread draws.
 */
export interface SharedFaultDraws {
  seed: string | undefined;
  position: SharedArrayBuffer;
}

export function sharedFaultDraws(): SharedFaultDraws {
  const seed = process.env.SVC_FAULT_SEED;
  return { seed: seed === undefined || seed === '' ? undefined : seed, position: new SharedArrayBuffer(4) };
}

/** The draw source over `draws` (the same stream as `seededRandom`'s for the seed; Math.random without one). */
export function sharedFaultRandom(draws: SharedFaultDraws): FaultRandom {
  if (draws.seed === undefined) return Math.random;
  const start = seedState(draws.seed);
  const position = new Int32Array(draws.position);
  return () => mix((start + Math.imul(Atomics.add(position, 0, 1) + 1, STEP)) >>> 0);
}
