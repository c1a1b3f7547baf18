/**
 * Issue 10 item 11: recording a request costs time linear in its size. 10,000 same-name headers (about
 * 50 KB) used to cost 0.26-0.40 s of event loop per request on a recording imposter (5 ms otherwise);
 * the CPU-time bound below is 5x the linear cost (about 180 ms for 10 requests) and below the quadratic one (about 1.4 s).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { connect } from 'node:net';
import { inProcessForSuite } from '../../support/in-process.js';

const test = suite('reliability: recording cost');
const svc = inProcessForSuite(test, { keepImposters: true });

const HEADERS = 10_000;
const REQUESTS = 10;

/** Sends one GET with HEADERS copies of `X: v` (60 KB) on a raw socket; resolves with the status line once the answer arrives. */
function sendManyHeaders(port: number): Promise<string> {
  const head = `GET /many HTTP/1.1\r\nHost: 127.0.0.1\r\n${'X: v\r\n'.repeat(HEADERS)}Connection: close\r\n\r\n`;
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(head));
    let answer = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      answer += chunk;
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(answer.split('\r\n')[0]));
  });
}

test('a recording imposter records 10,000 same-name headers in linear time, and keeps every value', async () => {
  const port = await svc.createImposter({ recordRequests: true, stubs: [{ responses: [{ is: { body: 'ok' } }] }] });
  // CPU time of this process (server and client): about 15 ms a request now, over 100 ms before.
  const before = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i += 1) assert.is(await sendManyHeaders(port), 'HTTP/1.1 200 OK');
  const used = process.cpuUsage(before);
  const ms = (used.user + used.system) / 1000;
  assert.ok(ms < 900, `${REQUESTS} requests took ${ms.toFixed(0)} ms of CPU`);
  const recorded = (await svc.admin('GET', `/imposters/${port}/savedRequests`)).json;
  assert.is(recorded.length, REQUESTS);
  const name = Object.keys(recorded[0].headers).find((n) => n.toLowerCase() === 'x')!;
  assert.is(recorded[0].headers[name].length, HEADERS);
});

test.run();
