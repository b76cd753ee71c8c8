// Identifiers: time-sortable random ids with a short type prefix, and content hashes.
import { createHash, randomBytes } from 'node:crypto';

let lastMs = 0;
let counter = 0;

/** A new id such as `fct_0193b2c4d5e6_9f8a7b6c5d4e`: prefix, hex milliseconds plus a counter, random tail. */
export function newId(prefix: string): string {
  const now = Date.now();
  counter = now === lastMs ? counter + 1 : 0;
  lastMs = now;
  const time = now.toString(16).padStart(12, '0') + counter.toString(16).padStart(3, '0');
  return `${prefix}_${time}${randomBytes(6).toString('hex')}`;
}

/** Stable sha256 hex digest of the given parts. */
export function contentHash(...parts: Array<string | null | undefined>): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(p ?? '\u0000');
    h.update('\u0001');
  }
  return h.digest('hex');
}

/** A deterministic id derived from content, used where re-applying a write must be idempotent. */
export function derivedId(prefix: string, ...parts: string[]): string {
  return `${prefix}_${contentHash(...parts).slice(0, 24)}`;
}
