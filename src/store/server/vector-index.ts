// The server store's VectorIndex: k-NN in Qdrant (filtered by bank, kinds, tags and record time in the payload),
// then Neo4j, the system of record, confirms each hit is a visible fact passing the whole filter (not superseded,
// not staged by an unfinished write, not deleted since, in the occurred and valid time asked for). Hits that fail are dropped and Qdrant is asked for more,
// so a point left behind by a crash can never be returned.
import type { FactFilter, Scored, VectorIndex } from '../ports.ts';
import type { Neo4jConnection } from '../neo4j/connection.ts';
import type { Neo4jRecords } from '../neo4j/records.ts';
import { confirmFacts } from '../neo4j/statements/search.ts';
import type { QdrantVectors } from '../qdrant/vectors.ts';

/** The most candidates one search asks Qdrant for. */
const MAX_CANDIDATES = 4096;

export class ServerVectorIndex implements VectorIndex {
  constructor(
    private readonly db: Neo4jConnection,
    private readonly records: Neo4jRecords,
    private readonly qdrant: QdrantVectors,
  ) {}

  async search(bankId: string, vector: Float32Array, k: number, filter: FactFilter = {}): Promise<Scored[]> {
    if (k <= 0) return [];
    const bank = await this.records.getBank(bankId);
    if (!bank?.embedder) return [];
    let limit = Math.min(MAX_CANDIDATES, Math.max(k * 2, k + 16));
    for (;;) {
      const hits = await this.qdrant.search(bank.embedder, bankId, vector, limit, filter);
      const confirmed = hits.length
        ? new Set(
            (
              await this.db.read(
                confirmFacts(
                  bankId,
                  hits.map((h) => h.factId),
                  filter,
                ),
              )
            ).map((r) => String(r.id)),
          )
        : new Set<string>();
      const out = hits.filter((h) => confirmed.has(h.factId)).slice(0, k);
      if (out.length >= k || hits.length < limit || limit >= MAX_CANDIDATES) return out.map((h) => ({ id: h.factId, score: h.score }));
      limit = Math.min(MAX_CANDIDATES, limit * 4);
    }
  }

  async searchMany(bankId: string, vectors: Float32Array[], k: number, filter: FactFilter = {}, minScore = -Infinity): Promise<Scored[][]> {
    const out: Scored[][] = [];
    for (const vector of vectors) out.push((await this.search(bankId, vector, k, filter)).filter((h) => h.score >= minScore));
    return out;
  }
}
