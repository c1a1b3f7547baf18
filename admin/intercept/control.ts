/**
 * `InterceptControl`: the one intercept listener slot of a server (docs/imposters.md, §4.9, §4.14). The admin
 * routes and the C ABI both call it, so both see the same session; its methods mirror the C
 * functions (`svc_start_intercept`, `svc_stop_intercept`, `svc_intercept_*`).
 */
import { readFile } from 'node:fs/promises';
import { writeFileDurably } from '../../engine/config/index.js';
import type { Server } from 'node:net';
import { silentLogger, type Logger } from '../../engine/log/index.js';
import type { ImposterManager } from '../../engine/manager/index.js';
import { createJsScriptHost, type JsScriptHost } from '../../engine/script/js/index.js';
// certificates.js and truststore.js load node-forge (~75 ms): imported when an intercept first needs them.
import type { CertificateAuthority, CaMaterial } from './certificates.js';
import { interceptErrors } from './errors.js';
import { parseStartOptions, type CaSource } from './options.js';
import { InterceptProxy, type OriginProtocol } from './proxy.js';
import { renderRule, RuleStore } from './rules.js';
import { DEFAULT_TRUSTSTORE_PASSWORD, type TruststoreFormat } from './truststore-format.js';
import { errorText } from '../../engine/model/index.js';

export interface InterceptControlOptions {
  log?: Logger;
  /** The protocol of the imposter on a local port (forward rules without `protocol` use it). */
  protocolOf?: (port: number) => OriginProtocol | undefined;
}

/** Injection gating: the admin plane passes its `--allowInjection`; the C ABI is trusted (docs/c-abi.md). */
export interface RuleGate {
  allowInjection?: boolean;
}

/** Follows a listening server; returns the function that stops following it. */
export type ListenerWatch = (server: Server) => () => void;

export interface InterceptAddress {
  interceptPort: number;
  interceptUrl: string;
}

/** `start`'s answer; the CA pair only with `returnCaKey` (the key is secret, shown once). */
export interface InterceptStarted extends InterceptAddress {
  caCertPem?: string;
  caKeyPem?: string;
}

interface Session {
  proxy: InterceptProxy;
  ca: CertificateAuthority;
  rules: RuleStore;
  address: InterceptAddress;
}

/** `protocolOf` for a server's own imposters: forward rules reach an https imposter over TLS. */
export function imposterProtocols(manager: ImposterManager): (port: number) => OriginProtocol | undefined {
  return (port) => {
    const protocol = manager.get(port)?.protocol;
    return protocol === 'http' || protocol === 'https' ? protocol : undefined;
  };
}

async function loadCa(source: CaSource): Promise<CertificateAuthority> {
  const { CertificateAuthority, mintEphemeralCa } = await import('./certificates.js');
  let material: CaMaterial | Promise<CaMaterial>;
  if (source.kind === 'ephemeral') material = mintEphemeralCa();
  else if (source.kind === 'pem') material = { certPem: source.certPem, keyPem: source.keyPem };
  else {
    try {
      material = { certPem: await readFile(source.certPath, 'utf8'), keyPem: await readFile(source.keyPath, 'utf8') };
    } catch (err) {
      throw interceptErrors.badCa(`cannot read the CA: ${errorText(err)}`);
    }
  }
  try {
    return await CertificateAuthority.load(material);
  } catch (err) {
    throw interceptErrors.badCa(errorText(err));
  }
}

/** The URL a client configures as its proxy, from the bound address (a wildcard bind is reported as bound). */
function addressOf(proxy: InterceptProxy): InterceptAddress {
  const { address, port } = proxy.address;
  const host = address.includes(':') ? `[${address}]` : address;
  return { interceptPort: port, interceptUrl: `http://${host}:${port}` };
}

export class InterceptControl {
  private session: Session | undefined;
  /** Set while a start is binding, so a concurrent start is the same 409 as a running one. */
  private starting: Promise<unknown> | undefined;
  /** Listener watchers (metrics) and the detach function of their watch of the running proxy. */
  private readonly watchers = new Map<ListenerWatch, (() => void) | undefined>();
  /** The inject-rule sandbox, started on first use and closed with the session. */
  private scripts: JsScriptHost | undefined;
  private readonly log: Logger;

  constructor(private readonly options: InterceptControlOptions = {}) {
    this.log = options.log ?? silentLogger;
  }

  /** Validates the options, seeds the rules, loads or mints the CA and binds; 400/409/429 as docs/intercept.md. */
  async start(body: unknown, gate: RuleGate = {}): Promise<InterceptStarted> {
    if (this.session) throw interceptErrors.alreadyRunning(this.session.address.interceptUrl);
    if (this.starting) throw interceptErrors.alreadyRunning('(starting)');
    const starting = this.open(body, gate.allowInjection ?? true);
    this.starting = starting;
    try {
      return await starting;
    } finally {
      this.starting = undefined;
    }
  }

  private async open(body: unknown, allowInjection: boolean): Promise<InterceptStarted> {
    const options = parseStartOptions(body);
    const rules = new RuleStore();
    if (options.rules !== undefined) rules.add(options.rules, allowInjection);
    const ca = await loadCa(options.ca);
    let proxy: InterceptProxy;
    try {
      proxy = await InterceptProxy.listen(options.host, options.port, {
        rules,
        ca,
        protocolOf: this.options.protocolOf,
        log: this.log,
        scripts: () => (this.scripts ??= createJsScriptHost({ log: this.log })),
      });
    } catch (err) {
      throw interceptErrors.bindFailed(`cannot bind the intercept proxy to ${options.host}:${options.port}: ${errorText(err)}`);
    }
    const address = addressOf(proxy);
    this.session = { proxy, ca, rules, address };
    for (const watch of this.watchers.keys()) this.watchers.set(watch, watch(proxy.server));
    this.log.info(`intercept proxy listening on ${address.interceptUrl}`);
    if (options.ca.kind === 'ephemeral' && options.ca.returnKey) return { ...address, caCertPem: ca.certPem, caKeyPem: ca.keyPem };
    return { ...address };
  }

  /** Idempotent: releases the port and drops the rules and the CA. */
  async stop(): Promise<void> {
    await this.starting?.catch(() => undefined);
    const session = this.session;
    if (!session) return;
    this.session = undefined;
    for (const [watch, detach] of this.watchers) {
      detach?.();
      this.watchers.set(watch, undefined);
    }
    await session.proxy.close();
    const scripts = this.scripts;
    this.scripts = undefined;
    await scripts?.close();
    this.log.info('intercept proxy stopped');
  }

  /**
   * Follows the proxy's listening server of every session, from now on (the metrics plane counts its
   * accept errors as `listener="proxy"`); returns the function that stops following.
   */
  watchListener(watch: ListenerWatch): () => void {
    this.watchers.set(watch, this.session ? watch(this.session.proxy.server) : undefined);
    return () => {
      this.watchers.get(watch)?.();
      this.watchers.delete(watch);
    };
  }

  status(): InterceptAddress {
    return { ...this.require().address };
  }

  /** One rule or an array; all or none are added (400 invalid or ungated script, 429 over capacity). */
  addRules(body: unknown, gate: RuleGate = {}): Array<Record<string, unknown>> {
    return this.require()
      .rules.add(body, gate.allowInjection ?? true)
      .map(renderRule);
  }

  listRules(): Array<Record<string, unknown>> {
    return this.require().rules.list().map(renderRule);
  }

  clearRules(): { deleted: number } {
    return { deleted: this.require().rules.clear() };
  }

  caPem(): string {
    return this.require().ca.certPem;
  }

  /** The CA as a trust-only store; written to `outPath` when given. Export failures are 500s. */
  async exportTruststore(format: TruststoreFormat, password = DEFAULT_TRUSTSTORE_PASSWORD, outPath?: string): Promise<Buffer> {
    const { ca } = this.require();
    if (format !== 'pkcs12' && format !== 'jks') throw interceptErrors.badOptions(`truststore format must be pkcs12 or jks, not ${String(format)}`);
    let bytes: Buffer;
    try {
      const { truststore } = await import('./truststore.js');
      bytes = truststore(format, ca.certPem, password);
      if (outPath !== undefined) writeFileDurably(outPath, bytes);
    } catch (err) {
      throw interceptErrors.exportFailed(`cannot export the ${format} truststore: ${errorText(err)}`);
    }
    return bytes;
  }

  private require(): Session {
    if (!this.session) throw interceptErrors.notRunning();
    return this.session;
  }
}
