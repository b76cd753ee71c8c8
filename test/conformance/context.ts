// What every role's conformance tests share: the harness that opens the store under test, the store itself (one
// instance for the whole run, reopened by the restart test), banks named for this run and deleted at the end, and
// builders of seeded banks, operations and observation writes.
import { after, before } from 'node:test';
import type { Fact, Operation } from '../../src/core/types.ts';
import type { MemoryStore, ObservationWrite } from '../../src/store/ports.ts';
import { at, bank, chunk, doc, EMBEDDER, entity, fact, itemWrite, runId, unit } from './fixtures.ts';

export interface StoreHarness {
  /** Opens the store; opening again after close must find everything written before (a restart). */
  open(): Promise<MemoryStore>;
  /** Removes what the run left (banks are deleted by the suite itself; this is for files or connections). */
  cleanup?(): Promise<void>;
}

/** The optional read the keyword arm uses (proposed for the port); checked when the store has it. */
export type ChunkFacts = { factIdsOfChunks?(bankId: string, chunkIds: string[]): Promise<Array<{ factId: string; chunkId: string }>> };

export const idsOf = (xs: Array<{ id: string }>): string[] => xs.map((x) => x.id);
export const sorted = (xs: string[]): string[] => [...xs].sort();

export function observationWrite(bankId: string, o: Partial<ObservationWrite> = {}): ObservationWrite {
  return {
    bankId,
    observations: [],
    vectors: [],
    embedder: EMBEDDER,
    evidence: [],
    revisions: [],
    supersede: [],
    removeObservationIds: [],
    consolidatedFactIds: [],
    workerId: 'conformance',
    ...o,
  };
}

export interface Conformance {
  harness: StoreHarness;
  /** The store under test (read it in each test: the restart test replaces it). */
  readonly store: MemoryStore;
  /** Closes nothing: opens the store again and makes it the one under test (after the caller closed the old one). */
  reopen(): Promise<MemoryStore>;
  /** A bank id of this run. */
  B(name: string): string;
  /** Banks deleted at the end of the run (a test that deletes one itself takes it out). */
  created: Set<string>;
  newBank(name: string): Promise<string>;
  /** A bank with one document: 4 facts over 2 chunks, 2 entities, links, all with vectors. */
  seeded(name: string): Promise<{ bankId: string; facts: Fact[] }>;
  operation(bankId: string, id: string, status: Operation['status']): Operation;
}

/** The shared context of one suite run; call inside its describe (it registers the open and cleanup hooks). */
export function conformanceContext(harness: StoreHarness): Conformance {
  const run = runId();
  const B = (name: string): string => `conf-${run}-${name}`;
  const created = new Set<string>();
  let store: MemoryStore;

  before(async () => {
    store = await harness.open();
  });
  after(async () => {
    for (const id of created) await store.deleteBank(id).catch(() => undefined);
    await store.close();
    await harness.cleanup?.();
  });

  function operation(bankId: string, id: string, status: Operation['status']): Operation {
    return {
      id,
      bankId,
      kind: 'retain',
      status,
      progress: { done: 0, total: 3 },
      input: { items: [{ content: 'x' }] },
      result: null,
      error: null,
      createdAt: at(1),
      updatedAt: at(1),
    };
  }

  async function newBank(name: string): Promise<string> {
    const id = B(name);
    await store.createBank(bank(id, `mission of ${name}`));
    created.add(id);
    return id;
  }

  async function seeded(name: string): Promise<{ bankId: string; facts: Fact[] }> {
    const bankId = await newBank(name);
    const c1 = chunk(bankId, `${bankId}-d1`, `${bankId}-c1`, 0, 'I moved to Berlin to join a robotics startup.', 'Alice');
    const c2 = chunk(bankId, `${bankId}-d1`, `${bankId}-c2`, 1, 'My sister plays the violin in Vienna.', 'Alice');
    const alice = entity(bankId, `${bankId}-e-alice`, 'Alice', ['Ali'], 3);
    const anna = entity(bankId, `${bankId}-e-anna`, 'Anna', [], 1);
    const facts = [
      fact(bankId, `${bankId}-f1`, 'Alice moved to Berlin', {
        chunk: c1,
        entities: [alice.id],
        tags: ['move'],
        occurredStart: at(10),
        createdAt: at(3, 1),
      }),
      fact(bankId, `${bankId}-f2`, 'Alice joined a robotics startup', {
        chunk: c1,
        entities: [alice.id],
        tags: ['work'],
        occurredStart: at(20),
        createdAt: at(3, 2),
      }),
      fact(bankId, `${bankId}-f3`, 'Anna plays the violin', {
        chunk: c2,
        entities: [anna.id, alice.id],
        kind: 'experience',
        createdAt: at(3, 3),
      }),
      fact(bankId, `${bankId}-f4`, 'Anna lives in Vienna', {
        chunk: c2,
        entities: [anna.id],
        tags: ['move', 'work'],
        occurredStart: at(25),
        occurredEnd: at(28),
        createdAt: at(4),
      }),
    ];
    await store.writeItem(
      itemWrite(
        bankId,
        doc(bankId, `${bankId}-d1`),
        [c1, c2],
        facts.map((f, i) => ({ fact: f, vector: unit(i) })),
        {
          entities: [alice, anna],
          links: [
            { bankId, from: facts[0].id, to: facts[1].id, type: 'temporal', weight: 1 },
            { bankId, from: facts[1].id, to: facts[2].id, type: 'causal', weight: 0.5 },
          ],
        },
      ),
    );
    return { bankId, facts };
  }

  return {
    harness,
    get store() {
      return store;
    },
    async reopen() {
      store = await harness.open();
      return store;
    },
    B,
    created,
    newBank,
    seeded,
    operation,
  };
}
