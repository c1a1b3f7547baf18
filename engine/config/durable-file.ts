import { closeSync, fsyncSync, openSync, renameSync, rmSync, writevSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** The temp file `writeFileDurably` writes beside `target` (`.<name>.<pid>.tmp`, so a directory scan can tell it). */
export function tempFileFor(target: string): string {
  return join(dirname(target), `.${basename(target)}.${process.pid}.tmp`);
}

/**
 * Replaces `target` with `data` so that it is either the old file or the whole new one, on disk when this
 * returns: temp file beside it, every byte written (a full disk writes part, then throws ENOSPC), fsync,
 * rename over the target, directory fsync. On any failure the temp file is removed, the target is left as
 * it was, and the error (ENOSPC, EIO, EACCES...) is thrown.
 */
export function writeFileDurably(target: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  const temp = tempFileFor(target);
  const chunks = typeof data === 'string' ? [Buffer.from(data, 'utf8')] : data instanceof Uint8Array ? [data] : data;
  let fd: number | undefined;
  try {
    fd = openSync(temp, 'w');
    writeAll(fd, chunks);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(temp, target);
  } catch (err) {
    if (fd !== undefined) closeQuietly(fd);
    removeQuietly(temp);
    throw err;
  }
  syncDirectory(dirname(target));
}

/** Writes every chunk in order (the file is assembled from kept pieces, not copied into one buffer first). */
function writeAll(fd: number, chunks: readonly Uint8Array[]): void {
  let pending = chunks.filter((chunk) => chunk.length > 0);
  while (pending.length > 0) {
    // A full disk writes part, then throws ENOSPC on the next call.
    let written = writevSync(fd, pending as Uint8Array[]);
    let next = 0;
    while (next < pending.length && written >= pending[next]!.length) written -= pending[next++]!.length;
    pending = pending.slice(next);
    if (written > 0) pending[0] = pending[0]!.subarray(written);
  }
}

function removeQuietly(file: string): void {
  try {
    rmSync(file, { force: true });
  } catch {
    // as above
  }
}

function closeQuietly(fd: number): void {
  try {
    closeSync(fd);
  } catch {
    // the write already failed; that error is the one to report
  }
}

/** Makes the rename itself durable; some filesystems refuse to fsync a directory, which is harmless here. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, 'r');
    fsyncSync(fd);
  } catch {
    // best effort: the rename is already atomic for readers
  } finally {
    if (fd !== undefined) closeQuietly(fd);
  }
}
