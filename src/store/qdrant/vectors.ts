// The Qdrant adapter: fact vectors in one collection per embedder, every bank in it under a tenant payload index
// (layout and HNSW settings: migrations/qdrant/001_facts.json, which says why). Collections are created at the
// first write of an embedder, with the vector size of that write; at start the specs are applied again to every
// existing collection. Upserts go in batches and wait for Qdrant to apply them (a write returns only once its
// points are searchable); point ids derive from fact ids, so writing twice is harmless.
import { QdrantClient, type Schemas } from '@qdrant/js-client-rest';
import type { FactFilter } from '../ports.ts';
import { bankFilter, searchFilter } from './filter.ts';
import { collectionName, payloadOf, pointId, type PointSource } from './points.ts';
import { creationBody, payloadIndexes, readSpecs, type CollectionSpec } from './spec.ts';

export interface QdrantOptions {
  url: string;
  apiKey?: string;
  /** Collection names start with `<prefix>_` (default 'cairn'); reconcile and bank deletion only touch those. */
  collectionPrefix?: string;
  specsDir?: string;
  /** Points per upsert or delete request (default 256). */
  batchSize?: number;
}

export interface PointWrite {
  source: PointSource;
  vector: Float32Array;
}

export interface VectorHit {
  factId: string;
  score: number;
}

export interface StoredPoint {
  pointId: string;
  factId: string;
  bankId: string;
}

const vectorOf = (v: unknown): Float32Array | null =>
  Array.isArray(v) && v.every((x) => typeof x === 'number') ? Float32Array.from(v as number[]) : null;

const factIdOf = (payload: unknown): string | null => {
  const id = (payload as Record<string, unknown> | null | undefined)?.fact_id;
  return typeof id === 'string' ? id : null;
};

export class QdrantVectors {
  readonly client: QdrantClient;
  readonly prefix: string;
  private readonly specs: CollectionSpec[];
  private readonly batchSize: number;
  /** Collections known to exist, with their specs applied (per process). */
  private readonly ready = new Map<string, Promise<void>>();
  /** Collections seen to exist (collections are never dropped by Cairn, so this only grows). */
  private readonly known = new Set<string>();

  constructor(options: QdrantOptions) {
    this.client = new QdrantClient({ url: options.url, apiKey: options.apiKey, checkCompatibility: false });
    this.prefix = options.collectionPrefix ?? 'cairn';
    if (!/^[a-z0-9][a-z0-9-]*$/.test(this.prefix))
      throw new Error(`collection prefix '${this.prefix}' must be lowercase letters, digits and dashes`);
    this.specs = readSpecs(options.specsDir);
    this.batchSize = options.batchSize ?? 256;
  }

  collectionOf(embedder: string): string {
    return collectionName(this.prefix, embedder);
  }

  /** Cairn's collections (those with the prefix). */
  async collections(): Promise<string[]> {
    const { collections } = await this.client.getCollections();
    return collections.map((c) => c.name).filter((n) => n.startsWith(`${this.prefix}_`));
  }

  /** Applies the specs to every existing collection (at start). Returns the collections updated. */
  async migrate(): Promise<string[]> {
    const names = await this.collections();
    for (const name of names) await this.applySpecs(name);
    return names;
  }

  private async applySpecs(name: string): Promise<void> {
    for (const index of payloadIndexes(this.specs))
      await this.client.createPayloadIndex(name, { field_name: index.field_name, field_schema: index.field_schema, wait: true });
    for (const spec of this.specs) if (spec.update) await this.client.updateCollection(name, spec.update);
  }

  private async exists(name: string): Promise<boolean> {
    if (this.known.has(name)) return true;
    const { exists } = await this.client.collectionExists(name);
    if (exists) this.known.add(name);
    return exists;
  }

  /** Creates the embedder's collection for vectors of `size` dimensions unless it exists. */
  async ensure(embedder: string, size: number): Promise<string> {
    const name = this.collectionOf(embedder);
    let ready = this.ready.get(name);
    if (!ready) {
      ready = (async () => {
        if (!(await this.exists(name))) {
          try {
            await this.client.createCollection(name, creationBody(this.specs, size));
          } catch (e) {
            // Another process may have created it meanwhile.
            if (!(await this.exists(name))) throw e;
          }
        }
        await this.applySpecs(name);
      })();
      this.ready.set(name, ready);
      ready.catch(() => this.ready.delete(name));
    }
    await ready;
    return name;
  }

  async upsert(embedder: string, points: PointWrite[]): Promise<void> {
    if (points.length === 0) return;
    const name = await this.ensure(embedder, points[0].vector.length);
    for (let i = 0; i < points.length; i += this.batchSize) {
      const batch = points.slice(i, i + this.batchSize).map((p) => ({
        id: pointId(p.source.id),
        vector: Array.from(p.vector),
        payload: { ...payloadOf(p.source) },
      }));
      await this.client.upsert(name, { wait: true, points: batch });
    }
  }

  async deleteFacts(embedder: string, factIds: string[]): Promise<void> {
    const name = this.collectionOf(embedder);
    if (factIds.length === 0 || !(await this.exists(name))) return;
    for (let i = 0; i < factIds.length; i += this.batchSize)
      await this.client.delete(name, { wait: true, points: factIds.slice(i, i + this.batchSize).map(pointId) });
  }

  /** Deletes a bank's points from every Cairn collection. */
  async deleteBank(bankId: string): Promise<void> {
    for (const name of await this.collections()) await this.client.delete(name, { wait: true, filter: bankFilter(bankId) });
  }

  /** Deletes a bank's points from one collection (after the bank changed embedder, its old vectors go). */
  async deleteBankIn(embedder: string, bankId: string): Promise<void> {
    const name = this.collectionOf(embedder);
    if (await this.exists(name)) await this.client.delete(name, { wait: true, filter: bankFilter(bankId) });
  }

  async search(embedder: string, bankId: string, vector: Float32Array, limit: number, filter: FactFilter = {}): Promise<VectorHit[]> {
    const name = this.collectionOf(embedder);
    if (!(await this.exists(name))) return [];
    const response = await this.client.query(name, {
      query: Array.from(vector),
      filter: searchFilter(bankId, filter),
      limit,
      with_payload: ['fact_id'],
      with_vector: false,
    });
    const hits: VectorHit[] = [];
    for (const p of response.points) {
      const factId = factIdOf(p.payload);
      if (factId) hits.push({ factId, score: p.score });
    }
    return hits;
  }

  /** Stored vectors of the facts that have a point. */
  async retrieve(embedder: string, factIds: string[]): Promise<Map<string, Float32Array>> {
    const out = new Map<string, Float32Array>();
    for await (const r of this.records(embedder, factIds, true)) {
      const factId = factIdOf(r.payload);
      const vector = vectorOf(r.vector);
      if (factId && vector) out.set(factId, vector);
    }
    return out;
  }

  /** Which of the facts have a point. */
  async existing(embedder: string, factIds: string[]): Promise<Set<string>> {
    const out = new Set<string>();
    for await (const r of this.records(embedder, factIds, false)) {
      const factId = factIdOf(r.payload);
      if (factId) out.add(factId);
    }
    return out;
  }

  /** The points of these facts, read in batches (none when the embedder's collection does not exist yet). */
  private async *records(
    embedder: string,
    factIds: string[],
    withVector: boolean,
  ): AsyncGenerator<{ payload?: unknown; vector?: unknown }> {
    const name = this.collectionOf(embedder);
    if (factIds.length === 0 || !(await this.exists(name))) return;
    for (let i = 0; i < factIds.length; i += this.batchSize) {
      yield* await this.client.retrieve(name, {
        ids: factIds.slice(i, i + this.batchSize).map(pointId),
        with_payload: ['fact_id'],
        with_vector: withVector,
      });
    }
  }

  /** Every point of a collection, a page at a time (for reconcile). */
  async *scroll(collection: string, pageSize = 1000): AsyncGenerator<StoredPoint[]> {
    let offset: Schemas['ExtendedPointId'] | undefined;
    for (;;) {
      const page = await this.client.scroll(collection, {
        limit: pageSize,
        offset,
        with_payload: ['fact_id', 'bank_id'],
        with_vector: false,
      });
      const points: StoredPoint[] = [];
      for (const p of page.points) {
        const payload = (p.payload ?? {}) as Record<string, unknown>;
        points.push({ pointId: String(p.id), factId: String(payload.fact_id ?? ''), bankId: String(payload.bank_id ?? '') });
      }
      if (points.length) yield points;
      const next = page.next_page_offset;
      if (next === null || next === undefined || (typeof next !== 'string' && typeof next !== 'number')) return;
      offset = next;
    }
  }

  /** Deletes points by point id (reconcile's orphans). */
  async deletePoints(collection: string, pointIds: string[]): Promise<void> {
    for (let i = 0; i < pointIds.length; i += this.batchSize)
      await this.client.delete(collection, { wait: true, points: pointIds.slice(i, i + this.batchSize) });
  }
}
