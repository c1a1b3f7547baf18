/**
 * Objects a thread receives again and again (a static response's header list and body) cross once:
 * the first time as they are, the second time with an id the other side keeps them under, then by id
 * alone. Keeps the receiving writer's per-object encoding cache working and spares the copies.
 */
export class Interner<T extends object> {
  /** 0: sent once; > 0: the id the other side keeps it under. */
  private ids = new WeakMap<T, number>();
  private next = 1;

  /** `id` 0: use `value` once; `value` and `id` > 0: keep it; `id` alone: the kept one. */
  ref(value: T): { value?: T; id: number } {
    const known = this.ids.get(value);
    if (known === undefined) {
      this.ids.set(value, 0);
      return { value, id: 0 };
    }
    if (known > 0) return { id: known };
    const id = this.next++;
    this.ids.set(value, id);
    return { value, id };
  }

  /** The other side dropped what it kept. */
  forget(): void {
    this.ids = new WeakMap();
  }
}

/** The receiving side of an Interner. */
export class Kept<T> {
  private values = new Map<number, T>();

  constructor(private readonly missing: T) {}

  resolve(value: T | undefined, id: number): T {
    if (value === undefined) return this.values.get(id) ?? this.missing;
    if (id > 0) this.values.set(id, value);
    return value;
  }

  forget(): void {
    this.values = new Map();
  }
}

/** Structured cloning copies a view's whole ArrayBuffer (a pooled slab for small Buffers): send exactly the bytes. */
export function exactBytes(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}
