// Cypher for thread memory (the ThreadStore port on Neo4j, store/neo4j/threads.ts): (:Thread), its
// (:ThreadMessage)s numbered by `seq` within the thread, (:ThreadMemoryItem)s ordered by `rid` within the bank,
// (:WorkingMemory) documents, and one (:ThreadItemCounter) per bank handing out `rid`s. Every node carries its
// bank id and is found through it (migrations/neo4j/013_threads_usage.cypher). Nodes are linked by properties, as
// chunks are to documents, not relationships: every read is a bank-scoped index lookup, and deletes need no DETACH.
import { cypher, int, type Params, type Statement } from '../statement.ts';

// threads

export const getThread = (bankId: string, id: string): Statement =>
  cypher('MATCH (t:Thread {bankId: $bankId, id: $id}) RETURN t {.*} AS thread', { bankId, id });

/** Creates the thread or replaces its resource, settings and update time (its messages, memory and lastSeq stay). */
export const saveThread = (p: {
  bankId: string;
  id: string;
  resourceId: string | null;
  settings: string;
  createdAt: string;
  updatedAt: string;
}): Statement =>
  cypher(
    `MERGE (t:Thread {bankId: $bankId, id: $id})
     ON CREATE SET t.createdAt = $createdAt
     SET t.resourceId = $resourceId, t.settings = $settings, t.updatedAt = $updatedAt`,
    p,
  );

/** The bank's threads (of one resource when $resourceId is not null) by creation time, then id. */
export const listThreads = (bankId: string, resourceId: string | null, limit: number, offset: number): Statement =>
  cypher(
    `MATCH (t:Thread {bankId: $bankId}) WHERE $resourceId IS NULL OR t.resourceId = $resourceId
     RETURN t {.*} AS thread ORDER BY thread.createdAt, thread.id SKIP $offset LIMIT $limit`,
    { bankId, resourceId, offset: int(offset), limit: int(limit) },
  );

/**
 * Takes the thread's write lock for the rest of the transaction (writing a property locks the node; Neo4j reads
 * at read-committed, so only a lock held before reading makes read-then-write safe) and returns the last seq
 * handed out in the thread. No row when the thread does not exist.
 */
export const lockThread = (bankId: string, id: string, now: string): Statement =>
  cypher(
    `MATCH (t:Thread {bankId: $bankId, id: $id})
     SET t.lockedAt = $now
     WITH t
     RETURN coalesce(t.lastSeq, 0) AS lastSeq`,
    { bankId, id, now },
  );

/** Creates the messages (properties complete, seq included) and records the thread's last seq. */
export const createMessages = (bankId: string, threadId: string, messages: Params[], lastSeq: number): Statement =>
  cypher(
    `MATCH (t:Thread {bankId: $bankId, id: $threadId})
     SET t.lastSeq = $lastSeq
     WITH t
     UNWIND $messages AS m
     CREATE (x:ThreadMessage)
     SET x = m`,
    { bankId, threadId, messages, lastSeq: int(lastSeq) },
  );

/** Which of the seqs the thread's messages already hold. */
export const takenSeqs = (bankId: string, threadId: string, seqs: number[]): Statement =>
  cypher('MATCH (m:ThreadMessage {bankId: $bankId, threadId: $threadId}) WHERE m.seq IN $seqs RETURN m.seq AS seq', {
    bankId,
    threadId,
    seqs: seqs.map((s) => int(s)),
  });

/** Everything of the thread: its record's items, its observations in other records, its working memory, messages, itself. */
export const deleteThread = (bankId: string, threadId: string): Statement[] => [
  cypher('MATCH (i:ThreadMemoryItem {bankId: $bankId, recordId: $recordId}) DELETE i', { bankId, recordId: `thread:${threadId}` }),
  cypher(`MATCH (i:ThreadMemoryItem {bankId: $bankId, threadId: $threadId, kind: 'observation'}) DELETE i`, { bankId, threadId }),
  cypher('MATCH (w:WorkingMemory {bankId: $bankId, key: $key}) DELETE w', { bankId, key: `thread:${threadId}` }),
  cypher('MATCH (m:ThreadMessage {bankId: $bankId, threadId: $threadId}) DELETE m', { bankId, threadId }),
  cypher('MATCH (t:Thread {bankId: $bankId, id: $threadId}) DELETE t', { bankId, threadId }),
];

// messages

/** Messages after a seq in seq order, optionally not yet bridged; paged. */
export const listMessages = (
  bankId: string,
  threadId: string,
  q: { afterSeq: number; limit: number; offset: number; unbridged: boolean },
): Statement =>
  cypher(
    `MATCH (m:ThreadMessage {bankId: $bankId, threadId: $threadId}) WHERE m.seq > $afterSeq AND (NOT $unbridged OR m.bridgedAt IS NULL)
     RETURN m {.*} AS message ORDER BY message.seq SKIP $offset LIMIT $limit`,
    { bankId, threadId, afterSeq: int(q.afterSeq), unbridged: q.unbridged, offset: int(q.offset), limit: int(q.limit) },
  );

export const countMessages = (bankId: string, threadId: string): Statement =>
  cypher('MATCH (m:ThreadMessage {bankId: $bankId, threadId: $threadId}) RETURN count(m) AS count, coalesce(sum(m.tokens), 0) AS tokens', {
    bankId,
    threadId,
  });

export const markMessagesBridged = (bankId: string, ids: string[], at: string): Statement =>
  cypher('UNWIND $ids AS id MATCH (m:ThreadMessage {bankId: $bankId, id: id}) SET m.bridgedAt = $at', { bankId, ids, at });

// memory items

/**
 * Hands out `count` consecutive rids of the bank (the first is returned), under the counter's write lock: an
 * explicit creation order, since Neo4j has no rowid. The counter's uniqueness constraint makes concurrent first
 * MERGEs create one node.
 */
export const takeRids = (bankId: string, count: number, now: string): Statement =>
  cypher(
    `MERGE (c:ThreadItemCounter {bankId: $bankId})
     SET c.lockedAt = $now
     WITH c, coalesce(c.lastRid, 0) AS last
     SET c.lastRid = last + $count
     RETURN last + 1 AS first`,
    { bankId, count: int(count), now },
  );

export const createItems = (items: Params[]): Statement => cypher('UNWIND $items AS i CREATE (x:ThreadMemoryItem) SET x = i', { items });

/** Applies each patch to the bank's item of that id; returns the ids found. */
export const updateItems = (bankId: string, updates: Array<{ id: string; patch: Params }>): Statement =>
  cypher(
    `UNWIND $updates AS u
     MATCH (x:ThreadMemoryItem {bankId: $bankId, id: u.id})
     SET x += u.patch
     RETURN u.id AS id`,
    { bankId, updates },
  );

export const removeItems = (bankId: string, ids: string[]): Statement =>
  cypher('UNWIND $ids AS id MATCH (x:ThreadMemoryItem {bankId: $bankId, id: id}) DELETE x', { bankId, ids });

/** A record's items in creation order; null filters filter nothing. */
export const listItems = (
  bankId: string,
  recordId: string,
  f: { statuses: string[] | null; kinds: string[] | null; threadId: string | null; limit: number | null },
): Statement =>
  cypher(
    `MATCH (x:ThreadMemoryItem {bankId: $bankId, recordId: $recordId})
     WHERE ($statuses IS NULL OR x.status IN $statuses) AND ($kinds IS NULL OR x.kind IN $kinds) AND ($threadId IS NULL OR x.threadId = $threadId)
     RETURN x {.*} AS item ORDER BY item.rid${f.limit === null ? '' : ' LIMIT $limit'}`,
    { bankId, recordId, statuses: f.statuses, kinds: f.kinds, threadId: f.threadId, ...(f.limit === null ? {} : { limit: int(f.limit) }) },
  );

/** Deletes the record's items (only running ones when $onlyRunning); returns how many. */
export const deleteItemsOfRecord = (bankId: string, recordId: string, onlyRunning: boolean): Statement =>
  cypher(
    `MATCH (x:ThreadMemoryItem {bankId: $bankId, recordId: $recordId}) WHERE NOT $onlyRunning OR x.status = 'running'
     DELETE x
     RETURN count(*) AS deleted`,
    { bankId, recordId, onlyRunning },
  );

export const watermarks = (bankId: string, threadId: string): Statement =>
  cypher(
    `MATCH (x:ThreadMemoryItem {bankId: $bankId, threadId: $threadId, kind: 'observation'})
     RETURN coalesce(max(CASE WHEN x.status IN ['active', 'archived'] THEN x.toSeq END), 0) AS observed, coalesce(max(x.toSeq), 0) AS buffered`,
    { bankId, threadId },
  );

export const unbridgedObservations = (bankId: string, recordId: string, limit: number): Statement =>
  cypher(
    `MATCH (x:ThreadMemoryItem {bankId: $bankId, recordId: $recordId, kind: 'observation'})
     WHERE x.status IN ['active', 'archived'] AND x.bridgedAt IS NULL
     RETURN x {.*} AS item ORDER BY item.rid LIMIT $limit`,
    { bankId, recordId, limit: int(limit) },
  );

export const markItemsBridged = (bankId: string, ids: string[], at: string): Statement =>
  cypher('UNWIND $ids AS id MATCH (x:ThreadMemoryItem {bankId: $bankId, id: id}) SET x.bridgedAt = $at', { bankId, ids, at });

/** The bank's items of every record in creation order, paged. */
export const exportItems = (bankId: string, limit: number, offset: number): Statement =>
  cypher('MATCH (x:ThreadMemoryItem {bankId: $bankId}) RETURN x {.*} AS item ORDER BY item.rid SKIP $offset LIMIT $limit', {
    bankId,
    offset: int(offset),
    limit: int(limit),
  });

// working memory

export const getWorkingMemory = (bankId: string, key: string): Statement =>
  cypher('MATCH (w:WorkingMemory {bankId: $bankId, key: $key}) RETURN w {.*} AS doc', { bankId, key });

export const putWorkingMemory = (p: { bankId: string; key: string; content: string; updatedAt: string }): Statement =>
  cypher('MERGE (w:WorkingMemory {bankId: $bankId, key: $key}) SET w.content = $content, w.updatedAt = $updatedAt', p);

export const deleteWorkingMemory = (bankId: string, key: string): Statement =>
  cypher('MATCH (w:WorkingMemory {bankId: $bankId, key: $key}) DELETE w RETURN count(*) AS deleted', { bankId, key });

export const listWorkingMemory = (bankId: string): Statement =>
  cypher('MATCH (w:WorkingMemory {bankId: $bankId}) RETURN w {.*} AS doc ORDER BY doc.key', { bankId });

// the whole bank

/** The labels of thread memory, each node carrying its bank id (deleted with the bank). */
export const THREAD_LABELS = ['ThreadMemoryItem', 'WorkingMemory', 'ThreadMessage', 'Thread', 'ThreadItemCounter'] as const;

const DELETE_OF_BANK: Record<(typeof THREAD_LABELS)[number], string> = {
  ThreadMemoryItem: 'MATCH (n:ThreadMemoryItem {bankId: $bankId}) DELETE n',
  WorkingMemory: 'MATCH (n:WorkingMemory {bankId: $bankId}) DELETE n',
  ThreadMessage: 'MATCH (n:ThreadMessage {bankId: $bankId}) DELETE n',
  Thread: 'MATCH (n:Thread {bankId: $bankId}) DELETE n',
  ThreadItemCounter: 'MATCH (n:ThreadItemCounter {bankId: $bankId}) DELETE n',
};

export const deleteThreadsOfBank = (bankId: string): Statement[] => THREAD_LABELS.map((label) => cypher(DELETE_OF_BANK[label], { bankId }));
