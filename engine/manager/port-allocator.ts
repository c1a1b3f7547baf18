const FIRST = 49152;
const LAST = 65535;

/** Walks the dynamic range (docs/limits.md) from a moving cursor so freed ports are not reused at once. */
export class PortAllocator {
  private cursor = FIRST + Math.floor(Math.random() * (LAST - FIRST));

  /** Ports to try, in order, skipping those already taken by imposters. */
  *candidates(taken: (port: number) => boolean): Generator<number> {
    const span = LAST - FIRST + 1;
    for (let i = 0; i < span; i += 1) {
      const port = FIRST + ((this.cursor - FIRST + i) % span);
      if (taken(port)) continue;
      this.cursor = port + 1 > LAST ? FIRST : port + 1;
      yield port;
    }
  }
}
