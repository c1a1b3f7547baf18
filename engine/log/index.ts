export { createLogger, silentLogger, isLogLevel, type Logger, type LogLevel, type LogEntry, type LoggerOptions } from './logger.js';
export { parseLogFilter, type LogFilter } from './log-filter.js';
