/** Length-prefixed frames: a 4-byte big-endian payload length, then the msgpack payload. */

const HEADER = 4;

export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.set(payload, HEADER);
  return out;
}

/**
 * Collects stream chunks and hands back each complete payload once it has fully arrived. Chunks are
 * joined only when a whole frame is there, so a large frame costs one copy, not one per chunk.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  push(chunk: Buffer): Buffer[] {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    const payloads: Buffer[] = [];
    while (this.buffered >= HEADER) {
      if (this.chunks[0].length < HEADER) this.join();
      const size = this.chunks[0].readUInt32BE(0);
      if (this.buffered < HEADER + size) break;
      this.join();
      const all = this.chunks[0];
      payloads.push(all.subarray(HEADER, HEADER + size));
      const rest = all.subarray(HEADER + size);
      this.chunks = rest.length > 0 ? [rest] : [];
      this.buffered = rest.length;
    }
    return payloads;
  }

  private join(): void {
    if (this.chunks.length > 1) this.chunks = [Buffer.concat(this.chunks, this.buffered)];
  }
}
