// Recall's include.sourceFacts: the evidence facts of each observation in a result list, with their roles and
// exact source sentences, supporting facts first, newest first within a role.
import type { EvidenceRole, FactKind } from '../core/index.ts';
import type { AuditReads, RecallReads } from '../store/index.ts';
import { sourcesOf, type SourceSpan } from './source.ts';

export interface SourceFact {
  id: string;
  kind: FactKind;
  text: string;
  role: EvidenceRole;
  occurredStart: string | null;
  mentionedAt: string;
  status: 'active' | 'superseded';
  source: SourceSpan | null;
}

export async function sourceFactsOf(
  store: AuditReads & RecallReads,
  bankId: string,
  observationIds: string[],
  limitPerObservation = 20,
): Promise<Map<string, SourceFact[]>> {
  const out = new Map<string, SourceFact[]>();
  for (const id of observationIds) {
    const evidence = (await store.evidenceOf(bankId, id))
      .sort((a, b) => (a.role === b.role ? b.createdAt.localeCompare(a.createdAt) : a.role === 'supports' ? -1 : 1))
      .slice(0, limitPerObservation);
    const facts = new Map(
      (
        await store.getFacts(
          bankId,
          evidence.map((e) => e.factId),
        )
      ).map((f) => [f.id, f]),
    );
    const sources = await sourcesOf(store, bankId, [...facts.values()]);
    out.set(
      id,
      evidence.flatMap((e) => {
        const f = facts.get(e.factId);
        return f
          ? [
              {
                id: f.id,
                kind: f.kind,
                text: f.text,
                role: e.role,
                occurredStart: f.occurredStart,
                mentionedAt: f.mentionedAt,
                status: f.status,
                source: sources.get(f.id) ?? null,
              },
            ]
          : [];
      }),
    );
  }
  return out;
}
