/**
 * The ceiling: a bare node:net server answering every request with a fixed keep-alive response.
 * Nothing an HTTP engine on node:net does can be faster, so scenario (a) is reported against it.
 *
 * Usage: node --import tsx bench/ceiling.ts <port>
 * Requests are assumed bodiless (wrk's GET): each header terminator is one request, which also
 * covers pipelining and a terminator split across reads.
 */
import { createServer } from 'node:net';

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  process.stderr.write('usage: ceiling.ts <port>\n');
  process.exit(2);
}

const response = Buffer.from('HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\nConnection: keep-alive\r\n\r\nhello');
const terminator = '\r\n\r\n';

const server = createServer((socket) => {
  socket.setNoDelay(true);
  let tail = '';
  socket.on('data', (chunk: Buffer) => {
    const text = tail + chunk.toString('latin1');
    let count = 0;
    let at = text.indexOf(terminator);
    let end = 0;
    while (at !== -1) {
      count++;
      end = at + terminator.length;
      at = text.indexOf(terminator, end);
    }
    tail = text.slice(Math.max(end, text.length - (terminator.length - 1)));
    if (count === 1) socket.write(response);
    else if (count > 1) socket.write(Buffer.concat(Array.from({ length: count }, () => response)));
  });
  socket.on('error', () => socket.destroy());
});
server.listen(port, '127.0.0.1');

// Exit at once: wrk's keep-alive connections would hold a graceful close open.
process.on('SIGTERM', () => process.exit(0));
process.on('SIGINT', () => process.exit(0));
