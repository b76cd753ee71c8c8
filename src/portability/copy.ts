// A bank's records as they go into a copy of the bank under another id. Record ids of chunks, facts, observations,
// entities, revisions, messages, memory items and tombstones are unique across a whole store, so a copy beside its
// original needs ids of its own: each is derived from the new bank id and the old id (the same archive copied to
// the same bank id again gets the same ids), and every reference between records is rewritten with it. Document
// and thread ids are per bank and stay (so do item ids, derived per bank, which no store requires to be unique).
import { derivedId, type Fact } from '../core/index.ts';
import type { ExportRecord } from './format.ts';

/** The id a record of the archive gets in a copy under `bankId`; it keeps the old id's type prefix (`fct_`, `chk_`). */
export function copiedId(bankId: string, id: string): string {
  const prefix = /^([A-Za-z]{1,8})_/.exec(id)?.[1] ?? 'cpy';
  return derivedId(prefix, 'copy', bankId, id);
}

/** Metadata keys that name a thread message or a thread memory item (set by the bridge from thread memory). */
const ID_KEYS = ['messageId', 'observationId'];

/** The record with its ids, and the ids it refers to, those of the copy under `bankId`. */
export function copyRecord(r: ExportRecord, bankId: string): ExportRecord {
  const id = (old: string): string => copiedId(bankId, old);
  const metadata = <M extends Record<string, unknown>>(m: M): M => {
    if (!ID_KEYS.some((k) => typeof m[k] === 'string')) return m;
    const out: Record<string, unknown> = { ...m };
    for (const k of ID_KEYS) if (typeof out[k] === 'string') out[k] = id(out[k] as string);
    return out as M;
  };
  const fact = <F extends Fact>(f: F): F => ({
    ...f,
    id: id(f.id),
    entities: f.entities.map(id),
    source: f.source && { ...f.source, chunkId: id(f.source.chunkId) },
    supersededBy: f.supersededBy && id(f.supersededBy),
    metadata: metadata(f.metadata),
  });
  switch (r.type) {
    case 'entity':
      return { ...r, entity: { ...r.entity, id: id(r.entity.id) } };
    case 'document':
      return { ...r, document: { ...r.document, metadata: metadata(r.document.metadata) } };
    case 'chunk':
      return { ...r, chunk: { ...r.chunk, id: id(r.chunk.id), metadata: metadata(r.chunk.metadata) } };
    case 'fact':
      return { ...r, fact: fact(r.fact) };
    case 'observation':
      return {
        ...r,
        observation: fact(r.observation),
        evidence: r.evidence.map((e) => ({ ...e, observationId: id(e.observationId), factId: id(e.factId) })),
        history: r.history.map((h) => ({ ...h, id: id(h.id), observationId: id(h.observationId), factIds: h.factIds.map(id) })),
      };
    case 'link':
      return { ...r, link: { ...r.link, from: id(r.link.from), to: id(r.link.to) } };
    case 'message':
      return { ...r, message: { ...r.message, id: id(r.message.id) } };
    case 'memory':
      return { ...r, item: { ...r.item, id: id(r.item.id), covers: r.item.covers.map(id) } };
    case 'tombstone': {
      const t = r.tombstone;
      const targetId = t.kind === 'fact' || t.kind === 'observation' ? id(t.targetId) : t.kind === 'bank' ? bankId : t.targetId;
      return { ...r, tombstone: { ...t, id: id(t.id), targetId } };
    }
    default:
      return r;
  }
}
