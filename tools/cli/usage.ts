/** `svc --help`. */
export const USAGE = `Usage: svc [command=start] [options...]

Commands:
  start                  serve the admin API and imposters (default)
  stop                   stop the server named in --pidfile (default svc.pid)
  restart                stop, then start detached with the given options
  save [savefile]        write GET /imposters?replayable=true to a file (default svc.json; --removeProxies)
  replay                 remove proxies from the running configuration
  healthcheck            exit status 0 when the admin API answers GET /health
  script eval <file>     run a Rhai script
  verify <configfile>    drive each stub's _verify sequence against a fresh copy of its imposter
                         (--skip-dynamic, --verify-dynamic)

Options (see README.md for the full table):
  --port N, --host H, --configfile F, --no-parse, --datadir D, --allowInjection, --api-key T,
  --pidfile F, --rcfile F, --logfile F, --loglevel L, --nologfile, --localOnly, --ipWhitelist L,
  --metrics-port N, --front-door ADDR, --require-admin-auth, --scripts-dir D, --runtime per-core,
  --keep-alive-timeout MS, --headers-timeout MS, --request-timeout MS, --max-buffered-body-bytes N,
  --validate F, --version, --help
`;
