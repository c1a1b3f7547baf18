import { appendFileSync } from 'node:fs';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export interface LogEntry {
  level: LogLevel;
  message: string;
  timestamp: string;
}

export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
  isEnabled(level: LogLevel): boolean;
  /** Most recent entries, oldest first (served by `GET /logs`). */
  recent(): LogEntry[];
}

export interface LoggerOptions {
  level: LogLevel;
  /** Append lines here as well as to stdout. */
  file?: string;
  quiet?: boolean;
  keep?: number;
}

export function isLogLevel(value: unknown): value is LogLevel {
  return typeof value === 'string' && value in RANK;
}

const brokenConsole = new WeakSet<NodeJS.WriteStream>();
const watchedConsole = new WeakSet<NodeJS.WriteStream>();

/**
 * Console output that stops once the stream fails: a write to a closed pipe (the reader went away)
 * emits EPIPE as an 'error' event; unheard, it became an uncaught exception whose logging wrote to
 * the same pipe again, spinning forever and starving the SIGTERM handler.
 */
function writeConsole(stream: NodeJS.WriteStream, line: string): void {
  if (brokenConsole.has(stream)) return;
  if (!watchedConsole.has(stream)) {
    watchedConsole.add(stream);
    stream.on('error', () => brokenConsole.add(stream));
  }
  stream.write(line);
}

/** Levels below the threshold return before formatting anything, so disabled logging costs a comparison. */
export function createLogger(options: LoggerOptions): Logger {
  const threshold = RANK[options.level];
  const keep = options.keep ?? 1000;
  const entries: LogEntry[] = [];

  function write(level: LogLevel, message: string): void {
    if (RANK[level] < threshold) return;
    const entry = { level, message, timestamp: new Date().toISOString() };
    entries.push(entry);
    if (entries.length > keep) entries.shift();
    const line = `${level}: ${message}\n`;
    if (!options.quiet) writeConsole(level === 'error' ? process.stderr : process.stdout, line);
    if (options.file) {
      try {
        appendFileSync(options.file, `${entry.timestamp} ${line}`);
      } catch {
        // A log file that cannot be written must not take the server down.
      }
    }
  }

  return {
    debug: (m) => write('debug', m),
    info: (m) => write('info', m),
    warn: (m) => write('warn', m),
    error: (m) => write('error', m),
    isEnabled: (level) => RANK[level] >= threshold,
    recent: () => entries.slice(),
  };
}

export const silentLogger: Logger = createLogger({ level: 'error', quiet: true });
