// The portable archive of one bank: JSON Lines, versioned. The first line is the header
//   {"format":"cairn-export","version":3,"bank":{...},"embedder":"<id>"|null,"vectors":true|false,"exportedAt":"..."}
// then one record per line, in this order: entities; each document followed by its chunks; facts and observations
// in the store's insertion order (observations carry their evidence and history); links; each thread followed by
// its messages in seq order; the memory items (observations, reflections) of every record in creation order;
// working-memory documents; tombstones; and a last `end` record with the counts, so a truncated archive is
// recognised. Messages and items carry their bridge state, so nothing is handed to the fact memory twice.
// Vectors, when included, are the float32 bytes in base64. Version 1 (still read) ended after the links; version 2
// (still read) had no tombstones of deleted threads, which a Cairn reading version 2 refuses by kind (version 3 tells
// it to upgrade instead).
import type { Bank, Chunk, DocumentRecord, Entity, Evidence, Fact, FactLink, ObservationRevision } from '../core/index.ts';
import type { Tombstone } from '../store/index.ts';
import type { StoredItem, StoredMessage, Thread, WorkingMemory } from '../threads/index.ts';

export const EXPORT_FORMAT = 'cairn-export';
export const EXPORT_VERSION = 3;

export interface ExportHeader {
  format: typeof EXPORT_FORMAT;
  version: number;
  bank: Bank;
  /** Embedder of the bank's vectors (null when it has none). */
  embedder: string | null;
  /** Whether fact records carry their vectors. */
  vectors: boolean;
  exportedAt: string;
}

export type ExportRecord =
  | { type: 'entity'; entity: Entity }
  | { type: 'document'; document: DocumentRecord }
  | { type: 'chunk'; chunk: Chunk }
  | { type: 'fact'; fact: Fact; vector?: string }
  | { type: 'observation'; observation: Fact; evidence: Evidence[]; history: ObservationRevision[]; vector?: string }
  | { type: 'link'; link: Omit<FactLink, 'bankId'> }
  | { type: 'thread'; thread: Thread }
  | { type: 'message'; message: StoredMessage }
  | { type: 'memory'; item: StoredItem }
  | { type: 'working-memory'; workingMemory: WorkingMemory }
  | { type: 'tombstone'; tombstone: Tombstone }
  | { type: 'end'; counts: ExportCounts };

export interface ExportCounts {
  entities: number;
  documents: number;
  chunks: number;
  facts: number;
  observations: number;
  links: number;
  vectors: number;
  threads: number;
  messages: number;
  memoryItems: number;
  workingMemory: number;
  tombstones: number;
}

export const emptyCounts = (): ExportCounts => ({
  entities: 0,
  documents: 0,
  chunks: 0,
  facts: 0,
  observations: 0,
  links: 0,
  vectors: 0,
  threads: 0,
  messages: 0,
  memoryItems: 0,
  workingMemory: 0,
  tombstones: 0,
});

/** Counts an `end` record announces; a version 1 archive names none of the thread or tombstone counts (they are 0). */
export const announcedCounts = (counts: Partial<ExportCounts>): ExportCounts => ({ ...emptyCounts(), ...counts });

export function encodeVector(v: Float32Array): string {
  return Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64');
}

export function decodeVector(text: string): Float32Array {
  const bytes = Buffer.from(text, 'base64');
  if (bytes.byteLength % 4 !== 0) throw new Error('a vector in the archive is not a whole number of float32 values');
  const out = new Float32Array(bytes.byteLength / 4);
  new Uint8Array(out.buffer).set(bytes);
  return out;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses and checks the header line; a newer version than this Cairn reads is refused. */
export function parseHeader(line: string): ExportHeader {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new Error('not a Cairn export: the first line is not JSON');
  }
  if (!isRecord(raw) || raw.format !== EXPORT_FORMAT)
    throw new Error(`not a Cairn export: the first line has no "format": "${EXPORT_FORMAT}"`);
  if (typeof raw.version !== 'number' || raw.version < 1) throw new Error('the export has no valid version');
  if (raw.version > EXPORT_VERSION)
    throw new Error(`the export is version ${raw.version}; this Cairn reads version ${EXPORT_VERSION}: upgrade Cairn`);
  if (!isRecord(raw.bank) || typeof raw.bank.id !== 'string') throw new Error('the export header has no bank');
  return raw as unknown as ExportHeader;
}

const TYPES = new Set([
  'entity',
  'document',
  'chunk',
  'fact',
  'observation',
  'link',
  'thread',
  'message',
  'memory',
  'working-memory',
  'tombstone',
  'end',
]);

export function parseRecord(line: string, lineNumber: number): ExportRecord {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch {
    throw new Error(`line ${lineNumber} of the export is not JSON`);
  }
  if (!isRecord(raw) || typeof raw.type !== 'string' || !TYPES.has(raw.type))
    throw new Error(`line ${lineNumber} of the export is not a known record`);
  return raw as unknown as ExportRecord;
}
