/**
 * The server options and process helpers the embedding API owns and the CLI maps argv onto: options
 * from flags, environment and rcfile; pidfiles; stop/restart; save/replay/healthcheck over the admin
 * API. A room of its own inside embed so the CLI reaches them without loading the server.
 */
export { UsageError } from '../../engine/model/index.js';
export { parseCliOptions, applyRcfileDefaults, KNOWN_FLAGS, DEFAULT_PIDFILE, DEFAULT_SAVEFILE, type CliOptions } from './server-options.js';
export { stopServer, stopForRestart, stopCommand, restartCommand } from './process-control.js';
export { saveImposters, saveCommand, replayCommand, healthcheckCommand, type AdminTarget } from './snapshot.js';
export { writePidFile, readPidFile, removeOwnPidFile, processAlive } from './pidfile.js';
