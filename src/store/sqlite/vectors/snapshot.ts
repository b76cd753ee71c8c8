// Snapshot files beside the database: <key>.json names an immutable HNSW index file <key>-<seq>-<nonce>.hnsw with its
// size and checksum, so a partial or damaged file is never handed to hnswlib (which can crash on one); <key>.flat holds
// the flat store (flat-file.ts). Every file is written then renamed.
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';
import { flatBody } from './flat-file.ts';

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

export const bankKey = (bankId: string): string => `bank-${createHash('sha256').update(bankId).digest('hex').slice(0, 24)}`;

/** Whether the file's bytes have the checksum the meta file names. */
export async function snapshotFileMatches(path: string, meta: SnapshotMeta): Promise<boolean> {
  const named = meta.format === 2 ? meta.crc32 : meta.format === 1 ? meta.sha256 : undefined;
  return typeof named === 'string' && (await fileChecksum(path, meta.format)) === named;
}

/** The file's checksum of the format's kind (2: CRC-32, 8 hex digits; 1: SHA-256), read a few megabytes at a time
 * into one buffer. */
export async function fileChecksum(path: string, format: 1 | 2): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(4 << 20);
    const check = flatBody.bodyCheck(format);
    for (let position = 0; ; ) {
      const { bytesRead } = await file.read(buffer, 0, buffer.length, position);
      if (bytesRead === 0) break;
      check.update(buffer.subarray(0, bytesRead));
      position += bytesRead;
    }
    return check.digest();
  } finally {
    await file.close();
  }
}
