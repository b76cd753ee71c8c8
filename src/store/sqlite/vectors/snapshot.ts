// Snapshot files beside the database: <key>.json names an immutable HNSW index file <key>-<seq>-<nonce>.hnsw and the
// copies listed beside its nodes (<key>-<seq>-<nonce>.copies) with their sizes and checksums, so a partial or damaged
// file is never handed to hnswlib (which can crash on one); <key>.flat holds the flat store (flat-file.ts). Every file
// is written then renamed.
import { createHash } from 'node:crypto';
import { statSync } from 'node:fs';
import { open, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { flatBody } from './flat-file.ts';

/** A file of a snapshot: its name beside the meta file, its size and its CRC-32 (8 hex digits). */
export interface SnapshotFile {
  file: string;
  bytes: number;
  crc32: string;
}

/** Format 3 (the only one read): the index file, and the exact copies listed beside its nodes (pairs of float64 copy
 * and node labels; null when there are none). Formats 1 and 2 held every copy as a node of the graph, which leaves
 * other vectors unreachable in a bank made mostly of copies: their graphs are built again. */
export interface SnapshotMeta extends SnapshotFile {
  format: 3;
  bankId: string;
  bankCreatedAt: string;
  dim: number;
  seq: number;
  copies: SnapshotFile | null;
  m: number;
  efConstruction: number;
  writtenAt: string;
}

export const bankKey = (bankId: string): string => `bank-${createHash('sha256').update(bankId).digest('hex').slice(0, 24)}`;

/** A file name the meta file may name: a plain name in the snapshot directory, nothing that leads out of it. */
const plainName = (file: unknown): file is string => typeof file === 'string' && /^[\w.-]+$/.test(file);

/** Whether a snapshot's file in dir is whole: a plain name, its size and its checksum those the meta file names. */
export async function snapshotFileMatches(dir: string, named: SnapshotFile): Promise<boolean> {
  if (!plainName(named.file)) return false;
  const path = join(dir, named.file);
  return statSync(path).size === named.bytes && (await crc32Of(path)) === named.crc32;
}

/** A snapshot's file read whole, when it is (as snapshotFileMatches checks, on the bytes read); else null. */
export async function readSnapshotFile(dir: string, named: SnapshotFile): Promise<Buffer | null> {
  if (!plainName(named.file)) return null;
  const bytes = await readFile(join(dir, named.file));
  return bytes.length === named.bytes && crc32(bytes) === named.crc32 ? bytes : null;
}

/** Describes a file of a snapshot written by someone else (hnswlib). */
export async function snapshotFile(dir: string, file: string): Promise<SnapshotFile> {
  const path = join(dir, file);
  return { file, bytes: statSync(path).size, crc32: await crc32Of(path) };
}

/** Writes a file of a snapshot and describes it from the bytes written. */
export async function writeSnapshotFile(dir: string, file: string, bytes: Uint8Array): Promise<SnapshotFile> {
  await writeFile(join(dir, file), bytes);
  return { file, bytes: bytes.length, crc32: crc32(bytes) };
}

function crc32(bytes: Uint8Array): string {
  const check = flatBody.bodyCheck(2);
  check.update(bytes);
  return check.digest();
}

/** The file's CRC-32 (8 hex digits), read a few megabytes at a time into one buffer. */
async function crc32Of(path: string): Promise<string> {
  const file = await open(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(4 << 20);
    const check = flatBody.bodyCheck(2);
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
