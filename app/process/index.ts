/**
 * The server options and process helpers the embedding API owns: the typed options and their defaults
 * (the CLI, tools/cli, parses flags, environment and rcfile into them); pidfiles; stopping a server;
 * save/replay/healthcheck over the admin API (tools/cli's commands print and exit on them). A room of
 * its own inside app so the CLI reaches them without loading the server.
 */
export { UsageError } from '../../engine/model/index.js';
export { defaultCliOptions, DEFAULT_PIDFILE, DEFAULT_SAVEFILE, type CliOptions } from './server-options.js';
export { stopServer, stopForRestart } from './process-control.js';
export { saveImposters, replayImposters, checkHealth, type AdminTarget } from './snapshot.js';
export { HeapReclaim, type ReclaimReport } from './heap-reclaim.js';
export { writePidFile, readPidFile, removeOwnPidFile, processAlive } from './pidfile.js';
