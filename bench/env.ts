/** An integer setting from the environment (BENCH_DURATION, BENCH_RUNS, ...), `fallback` when unset. */
export function envInteger(name: string, fallback: number, min = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name} must be an integer ≥ ${min}, got ${raw}`);
  return value;
}
