// Results grouped by source passage (recall `group: 'source'`): for callers who want whole messages as context, each
// passage a result came from (the chunk it was read from: a message, or a section of a long one) is returned once,
// in the order of its best result, with the ids and spans of its results. The token budget then counts each
// passage's text once (its results' texts are inside it); an observation, which has no passage, counts its own.
import type { Chunk } from '../core/index.ts';
import { countTokens } from '../text/index.ts';
import type { RecallPassage, RecallResult } from './types.ts';

export interface Grouped {
  results: RecallResult[];
  passages: RecallPassage[];
  tokens: number;
}

/** The results (in order) with their passages, while the passages' texts fit in maxTokens. */
export function groupBySource(
  results: Array<Omit<RecallResult, 'tokens'>>,
  chunks: ReadonlyMap<string, Chunk>,
  maxTokens: number,
): Grouped {
  const passages = new Map<string, RecallPassage>();
  const kept: RecallResult[] = [];
  let tokens = 0;
  for (const r of results) {
    const own = countTokens(r.text);
    const chunk = r.source ? chunks.get(r.source.chunkId) : undefined;
    const passage = chunk ? passages.get(chunk.id) : undefined;
    if (chunk && r.source && !passage) {
      const n = countTokens(chunk.text);
      if (tokens + n > maxTokens) break;
      tokens += n;
      passages.set(chunk.id, {
        chunkId: chunk.id,
        documentId: chunk.documentId,
        itemId: chunk.itemId,
        text: chunk.text,
        speaker: chunk.speaker,
        timestamp: chunk.timestamp,
        session: r.session,
        score: r.score,
        tokens: n,
        results: [{ id: r.id, start: r.source.start, end: r.source.end }],
      });
    } else if (passage && r.source) {
      passage.results.push({ id: r.id, start: r.source.start, end: r.source.end });
    } else {
      if (tokens + own > maxTokens) break;
      tokens += own;
    }
    kept.push({ ...r, tokens: own });
  }
  return { results: kept, passages: [...passages.values()], tokens };
}
