import { performance } from 'node:perf_hooks';
import type { OutgoingHeaders, ResponseSink } from '../transport/index.js';

/**
 * `--loglevel debug`: a sink that logs the request it answers once the answer is written (method, path,
 * matched stub index, status or TCP fault, milliseconds), as mountebank logs each request. Only made
 * when debug logging is on, so the hot path pays nothing otherwise.
 */
export class LoggedSink implements ResponseSink {
  /** Set by the imposter once a stub is chosen; -1 when none matched. */
  stubIndex = -1;
  private readonly started = performance.now();

  constructor(
    private readonly inner: ResponseSink,
    private readonly method: string,
    private readonly path: string,
    private readonly log: (line: string) => void,
  ) {}

  get protocol(): ResponseSink['protocol'] {
    return this.inner.protocol;
  }

  private done(outcome: string): void {
    const stub = this.stubIndex >= 0 ? `stub ${this.stubIndex}` : 'no stub matched';
    this.log(`${this.method} ${this.path} => ${outcome} (${stub}) in ${Math.round(performance.now() - this.started)} ms`);
  }

  send(statusCode: number, headers: OutgoingHeaders, body: Buffer): void {
    this.inner.send(statusCode, headers, body);
    this.done(String(statusCode));
  }

  reset(): void {
    this.inner.reset();
    this.done('connection reset');
  }

  closeEmpty(): void {
    this.inner.closeEmpty();
    this.done('closed empty');
  }

  writeRawAndClose(bytes: Buffer): void {
    this.inner.writeRawAndClose(bytes);
    this.done('raw bytes then close');
  }
}
