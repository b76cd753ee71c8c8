// Snapshot files beside the database: <key>.json names an immutable HNSW index file <key>-<seq>-<nonce>.hnsw with its
// size and sha256, so a partial or foreign file is never handed to hnswlib (which can crash on one); <key>.flat holds
// the flat store (flat.ts encode). Every file is written then renamed.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';

export interface SnapshotMeta {
  format: 1;
  bankId: string;
  bankCreatedAt: string;
  dim: number;
  seq: number;
  file: string;
  bytes: number;
  sha256: string;
  m: number;
  efConstruction: number;
  writtenAt: string;
}


export const bankKey = (bankId: string): string => 'bank-' + createHash('sha256').update(bankId).digest('hex').slice(0, 24);

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
