/**
 * The server options and process helpers the embedding API owns: the typed options and their defaults
 * (the CLI, tools/cli, parses flags, environment and rcfile into them); pidfiles; stop/restart;
 * save/replay/healthcheck over the admin API. A room of its own inside app so the CLI reaches them
 * without loading the server.
 */
export { UsageError } from '../../engine/model/index.js';
export { defaultCliOptions, DEFAULT_PIDFILE, DEFAULT_SAVEFILE, type CliOptions } from './server-options.js';
export { stopServer, stopForRestart, stopCommand, restartCommand } from './process-control.js';
export { saveImposters, saveCommand, replayCommand, healthcheckCommand, type AdminTarget } from './snapshot.js';
export { writePidFile, readPidFile, removeOwnPidFile, processAlive } from './pidfile.js';
