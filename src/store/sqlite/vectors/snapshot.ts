// Snapshot files beside the database: <key>.json names an immutable HNSW index file <key>-<seq>-<nonce>.hnsw with its
// size and checksum, so a partial or damaged file is never handed to hnswlib (which can crash on one); <key>.flat holds
// the flat store (flat.ts encode). Every file is written then renamed.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { crc32 } from 'node:zlib';

/** Format 2 names the index file's CRC-32 (8 hex digits); format 1, still read, its SHA-256 (five times slower to
 * check: seconds for a graph of a million vectors). */
export interface SnapshotMeta {
  format: 1 | 2;
  bankId: string;
  bankCreatedAt: string;
  dim: number;
  seq: number;
  file: string;
  bytes: number;
  crc32?: string;
  sha256?: string;
  m: number;
  efConstruction: number;
  writtenAt: string;
}


export const bankKey = (bankId: string): string => 'bank-' + createHash('sha256').update(bankId).digest('hex').slice(0, 24);

/** Whether the file's bytes are the ones the meta file describes (size first, then the checksum it names). */
export async function snapshotFileMatches(path: string, meta: SnapshotMeta): Promise<boolean> {
  if (meta.format === 2 && typeof meta.crc32 === 'string') return (await fileChecksum(path, 'crc32')) === meta.crc32;
  if (meta.format === 1 && typeof meta.sha256 === 'string') return (await fileChecksum(path, 'sha256')) === meta.sha256;
  return false;
}

/** The file's CRC-32 (8 hex digits) or SHA-256 (hex), read a few megabytes at a time into one buffer. */
export async function fileChecksum(path: string, kind: 'crc32' | 'sha256'): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(4 << 20);
    const hash = kind === 'sha256' ? createHash('sha256') : null;
    let crc = 0;
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      const chunk = buffer.subarray(0, bytesRead);
      if (hash) hash.update(chunk);
      else crc = crc32(chunk, crc);
      position += bytesRead;
    }
    return hash ? hash.digest('hex') : crc.toString(16).padStart(8, '0');
  } finally {
    await file.close();
  }
}
