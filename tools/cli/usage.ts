/** `svc --help` and `svc help <command>`: every subcommand and every option the parser accepts. */

interface OptionHelp {
  spellings: string;
  text: string;
}

const SERVER: OptionHelp[] = [
  { spellings: '--port N, -p N', text: 'admin port (default 2525; env MB_PORT)' },
  { spellings: '--host H, -h H', text: 'admin bind host (-h alone prints this help)' },
  { spellings: '--configfile F, --imposters F', text: 'load imposters at startup (JSON or YAML)' },
  { spellings: '--no-parse, --noParse', text: 'skip the template step of --configfile' },
  { spellings: '--datadir D', text: 'persist runtime imposters as D/<port>.json and reload them at startup' },
  { spellings: '--allowInjection, --allow-injection, -i', text: 'admit scripted configs (env MB_ALLOW_INJECTION)' },
  { spellings: '--mock, -m', text: 'record requests on every imposter' },
  { spellings: '--debug, -d', text: 'stubs list the requests they matched (matches)' },
  { spellings: '--api-key T, --apikey T', text: 'require this token on admin routes (env MB_APIKEY)' },
  { spellings: '--require-admin-auth', text: 'refuse off-host intercept control without the api key' },
  { spellings: '--localOnly, --local-only, -l', text: 'serve loopback peers only' },
  { spellings: '--ipWhitelist A|B, --ip-whitelist, -w', text: 'without --localOnly, serve loopback plus these addresses' },
  { spellings: '--metrics-port N', text: 'metrics server port (default 9090; env SVC_METRICS_PORT)' },
  { spellings: '--front-door ADDR', text: 'start the front door on [host:]port' },
  { spellings: '--scripts-dir D', text: 'root for file: scripts of admin-created imposters' },
  { spellings: '--runtime single|per-core', text: 'per-core: every core accepts imposter traffic, one shared state (env SVC_RUNTIME)' },
  { spellings: '--workers N', text: 'engine threads under per-core, main thread included (default: core count; env SVC_WORKERS)' },
  { spellings: '--keep-alive-timeout MS', text: 'imposter idle keep-alive limit (default 5000; 0 off; env SVC_KEEP_ALIVE_TIMEOUT)' },
  { spellings: '--headers-timeout MS', text: 'imposter request-head limit (default 60000; env SVC_HEADERS_TIMEOUT)' },
  { spellings: '--request-timeout MS', text: 'imposter whole-request limit (default 300000; env SVC_REQUEST_TIMEOUT)' },
  { spellings: '--max-buffered-body-bytes N', text: 'request-body bytes buffered at once across imposters (default 256 MiB)' },
  { spellings: '--compat mountebank', text: "mountebank 2.9.1's admin behaviour (env SVC_COMPAT)" },
  { spellings: '--validate F', text: 'check a config file as startup would, then exit' },
  { spellings: '--rcfile F', text: 'JSON defaults file' },
  { spellings: '--loglevel L, --logLevel L', text: 'debug, info (default), warn or error (env SVC_LOG / RUST_LOG)' },
  { spellings: '--logfile F', text: 'append the log to F (default svc.log)' },
  { spellings: '--nologfile', text: 'no log file' },
  { spellings: '--pidfile F', text: 'pid file written once serving (default svc.pid)' },
];

const IGNORED = '--protofile, --impostersRepository (--imposters-repository), --origin (-o), --formatter, --log';

const PIDFILE: OptionHelp = { spellings: '--pidfile F', text: 'pid file of the server (default svc.pid)' };
const ADMIN_TARGET: OptionHelp[] = [
  { spellings: '--port N, -p N', text: 'admin port of the running server (default 2525)' },
  { spellings: '--host H, -h H', text: 'its host (default localhost)' },
  { spellings: '--api-key T, --apikey T', text: 'its admin token' },
];

interface CommandHelp {
  synopsis: string;
  text: string;
  options: OptionHelp[];
}

export const COMMAND_HELP: Record<string, CommandHelp> = {
  start: { synopsis: 'svc [start] [options]', text: 'serve the admin API and imposters (the default command)', options: SERVER },
  stop: { synopsis: 'svc stop [--pidfile F]', text: "SIGTERM the pidfile's process, wait for it, remove the file", options: [PIDFILE] },
  restart: {
    synopsis: 'svc restart [start options]',
    text: 'stop (a missing pidfile is fine), then start detached; the log goes to --logfile (svc.log)',
    options: SERVER,
  },
  save: {
    synopsis: 'svc save [file] [options]',
    text: 'write GET /imposters?replayable=true to a file (default svc.json)',
    options: [
      { spellings: '--savefile F', text: 'target file (or the first argument)' },
      { spellings: '--removeProxies, --remove-proxies, -r', text: 'leave proxy responses out' },
      ...ADMIN_TARGET,
    ],
  },
  replay: { synopsis: 'svc replay [options]', text: 'record mode to replay mode: put the configuration back without proxies', options: ADMIN_TARGET },
  healthcheck: { synopsis: 'svc healthcheck [options]', text: 'exit 0 when GET /health answers 200, else 1', options: ADMIN_TARGET },
  script: {
    synopsis: 'svc script eval <file> [--engine rhai|javascript] [--request <json-file>] [--deadline-ms <ms>]',
    text: 'run a Rhai or JavaScript script and print its value as JSON',
    options: [],
  },
  verify: {
    synopsis: 'svc verify <configfile> [--skip-dynamic] [--verify-dynamic] [--no-parse]',
    text: "drive each stub's _verify sequence against a fresh copy of its imposter",
    options: [],
  },
  help: { synopsis: 'svc help [command]', text: "this help, or one command's", options: [] },
  version: { synopsis: 'svc --version | -v | -V | version', text: 'print the version', options: [] },
};

function optionLines(options: OptionHelp[]): string {
  const width = Math.max(...options.map((o) => o.spellings.length));
  return options.map((o) => `  ${o.spellings.padEnd(width)}  ${o.text}\n`).join('');
}

export const USAGE = `Usage: svc [command=start] [options...]

Commands:
${Object.entries(COMMAND_HELP)
  .map(([name, help]) => `  ${name.padEnd(12)} ${help.text}\n`)
  .join('')}
Options of start and restart:
${optionLines(SERVER)}
Options of save (replay and healthcheck take --port, --host, --api-key; stop takes --pidfile):
${optionLines(COMMAND_HELP.save.options.slice(0, 2))}
mountebank options svc does not implement are warned and ignored: ${IGNORED}.
Any other unknown option is an error (exit 2).

svc help <command> shows one command's options. README.md has the full tables.
`;

/** One command's help, or undefined for an unknown command. */
export function commandUsage(command: string): string | undefined {
  if (!Object.hasOwn(COMMAND_HELP, command)) return undefined;
  const help = COMMAND_HELP[command];
  const options = help.options.length > 0 ? `\nOptions:\n${optionLines(help.options)}` : '';
  return `Usage: ${help.synopsis}\n\n${help.text}\n${options}`;
}
