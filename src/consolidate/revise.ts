// After deletions: the store has already blanked every observation that cited a deleted fact (text, entities,
// vector and history redacted, in the delete's own transaction). Here each blanked observation is rebuilt from
// the evidence it has left (new text, entities, times and vector, one 'evidence-removed' revision naming the
// deleted facts by id only), or removed with a tombstone when no evidence is left. Idempotent: it only touches
// observations that are still blank, so it also repairs what a crash between delete and rebuild left behind.
import { CairnError, newId, nowIso, type Fact, type Observation, type ObservationRevision } from '../core/index.ts';
import type { Embedder } from '../embed/index.ts';
import { log } from '../log.ts';
import {
  FORGOTTEN_TEXT,
  type AuditReads,
  type BankStore,
  type ConsolidationQueue,
  type DeleteResult,
  type Forgetting,
  type RecallReads,
} from '../store/index.ts';
import type { Consolidator } from './consolidator.ts';
import { factTime } from './synthesis.ts';

export interface ReviseDeps {
  /** Reads the blanked observations and their evidence; writes the rebuilt ones, deletes those left with none. */
  store: BankStore & RecallReads & AuditReads & ConsolidationQueue & Forgetting;
  embedder: Embedder;
  consolidator: Consolidator;
}

export interface ReviseResult {
  revised: string[];
  removed: string[];
}

const minOf = (xs: Array<string | null>): string | null => xs.filter((x): x is string => !!x).sort()[0] ?? null;
const maxOf = (xs: Array<string | null>): string | null =>
  xs
    .filter((x): x is string => !!x)
    .sort()
    .at(-1) ?? null;

/** Rebuilds (or removes) the observations a deletion blanked. */
export async function reviseAfterDelete(deps: ReviseDeps, bankId: string, deleted: DeleteResult): Promise<ReviseResult> {
  return reviseObservations(deps, bankId, deleted.observationIds, new Set(deleted.factIds));
}

/** Finds observations of the bank still blank (e.g. the process died between a delete and its rebuild) and rebuilds them. */
export async function repairBlanked(deps: ReviseDeps, bankId: string): Promise<ReviseResult> {
  const hits = await deps.store.keywords.searchFacts(bankId, FORGOTTEN_TEXT, 10_000, { kinds: ['observation'] });
  const blank = (
    await deps.store.getFacts(
      bankId,
      hits.map((h) => h.id),
    )
  )
    .filter((f) => f.text === FORGOTTEN_TEXT)
    .map((f) => f.id);
  return blank.length ? reviseObservations(deps, bankId, blank, new Set()) : { revised: [], removed: [] };
}

async function reviseObservations(
  deps: ReviseDeps,
  bankId: string,
  observationIds: string[],
  deletedIds: Set<string>,
): Promise<ReviseResult> {
  const result: ReviseResult = { revised: [], removed: [] };
  if (observationIds.length === 0) return result;
  for (let attempt = 1; ; attempt++) {
    try {
      await reviseOnce(deps, bankId, observationIds, deletedIds, result);
      return result;
    } catch (e) {
      // Another writer revised one of them meanwhile: read again and redo what is still blank.
      if (!(e instanceof CairnError && e.code === 'conflict') || attempt >= 3) throw e;
      log.debug(`revise: ${e.message}; retrying`);
    }
  }
}

async function reviseOnce(deps: ReviseDeps, bankId: string, ids: string[], deletedIds: Set<string>, result: ReviseResult): Promise<void> {
  const { store, embedder, consolidator } = deps;
  const bank = await store.getBank(bankId);
  if (!bank) return;
  const now = nowIso();
  const rebuilt: Observation[] = [];
  const revisions: ObservationRevision[] = [];
  const remove: string[] = [];
  const read = new Map<string, string>();
  for (const observation of await store.getObservations(bankId, ids)) {
    if (observation.text !== FORGOTTEN_TEXT) continue;
    read.set(observation.id, observation.updatedAt);
    const evidence = await store.evidenceOf(bankId, observation.id);
    const facts = new Map(
      (
        await store.getFacts(
          bankId,
          evidence.map((e) => e.factId),
        )
      ).map((f) => [f.id, f]),
    );
    const remaining = evidence.flatMap((e) => {
      const fact = facts.get(e.factId);
      return fact ? [{ fact, role: e.role }] : [];
    });
    const text = remaining.length ? (await consolidator.resynthesize(bank, observation, remaining)).trim() : '';
    if (!text) {
      remove.push(observation.id);
      continue;
    }
    const kept: Fact[] = remaining.map((r) => r.fact);
    const history = await store.historyOf(bankId, observation.id);
    const lost = [...new Set(history.flatMap((r) => r.factIds).filter((id) => deletedIds.has(id) || !facts.has(id)))];
    rebuilt.push({
      ...observation,
      text,
      entities: [...new Set(kept.flatMap((f) => f.entities))],
      occurredStart: minOf(kept.map((f) => f.occurredStart)),
      occurredEnd: maxOf(kept.map((f) => f.occurredEnd ?? f.occurredStart)),
      mentionedAt: maxOf(kept.map((f) => f.mentionedAt)) ?? observation.mentionedAt,
      validFrom: minOf(kept.map(factTime)),
      updatedAt: now,
      proofCount: remaining.filter((r) => r.role === 'supports').length,
    });
    revisions.push({
      id: newId('rev'),
      observationId: observation.id,
      oldText: null,
      newText: text,
      factIds: lost,
      reason: 'evidence-removed',
      at: now,
    });
  }
  if (rebuilt.length) {
    const vectors = await embedder.embed(rebuilt.map((o) => o.text));
    await store.applyObservations({
      bankId,
      observations: rebuilt,
      vectors: rebuilt.map((o, i) => ({ id: o.id, vector: vectors[i] })),
      embedder: embedder.id,
      evidence: [],
      revisions,
      supersede: [],
      removeObservationIds: [],
      consolidatedFactIds: [],
      workerId: 'revise',
      expectUnchanged: rebuilt.map((o) => ({ id: o.id, updatedAt: read.get(o.id) ?? '' })),
    });
    result.revised.push(...rebuilt.map((o) => o.id));
  }
  if (remove.length) {
    await store.deleteFacts(bankId, remove, 'observation removed: no evidence left after a deletion');
    result.removed.push(...remove);
  }
}
