// The flat snapshot <key>.flat: a bank's flat store (flat.ts) as of change seq, read at start instead of every vector
// row (100k rows take most of a second from SQLite), then caught up from vector_changes. One header line (JSON, padded
// so the body starts at a multiple of 8 bytes), then the body: rids (float64), record times (float64), kinds (one byte
// each, padded to 8) and vectors (float32). Written then renamed, so a partial file never has the name; read through
// one open descriptor, so a snapshot renamed over it meanwhile changes nothing for its reader. Format 2 carries the
// body's CRC-32; format 1 (a SHA-256, five times slower to check) is still read.
import { closeSync, fstatSync, openSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { FlatVectors } from './flat.ts';

export interface FlatHeader {
  format: 1 | 2;
  bankId: string;
  bankCreatedAt: string;
  dim: number;
  seq: number;
  size: number;
  /** Format 2: the CRC-32 of the body, 8 hex digits. */
  crc32?: string;
  /** Format 1: the SHA-256 of the body. */
  sha256?: string;
}

/** Where a body lies in its file and what it must add up to: what flat-body.cjs reads. */
export interface FlatLayout {
  start: number;
  size: number;
  dim: number;
  /** Entries the arrays read are made with (room to grow past size). */
  capacity: number;
  format: 1 | 2;
  checksum: string;
}

interface BodyCheck {
  update(bytes: Uint8Array): void;
  digest(): string;
}
type Body = { rids: ArrayBuffer; times: ArrayBuffer; kinds: ArrayBuffer; data: ArrayBuffer };
interface FlatBodyModule {
  READ_CHUNK: number;
  readFully(fd: number, bytes: Uint8Array, position: number): void;
  bodyCheck(format: 1 | 2): BodyCheck;
  readBody(fd: number, layout: FlatLayout): Body | null;
}
const FLAT_BODY = new URL('./flat-body.cjs', import.meta.url);
export const flatBody = createRequire(import.meta.url)('./flat-body.cjs') as FlatBodyModule;

/** The snapshot file of the flat store as it is now (its rows, times, kinds and vectors at change seq). */
export function encodeFlat(flat: FlatVectors, header: Omit<FlatHeader, 'format' | 'crc32' | 'sha256' | 'dim' | 'size'>): Buffer {
  const n = flat.size;
  const kindBytes = Math.ceil(n / 8) * 8;
  // The header line's length does not depend on the checksum (8 hex digits): sized with a stand-in, written last.
  const line = (crc32: string): string => JSON.stringify({ format: 2, ...header, dim: flat.dim, size: n, crc32 });
  const start = Math.ceil((Buffer.byteLength(line('0'.repeat(8))) + 1) / 8) * 8;
  const out = Buffer.alloc(start + n * 16 + kindBytes + n * flat.dim * 4);
  out.set(new Uint8Array(flat.rids.buffer, 0, n * 8), start);
  out.set(new Uint8Array(flat.times.buffer, 0, n * 8), start + n * 8);
  out.set(flat.kinds.subarray(0, n), start + n * 16);
  out.set(new Uint8Array(flat.data.buffer, 0, n * flat.dim * 4), start + n * 16 + kindBytes);
  const check = flatBody.bodyCheck(2);
  check.update(out.subarray(start));
  const head = line(check.digest());
  out.write(`${head + ' '.repeat(start - 1 - Buffer.byteLength(head))}\n`, 0, 'utf8');
  return out;
}

/** An open snapshot file whose header and size are right (its body is checked as it is read). */
export class FlatFile {
  private closed = false;

  private constructor(
    readonly fd: number,
    readonly header: FlatHeader,
    readonly start: number,
  ) {}

  /** The file opened, or null when there is none or it is not a whole snapshot (header, size). */
  static open(path: string): FlatFile | null {
    let fd: number;
    try {
      fd = openSync(path, 'r');
    } catch {
      return null; // none yet
    }
    try {
      const size = fstatSync(fd).size;
      const head = Buffer.alloc(Math.min(4096, size));
      flatBody.readFully(fd, head, 0);
      const nl = head.indexOf(10);
      const header = nl < 0 ? null : parseHeader(head.subarray(0, nl).toString('utf8'));
      if (header && (nl + 1) % 8 === 0 && size === nl + 1 + bodyBytes(header)) return new FlatFile(fd, header, nl + 1);
    } catch {
      // unreadable: as good as none
    }
    closeSync(fd);
    return null;
  }

  /** Bytes of the body: rids, times, kinds (padded) and vectors. */
  get bodyBytes(): number {
    return bodyBytes(this.header);
  }

  /** Where each section of the body starts. */
  get sections(): { rids: number; times: number; kinds: number; vectors: number } {
    const n = this.header.size;
    return { rids: this.start, times: this.start + n * 8, kinds: this.start + n * 16, vectors: this.start + n * 16 + Math.ceil(n / 8) * 8 };
  }

  /** The check of the body its header names, to be fed the body in order. */
  check(): BodyCheck {
    return flatBody.bodyCheck(this.header.format);
  }

  /** The whole store, read on this thread; null when the body's checksum differs. */
  read(): FlatVectors | null {
    const body = flatBody.readBody(this.fd, this.layout());
    return body && FlatVectors.fromBody(this.header.dim, this.header.size, body);
  }

  /** The whole store, read on a worker thread (its memory is paged in there, not on this one); null when the body's
   * checksum differs or the read was stopped. The file must stay open until `done` settles. */
  readInBackground(): { done: Promise<FlatVectors | null>; stop(): void } {
    const worker = new Worker(FLAT_BODY, { execArgv: [], workerData: { flatBody: { fd: this.fd, layout: this.layout() } } });
    worker.unref(); // a process that has finished must not wait for it
    const done = new Promise<FlatVectors | null>((resolve) => {
      worker.once('message', (body: Body | null) => resolve(body && FlatVectors.fromBody(this.header.dim, this.header.size, body)));
      worker.once('error', () => resolve(null));
      worker.once('exit', () => resolve(null));
    });
    // Its reads are plain JavaScript (no native addon inside): terminating it mid-read is safe.
    return { done, stop: () => void worker.terminate() };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    closeSync(this.fd);
  }

  private layout(): FlatLayout {
    const { size, dim, format } = this.header;
    // Room to grow by an eighth before the arrays are copied (untouched, it costs address space only).
    const capacity = size + Math.max(8, size >> 3);
    return { start: this.start, size, dim, capacity, format, checksum: (format === 2 ? this.header.crc32 : this.header.sha256) ?? '' };
  }
}

function bodyBytes(h: FlatHeader): number {
  return h.size * 16 + Math.ceil(h.size / 8) * 8 + h.size * h.dim * 4;
}

function parseHeader(line: string): FlatHeader | null {
  let h: FlatHeader;
  try {
    h = JSON.parse(line) as FlatHeader;
  } catch {
    return null;
  }
  if (!h || typeof h !== 'object' || ![h.size, h.dim, h.seq].every((x) => Number.isSafeInteger(x) && x >= 0)) return null;
  if (typeof h.bankId !== 'string' || typeof h.bankCreatedAt !== 'string') return null;
  const checked = (h.format === 2 && typeof h.crc32 === 'string') || (h.format === 1 && typeof h.sha256 === 'string');
  return checked ? h : null;
}
