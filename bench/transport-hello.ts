/**
 * Hello-world over the imposter transport vs. a bare node:net server (the ceiling: a fixed response
 * per header terminator, no parsing), so the transport's overhead can be measured on its own.
 *
 * Library: startBareNet / startTransportHello return { port, close }.
 * CLI (one server per process, to pin it with taskset):
 *   node --import tsx bench/transport-hello.ts bare|bare-close|transport <port>
 */
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { pathToFileURL } from 'node:url';
import { createListener } from '../engine/transport/index.js';

export interface HelloServer {
  port: number;
  close(): Promise<void>;
}

const BODY = Buffer.from('hello');
const BARE_RESPONSE = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: 5\r\n\r\nhello');
const CLOSE_RESPONSE = Buffer.from(
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: 5\r\n\r\nhello',
);
/** As BARE_RESPONSE, saying keep-alive: an origin svc's proxies forward (svc, as mountebank, closes an answer without a Connection header). */
const KEEP_ALIVE_RESPONSE = Buffer.from(
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: keep-alive\r\nDate: Thu, 01 Jan 2026 00:00:00 GMT\r\nContent-Length: 5\r\n\r\nhello',
);
const TERMINATOR = Buffer.from('\r\n\r\n');

export function startBareNet(port = 0, host = '127.0.0.1', response = BARE_RESPONSE): Promise<HelloServer> {
  const server = createServer({ noDelay: true }, (socket) => {
    let tail: Buffer | null = null;
    socket.on('data', (chunk: Buffer) => {
      const data = tail === null ? chunk : Buffer.concat([tail, chunk]);
      let count = 0;
      let end = 0;
      for (let at = data.indexOf(TERMINATOR); at !== -1; at = data.indexOf(TERMINATOR, end)) {
        count++;
        end = at + 4;
      }
      tail = end === data.length ? null : data.subarray(Math.max(end, data.length - 3));
      if (count === 1) socket.write(response);
      else if (count > 1) socket.write(Buffer.concat(Array(count).fill(response)));
    });
    socket.on('error', () => socket.destroy());
  });
  return serve(server, port, host);
}

/** Listens, and closes with every open socket destroyed. */
function serve(server: Server, port: number, host: string): Promise<HelloServer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () =>
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      }),
    );
  });
}

/**
 * The close-mode ceiling: mountebank's default `Connection: close` done by hand, one fixed answer to
 * the first header terminator, then FIN (node closes the socket once the peer closes its side).
 */
export function startBareNetClose(port = 0, host = '127.0.0.1'): Promise<HelloServer> {
  const server = createServer({ noDelay: true }, (socket) => {
    let tail: Buffer | null = null;
    socket.on('data', (chunk: Buffer) => {
      const data = tail === null ? chunk : Buffer.concat([tail, chunk]);
      if (data.indexOf(TERMINATOR) === -1) {
        tail = data;
        return;
      }
      socket.removeAllListeners('data');
      socket.end(CLOSE_RESPONSE);
    });
    socket.on('error', () => socket.destroy());
  });
  return serve(server, port, host);
}

export async function startTransportHello(port = 0, host = '127.0.0.1'): Promise<HelloServer> {
  const headers: Array<[string, string]> = [['Content-Type', 'text/plain']];
  const listener = await createListener({ protocol: 'http', port, host, http2: true, maxBodyBytes: 1024 * 1024 }, (_request, sink) =>
    sink.send(200, headers, BODY),
  );
  return { port: listener.port, close: () => listener.close() };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [kind, portText] = process.argv.slice(2);
  const start =
    kind === 'bare'
      ? startBareNet
      : kind === 'bare-keep-alive'
        ? (port: number) => startBareNet(port, '127.0.0.1', KEEP_ALIVE_RESPONSE)
        : kind === 'bare-close'
          ? startBareNetClose
          : kind === 'transport'
            ? startTransportHello
            : null;
  if (start === null) {
    process.stderr.write('usage: transport-hello.ts bare|bare-keep-alive|bare-close|transport <port>\n');
    process.exit(2);
  }
  const server = await start(Number(portText ?? 0));
  process.stdout.write(`${kind} listening on ${server.port}\n`);
  process.on('SIGTERM', () => process.exit(0));
  process.on('SIGINT', () => process.exit(0));
}
