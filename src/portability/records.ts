// The field-by-field check of an archive's records (format.ts), made before anything of them is written: every
// record must have the shape the stores expect (types, enums, whole numbers), every time must be a real ISO 8601
// instant and is turned into the store's canonical form, and every reference between records (a fact's chunk and
// entities, an observation's evidence, a link's facts) must name a record of the archive. A failure names the line,
// the record type and the field, and says what to fix.
import { z } from 'zod';
import { ISO_HINT, isoInstant, shortened } from '../core/index.ts';
import { TOMBSTONE_KINDS } from '../store/index.ts';
import { MESSAGE_ROLES } from '../threads/index.ts';
import { announcedCounts, type ExportCounts, type ExportRecord } from './format.ts';

const id = z.string().min(1, 'must be a non-empty id');
const text = z.string();
const time = z.string().transform((value, ctx) => {
  const at = isoInstant(value);
  if (at === null) {
    ctx.addIssue({ code: 'custom', message: `'${shortened(value, 60)}' is not a valid ISO 8601 time (${ISO_HINT})` });
    return z.NEVER;
  }
  return at;
});
const count = z.number().int().nonnegative();
const metadata = z.record(z.string(), z.unknown());
const tags = z.array(z.string());

const entity = z.looseObject({
  id,
  bankId: text,
  name: text,
  aliases: z.array(z.string()),
  type: text.nullable(),
  mentionCount: count,
  firstSeen: time,
  lastSeen: time,
});

const document = z.looseObject({ id, bankId: text, contentHash: text, metadata, tags, createdAt: time, updatedAt: time });

const chunk = z.looseObject({
  id,
  bankId: text,
  documentId: id,
  index: count,
  itemId: text,
  text,
  contentHash: text,
  speaker: text.nullable(),
  timestamp: time.nullable(),
  context: text.nullable(),
  metadata,
  tags,
  session: text.nullable().optional(),
});

const source = z.looseObject({
  documentId: id,
  chunkId: id,
  itemId: text,
  start: count,
  end: count,
  session: text.nullable().optional(),
});

const factFields = {
  id,
  bankId: text,
  text,
  occurredStart: time.nullable(),
  occurredEnd: time.nullable(),
  mentionedAt: time,
  entities: z.array(id),
  source: source.nullable(),
  speaker: text.nullable(),
  metadata,
  tags,
  stance: z.enum(['instruction', 'preference']).nullable().optional(),
  context: text.nullable().optional(),
  status: z.enum(['active', 'superseded']),
  validFrom: time.nullable(),
  validTo: time.nullable(),
  supersededBy: id.nullable(),
  supersededAt: time.nullable(),
  consolidatedAt: time.nullable(),
  createdAt: time,
  updatedAt: time,
};

const vector = z.string().optional();

const recordSchemas = {
  entity: z.looseObject({ type: z.literal('entity'), entity }),
  document: z.looseObject({ type: z.literal('document'), document }),
  chunk: z.looseObject({ type: z.literal('chunk'), chunk }),
  fact: z.looseObject({
    type: z.literal('fact'),
    fact: z.looseObject({ ...factFields, kind: z.enum(['world', 'experience']) }),
    vector,
  }),
  observation: z.looseObject({
    type: z.literal('observation'),
    observation: z.looseObject({ ...factFields, kind: z.literal('observation') }),
    evidence: z.array(z.looseObject({ observationId: id, factId: id, role: z.enum(['supports', 'contradicts']), createdAt: time })),
    history: z.array(
      z.looseObject({
        id,
        observationId: id,
        oldText: text.nullable(),
        newText: text,
        factIds: z.array(id),
        reason: z.enum(['created', 'supported', 'refined', 'contradicted', 'evidence-removed']),
        at: time,
      }),
    ),
    vector,
  }),
  link: z.looseObject({
    type: z.literal('link'),
    link: z.looseObject({ from: id, to: id, type: z.enum(['temporal', 'semantic', 'causal', 'entity']), weight: z.number() }),
  }),
  thread: z.looseObject({
    type: z.literal('thread'),
    thread: z.looseObject({ bankId: text, id, resourceId: text.nullable(), settings: metadata, createdAt: time, updatedAt: time }),
  }),
  message: z.looseObject({
    type: z.literal('message'),
    message: z.looseObject({
      seq: z.number().int().positive(),
      id,
      bankId: text,
      threadId: id,
      role: z.enum(MESSAGE_ROLES as ['user', 'assistant', 'system', 'tool']),
      name: text.nullable(),
      content: text,
      toolCalls: z.array(z.looseObject({ name: text })).nullable(),
      timestamp: time,
      tokens: z.number().nonnegative(),
      createdAt: time,
      bridgedAt: time.nullable(),
    }),
  }),
  memory: z.looseObject({
    type: z.literal('memory'),
    item: z.looseObject({
      id,
      bankId: text,
      recordId: id,
      threadId: id.nullable(),
      kind: z.enum(['observation', 'reflection']),
      generation: count,
      status: z.enum(['running', 'buffered', 'active', 'archived']),
      text,
      tokens: z.number().nonnegative(),
      fromSeq: count.nullable(),
      toSeq: count.nullable(),
      messageCount: count,
      inputTokens: z.number().nonnegative(),
      covers: z.array(id),
      currentTask: text.nullable(),
      suggestedResponse: text.nullable(),
      firstAt: time.nullable(),
      lastAt: time.nullable(),
      createdAt: time,
      activatedAt: time.nullable(),
      archivedAt: time.nullable(),
      bridgedAt: time.nullable(),
    }),
  }),
  'working-memory': z.looseObject({
    type: z.literal('working-memory'),
    workingMemory: z.looseObject({ bankId: text, key: id, content: text, updatedAt: time }),
  }),
  tombstone: z.looseObject({
    type: z.literal('tombstone'),
    tombstone: z.looseObject({
      id,
      bankId: text,
      kind: z.enum(TOMBSTONE_KINDS),
      targetId: text,
      reason: text,
      at: time,
    }),
  }),
  end: z.looseObject({ type: z.literal('end'), counts: z.record(z.string(), count) }),
} as const;

/** The header's bank (the archive's first line). */
export const bankSchema = z.looseObject({
  id: text,
  name: text,
  mission: text,
  config: metadata,
  embedder: text.nullable(),
  createdAt: time,
  updatedAt: time,
});

/** `fact.source.chunkId` from the path zod gives (`fact`, `source`, `chunkId`; array positions in brackets). */
function fieldPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out ? '.' : ''}${String(p)}`;
  return out || '(the record)';
}

const FIX = 'fix it in the archive (or export the bank again) and import again';
const MISSING = 'its line is missing, or this id was changed';
const RESTORE = 'restore that line or correct the id, then import again';

/** An archive line that breaks the format: the line, the record type, the field, what is wrong. */
export class ArchiveError extends Error {
  constructor(
    readonly lineNumber: number,
    readonly recordType: string,
    readonly field: string,
    problem: string,
    fix: string = FIX,
  ) {
    super(`line ${lineNumber} (${recordType} record): ${field}: ${problem}; ${fix}`);
    this.name = 'ArchiveError';
  }
}

/** The first problem of a zod failure as an ArchiveError. */
export function archiveError(lineNumber: number, recordType: string, error: z.ZodError): ArchiveError {
  const issue = error.issues[0];
  return new ArchiveError(lineNumber, recordType, fieldPath(issue.path), issue.message);
}

/** The record of a parsed line with its fields checked and its times in canonical form. */
export function checkRecord(raw: ExportRecord, lineNumber: number): ExportRecord {
  const schema = recordSchemas[raw.type];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw archiveError(lineNumber, raw.type, parsed.error);
  return parsed.data as unknown as ExportRecord;
}

const COUNT_OF: Partial<Record<ExportRecord['type'], keyof ExportCounts>> = {
  entity: 'entities',
  document: 'documents',
  chunk: 'chunks',
  fact: 'facts',
  observation: 'observations',
  link: 'links',
  thread: 'threads',
  message: 'messages',
  memory: 'memoryItems',
  'working-memory': 'workingMemory',
  tombstone: 'tombstones',
};

/**
 * Follows an archive's records in order: checks each one's fields (checkRecord) and that what it refers to is in the
 * archive, counts them, and at the end checks the references that may point forward (evidence, supersededBy) and the
 * counts the end record announced.
 */
export class ArchiveChecker {
  private readonly entities = new Set<string>();
  private readonly documents = new Set<string>();
  /** Chunk id -> its document. */
  private readonly chunks = new Map<string, string>();
  private readonly facts = new Set<string>();
  /** References that may name a later record: checked at the end. */
  private readonly later: Array<{ lineNumber: number; recordType: string; field: string; factId: string }> = [];
  private readonly counts: Record<string, number> = {};
  private ended: ExportCounts | null = null;

  /** The checked record of the line (already parsed as JSON by parseRecord). */
  check(raw: ExportRecord, lineNumber: number): ExportRecord {
    if (this.ended) throw new Error(`line ${lineNumber}: records after the end record`);
    const r = checkRecord(raw, lineNumber);
    const missing = (field: string, what: string, missingId: string): ArchiveError =>
      new ArchiveError(lineNumber, r.type, field, `${what} '${missingId}' is not in the archive (${MISSING})`, RESTORE);
    switch (r.type) {
      case 'entity':
        this.entities.add(r.entity.id);
        break;
      case 'document':
        this.documents.add(r.document.id);
        break;
      case 'chunk':
        if (!this.documents.has(r.chunk.documentId)) throw missing('chunk.documentId', 'document', r.chunk.documentId);
        this.chunks.set(r.chunk.id, r.chunk.documentId);
        break;
      case 'fact':
      case 'observation': {
        const [name, fact] = r.type === 'fact' ? ['fact', r.fact] : ['observation', r.observation];
        fact.entities.forEach((e, i) => {
          if (!this.entities.has(e)) throw missing(`${name}.entities[${i}]`, 'entity', e);
        });
        if (fact.source) {
          const chunkDocument = this.chunks.get(fact.source.chunkId);
          if (chunkDocument === undefined) throw missing(`${name}.source.chunkId`, 'chunk', fact.source.chunkId);
          if (chunkDocument !== fact.source.documentId)
            throw new ArchiveError(
              lineNumber,
              r.type,
              `${name}.source.documentId`,
              `'${fact.source.documentId}' is not the document of chunk '${fact.source.chunkId}' ('${chunkDocument}'); correct it`,
            );
        }
        // The fact that replaced it may come later in the archive (facts are written in id order, not by what
        // superseded what). Revisions and tombstones name deleted facts by id: those are never in an archive.
        if (fact.supersededBy)
          this.later.push({ lineNumber, recordType: r.type, field: `${name}.supersededBy`, factId: fact.supersededBy });
        if (r.type === 'observation') {
          r.evidence.forEach((e, i) => {
            if (e.observationId !== fact.id)
              throw new ArchiveError(
                lineNumber,
                r.type,
                `evidence[${i}].observationId`,
                `'${e.observationId}' is not this observation's id '${fact.id}'`,
              );
            this.later.push({ lineNumber, recordType: r.type, field: `evidence[${i}].factId`, factId: e.factId });
          });
          r.history.forEach((h, i) => {
            if (h.observationId !== fact.id)
              throw new ArchiveError(
                lineNumber,
                r.type,
                `history[${i}].observationId`,
                `'${h.observationId}' is not this observation's id '${fact.id}'`,
              );
          });
        }
        this.facts.add(fact.id);
        break;
      }
      case 'link':
        if (!this.facts.has(r.link.from)) throw missing('link.from', 'fact', r.link.from);
        if (!this.facts.has(r.link.to)) throw missing('link.to', 'fact', r.link.to);
        break;
      case 'end':
        this.ended = announcedCounts(r.counts);
        break;
    }
    const key = COUNT_OF[r.type];
    if (key) this.counts[key] = (this.counts[key] ?? 0) + 1;
    return r;
  }

  /** After the last line: the archive was not cut, forward references resolve, the counts match. */
  finish(): void {
    if (!this.ended) throw new Error('the export is truncated (no end record)');
    for (const l of this.later)
      if (!this.facts.has(l.factId))
        throw new ArchiveError(l.lineNumber, l.recordType, l.field, `fact '${l.factId}' is not in the archive (${MISSING})`, RESTORE);
    for (const key of Object.values(COUNT_OF))
      if ((this.counts[key] ?? 0) !== this.ended[key])
        throw new Error(`the export is inconsistent: ${this.ended[key]} ${key} announced, ${this.counts[key] ?? 0} found`);
  }
}
