import type { LogLevel } from './logger.js';

/** The effective level of a `RUST_LOG`-style filter, or why it cannot be read. */
export type LogFilter = { level: LogLevel; quiet: boolean } | { error: string };

const ALIASES: Record<string, { level: LogLevel; quiet: boolean }> = {
  trace: { level: 'debug', quiet: false },
  debug: { level: 'debug', quiet: false },
  info: { level: 'info', quiet: false },
  warn: { level: 'warn', quiet: false },
  error: { level: 'error', quiet: false },
  off: { level: 'error', quiet: true },
};

/**
 * Reads `SVC_LOG`/`RUST_LOG` (`level`, `target=level`, comma-separated). The process has one logger, so
 * a directive for an `svc` target (`svc`, `svc::admin`, ...) wins over the bare default; directives for
 * other crates' targets do not apply here.
 */
export function parseLogFilter(filter: string): LogFilter {
  let fallback: { level: LogLevel; quiet: boolean } | undefined;
  let own: { level: LogLevel; quiet: boolean } | undefined;
  for (const directive of filter
    .split(',')
    .map((d) => d.trim())
    .filter(Boolean)) {
    const eq = directive.indexOf('=');
    const target = eq === -1 ? undefined : directive.slice(0, eq).trim();
    const levelText = (eq === -1 ? directive : directive.slice(eq + 1)).trim().toLowerCase();
    const level = ALIASES[levelText];
    if (!level) {
      // A bare target (`svc`) means "everything" for that target, as in env_logger.
      if (target === undefined && /^[a-z_][a-z0-9_:-]*$/i.test(directive)) {
        if (isOwnTarget(directive)) own = ALIASES.trace;
        continue;
      }
      return { error: `unknown log level '${levelText}' in '${directive}'` };
    }
    if (target === undefined) fallback = level;
    else if (isOwnTarget(target)) own = level;
  }
  return own ?? fallback ?? { error: `no level for svc in '${filter}'` };
}

function isOwnTarget(target: string): boolean {
  return target === 'svc' || target.startsWith('svc::') || target.startsWith('svc_');
}
