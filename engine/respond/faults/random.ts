import type { FaultRandom } from '../fault-hooks.js';

/** FNV-1a over the seed's UTF-8 bytes: any string (a number or a word) becomes a 32-bit state. */
function seedState(seed: string): number {
  let hash = 0x811c9dc5;
  for (const byte of Buffer.from(seed, 'utf8')) {
    hash ^= byte;
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: tiny, fast and well distributed for a 32-bit state; deterministic for a given seed. */
export function seededRandom(seed: string): FaultRandom {
  let state = seedState(seed);
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
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
