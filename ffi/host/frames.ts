/** Length-prefixed frames: a 4-byte big-endian payload length, then the msgpack payload. */

const HEADER = 4;

export function frame(payload: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(HEADER + payload.length);
  out.writeUInt32BE(payload.length, 0);
  out.set(payload, HEADER);
  return out;
}

/** Collects stream chunks and hands back each complete payload once it has fully arrived. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): Buffer[] {
    this.pending = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk]);
    const payloads: Buffer[] = [];
    while (this.pending.length >= HEADER) {
      const size = this.pending.readUInt32BE(0);
      if (this.pending.length < HEADER + size) break;
      payloads.push(this.pending.subarray(HEADER, HEADER + size));
      this.pending = this.pending.subarray(HEADER + size);
    }
    return payloads;
  }
}
