/**
 * What the dashboard's Chromium tests share: one browser per file, an in-process svc, traffic senders,
 * and the console watch (any console error or failed page load fails the test that caused it).
 */
import { mkdtempSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from './browser.js';

export const WAIT = { timeout: 15_000 };

let browser: Browser | undefined;
export const chromium = async (): Promise<Browser> => (browser ??= await launchChromium());
export async function closeChromium(): Promise<void> {
  await browser?.close();
  browser = undefined;
}

/** One folder per test run for every screenshot (printed, so a reader can look). */
let shots: string | undefined;
export function screenshotDir(): string {
  if (shots === undefined) {
    shots = mkdtempSync(join(tmpdir(), 'svc-dashboard-shots-'));
    console.log(`dashboard screenshots: ${shots}`);
  }
  return shots;
}

/**
 * Console errors, page errors and 4xx/5xx answers the page saw; `take()` returns and resets them.
 * `allow(pattern)` drops what matches for the rest of the page's life: a test that breaks a connection on
 * purpose allows the network error the browser logs for it, which may arrive after the test's last step.
 */
export function watchConsole(page: Page): { take: () => string[]; allow: (pattern: RegExp) => void } {
  let seen: string[] = [];
  const allowed: RegExp[] = [];
  const note = (line: string) => {
    if (!allowed.some((pattern) => pattern.test(line))) seen.push(line);
  };
  page.on('console', (message) => {
    if (message.type() === 'error') note(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => note(`page error: ${error.message}`));
  page.on('response', (response) => {
    if (response.status() >= 400) note(`${response.status()} ${response.url()}`);
  });
  return {
    take: () => {
      const out = seen;
      seen = [];
      return out;
    },
    allow: (pattern) => {
      allowed.push(pattern);
    },
  };
}

export const ordersStubs = [
  { id: 'health', predicates: [{ equals: { path: '/health' } }], responses: [{ is: { body: 'up' } }] },
  { id: 'order', predicates: [{ equals: { method: 'POST' } }, { contains: { body: 'sku' } }], responses: [{ is: { statusCode: 201, body: 'ordered' } }] },
];

/** A stub that answers with keep-alive, so `sendMany` can reuse connections (svc closes them by default). */
export const bulkStub = { predicates: [{ equals: { path: '/bulk' } }], responses: [{ is: { headers: { Connection: 'keep-alive' }, body: 'up' } }] };

/**
 * `count` GETs of `/bulk` over a few raw keep-alive sockets, each sent when the previous answer ended.
 * `perSecond` paces them (all lanes together); without it they go as fast as answered.
 */
export function sendMany(port: number, count: number, options: { connections?: number; perSecond?: number } = {}): Promise<void> {
  const connections = options.connections ?? 8;
  const started = Date.now();
  let next = 0;
  const lane = () =>
    new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1');
      socket.setEncoding('latin1');
      const send = () => {
        if (next >= count) {
          socket.destroy();
          resolve();
          return;
        }
        const n = next++;
        const due = options.perSecond ? started + (n * 1000) / options.perSecond : 0;
        const write = () => socket.write(`GET /bulk?n=${n} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        const wait = due - Date.now();
        if (wait > 0) setTimeout(write, wait);
        else write();
      };
      // Chunked answers end with the zero-size chunk.
      socket.on('data', (chunk: string) => {
        if (chunk.endsWith('0\r\n\r\n')) send();
      });
      socket.on('error', reject);
      socket.on('close', () => {
        if (next < count) reject(new Error('imposter closed the connection'));
      });
      socket.on('connect', send);
    });
  return Promise.all(Array.from({ length: connections }, lane)).then(() => undefined);
}
