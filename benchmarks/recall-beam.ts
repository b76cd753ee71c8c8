// Recall benchmark on beam-dev (long technical conversations): retains each conversation into a store of its own
// (one item per message, the role as speaker, each session a document dated by its first message), then measures
// message-level evidence recall @1/5/10/20 per question category for the fusion and for every arm, the distinct
// messages among a recall's results, and recall latency; in the same run, plain BM25 (SQLite FTS5, k1 1.2, b 0.75)
// over whole messages "role: content" is the reference. Appends to benchmarks/RESULTS.md.
//
// Settings are chosen on conversations 1, 6, 11 (the tuning half) and reported on 16, 23, 35 (held out).
// --conversations 1,6 picks some; --data DIR keeps the stores there and reuses what was retained; --dump FILE
// writes each question's ranked messages as JSONL; --settings '{"perSource":1}' overrides recall's tunables;
// --no-record leaves RESULTS.md alone.
//
//   node --import tsx benchmarks/recall-beam.ts [path/to/beam-dev] [--conversations 1,6,11] [--data DIR]
//                                               [--dump FILE] [--settings JSON] [--no-record]
import Database from 'better-sqlite3';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { compose } from '../src/compose.ts';
import { loadConfig } from '../src/config/index.ts';
import type { RecallSettings } from '../src/recall/types.ts';
import type { RetainItem } from '../src/retain/types.ts';
import { benchArgs, formatLoad, percentile } from './measure.ts';

interface Message {
  role: string;
  id: number;
  content: string;
  time_anchor?: string;
}
interface Batch {
  batch_number: number;
  turns: Message[][];
  time_anchor?: string;
}
/** Gold evidence: message ids, as a list, an object of lists, or lists of those. */
type Gold = number | Gold[] | { [key: string]: Gold } | null | undefined;

const { args, flag, has, path: root } = benchArgs('../shared/datasets/beam-dev');
const keptData = flag('data');
const dumpPath = flag('dump');
const record = !has('no-record');
/** Overrides of recall's tunables as JSON (for tuning on the tuning half). */
const recallSettings = flag('settings') ? (JSON.parse(flag('settings') ?? '{}') as Partial<RecallSettings>) : undefined;
const TUNING = [1, 6, 11];
const HELD_OUT = [16, 23, 35];
const chosen = (flag('conversations') ?? [...TUNING, ...HELD_OUT].join(',')).split(',').map(Number);
const KS = [1, 5, 10, 20] as const;
const ARMS = ['semantic', 'keyword', 'graph', 'temporal', 'passage', 'fused', 'bm25'] as const;
type Arm = (typeof ARMS)[number];

/** The generation marker some user messages end with (" ->-> 1,7"). */
const MARKER = /\s*->->\s*[\d,\s]*$/;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** "January-05-2024" as an ISO date, or null. */
function anchorDate(anchor: string | undefined): string | null {
  const m = /^([A-Za-z]+)-(\d{1,2})-(\d{4})$/.exec(anchor ?? '');
  const month = m ? MONTHS.indexOf(m[1].toLowerCase()) : -1;
  return m && month >= 0 ? new Date(Date.UTC(Number(m[3]), month, Number(m[2]))).toISOString() : null;
}

interface Session {
  n: number;
  date: string | null;
  messages: Message[];
}
function sessionsOf(chat: Batch[]): Session[] {
  return chat.map((b) => {
    const messages = b.turns.flat().map((m) => ({ ...m, content: m.content.replace(MARKER, '') }));
    return { n: b.batch_number, date: anchorDate(messages.find((m) => m.time_anchor)?.time_anchor ?? b.time_anchor), messages };
  });
}

function goldOf(ids: Gold): number[] {
  if (ids === null || ids === undefined) return [];
  if (typeof ids === 'number') return [ids];
  return (Array.isArray(ids) ? ids : Object.values(ids)).flatMap(goldOf);
}

/** Distinct messages in ranked order from a ranked list of fact ids. */
function messagesOf(ids: string[], messageOf: Map<string, number>): number[] {
  const seen: number[] = [];
  for (const id of ids) {
    const m = messageOf.get(id);
    if (m !== undefined && !seen.includes(m)) seen.push(m);
  }
  return seen;
}

/** Plain BM25 over whole messages: the reference every figure is read against. */
function bm25Reference(messages: Message[]): (query: string, k: number) => number[] {
  const db = new Database(':memory:');
  db.exec('CREATE VIRTUAL TABLE m USING fts5(body)');
  const insert = db.prepare('INSERT INTO m(rowid, body) VALUES (?, ?)');
  for (const msg of messages) insert.run(msg.id, `${msg.role}: ${msg.content}`);
  const search = db.prepare('SELECT rowid FROM m WHERE m MATCH ? ORDER BY bm25(m) LIMIT ?');
  return (query, k) => {
    const terms = [...new Set(query.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
    if (!terms.length) return [];
    return (search.all(terms.map((t) => `"${t}"`).join(' OR '), k) as Array<{ rowid: number }>).map((r) => r.rowid);
  };
}

async function main(): Promise<void> {
  if (!existsSync(root)) throw new Error(`beam-dev not found at ${root}; pass its path as the first argument`);
  const dataDir = keptData ?? mkdtempSync(join(tmpdir(), 'cairn-beam-'));
  if (dumpPath) writeFileSync(dumpPath, '');
  const byCategory = new Map<string, Record<Arm, Record<number, number[]>>>();
  const emptyArms = (): Record<Arm, Record<number, number[]>> =>
    Object.fromEntries(ARMS.map((a) => [a, Object.fromEntries(KS.map((k) => [k, []]))])) as never;
  const halves = { tuning: { fused: [] as number[], bm25: [] as number[] }, heldOut: { fused: [] as number[], bm25: [] as number[] } };
  const latencies: number[] = [];
  const bm25Latencies: number[] = [];
  const distinct: number[] = [];
  let describe = '';
  let bytes = 0;
  let retainMs = 0;
  let questions = 0;
  let skipped = 0;
  for (const conversation of chosen) {
    const chat = JSON.parse(readFileSync(join(root, String(conversation), 'chat.json'), 'utf8')) as Batch[];
    const probing = JSON.parse(
      readFileSync(join(root, String(conversation), 'probing_questions', 'probing_questions.json'), 'utf8'),
    ) as Record<string, Array<{ question: string; source_chat_ids?: Gold }>>;
    const sessions = sessionsOf(chat);
    const all = sessions.flatMap((s) => s.messages);
    const valid = new Set(all.map((m) => m.id));
    // No consolidation worker: the figures measure recall over the retained facts, not how far a worker got.
    const composed = await compose(
      loadConfig({ ...process.env, CAIRN_DATA_DIR: join(dataDir, String(conversation)), CAIRN_LOG_LEVEL: 'warn', CAIRN_WORKER: 'off' }),
      recallSettings ? { recallSettings } : {},
    );
    const engine = composed.engine;
    describe = composed.describe.replace(join(dataDir, String(conversation)), join(dataDir, '<conversation>'));
    const bankId = `beam-${conversation}`;
    // A bank kept from an earlier run (--data) is retained again only to skip what it holds: not a throughput.
    const reused = (await engine.listBanks()).some((b) => b.id === bankId);
    if (!reused) await engine.createBank({ id: bankId });
    const t0 = performance.now();
    for (const s of sessions) {
      const items: RetainItem[] = s.messages.map((m) => ({
        content: m.content,
        speaker: m.role,
        ...(m.role === 'user' || m.role === 'assistant' ? { role: m.role } : {}),
        ...(s.date ? { timestamp: s.date } : {}),
        documentId: `session_${s.n}`,
        metadata: { message_id: String(m.id) },
      }));
      await engine.retain(bankId, { items });
      if (!reused) bytes += s.messages.reduce((n, m) => n + Buffer.byteLength(m.content), 0);
      process.stderr.write(`\rconversation ${conversation}: session ${s.n}/${sessions.length} retained`);
    }
    if (!reused) retainMs += performance.now() - t0;
    process.stderr.write('\n');
    const messageOf = new Map<string, number>();
    for (let offset = 0; ; offset += 1000) {
      const page = await engine.memories.listFacts(bankId, { limit: 1000, offset });
      for (const f of page.facts) if (f.metadata.message_id !== undefined) messageOf.set(f.id, Number(f.metadata.message_id));
      if (page.facts.length < 1000) break;
    }
    const bm25 = bm25Reference(all);
    const lastDate = sessions
      .map((s) => s.date)
      .filter((d): d is string => d !== null)
      .at(-1);
    const half = TUNING.includes(conversation) ? halves.tuning : halves.heldOut;
    for (const [category, list] of Object.entries(probing)) {
      for (const q of list) {
        const evidence = [...new Set(goldOf(q.source_chat_ids))].filter((id) => valid.has(id));
        if (!evidence.length) {
          skipped++;
          continue;
        }
        questions++;
        const t = performance.now();
        const res = await engine.recall(bankId, {
          query: q.question,
          limit: 20,
          maxTokens: 1_000_000,
          trace: true,
          ...(lastDate ? { queryTime: lastDate } : {}),
        });
        latencies.push(performance.now() - t);
        const b = performance.now();
        const reference = bm25(q.question, 20);
        bm25Latencies.push(performance.now() - b);
        const ranked: Record<Arm, number[]> = {
          fused: messagesOf(
            res.results.map((r) => r.id),
            messageOf,
          ),
          bm25: reference,
          semantic: [],
          keyword: [],
          graph: [],
          temporal: [],
          passage: [],
        };
        distinct.push(ranked.fused.length);
        const arms = (res.trace as { arms?: Record<string, { hits?: Array<{ id: string }> }> } | undefined)?.arms ?? {};
        for (const a of ['semantic', 'keyword', 'graph', 'temporal', 'passage'] as const)
          ranked[a] = messagesOf(
            (arms[a]?.hits ?? []).map((h) => h.id),
            messageOf,
          );
        if (dumpPath)
          appendFileSync(
            dumpPath,
            `${JSON.stringify({ conversation, category, question: q.question, evidence, ranked: Object.fromEntries(ARMS.map((a) => [a, ranked[a].slice(0, 30)])) })}\n`,
          );
        const cat = byCategory.get(category) ?? emptyArms();
        byCategory.set(category, cat);
        for (const a of ARMS)
          for (const k of KS) {
            const top = new Set(ranked[a].slice(0, k));
            const r = evidence.filter((e) => top.has(e)).length / evidence.length;
            cat[a][k].push(r);
            if (k === 10 && (a === 'fused' || a === 'bm25')) half[a].push(r);
          }
      }
    }
    await engine.close();
    process.stderr.write(`${bankId}: ${messageOf.size} facts, ${questions} questions so far\n`);
  }
  const mean = (xs: number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);
  const all = (a: Arm, k: number): number[] => [...byCategory.values()].flatMap((c) => c[a][k]);
  const lines: string[] = [];
  lines.push('| arm | @1 | @5 | @10 | @20 |', '| --- | --- | --- | --- | --- |');
  for (const a of ARMS)
    lines.push(`| ${a === 'bm25' ? 'BM25 over messages (reference)' : a} | ${KS.map((k) => mean(all(a, k)).toFixed(3)).join(' | ')} |`);
  lines.push('', '| category | questions | fused @10 | BM25 @10 | fused - BM25 |', '| --- | --- | --- | --- | --- |');
  for (const [category, c] of [...byCategory].sort(([a], [b]) => a.localeCompare(b))) {
    const f = mean(c.fused[10]);
    const r = mean(c.bm25[10]);
    lines.push(
      `| ${category} | ${c.fused[10].length} | ${f.toFixed(3)} | ${r.toFixed(3)} | ${f - r >= 0 ? '+' : ''}${(f - r).toFixed(3)} |`,
    );
  }
  lines.push('', '| measure | value |', '| --- | --- |');
  for (const [name, h, ids] of [
    ['tuning half', halves.tuning, TUNING],
    ['held-out half', halves.heldOut, HELD_OUT],
  ] as const) {
    const present = ids.filter((i) => chosen.includes(i));
    if (h.fused.length)
      lines.push(
        `| R@10, ${name} (conversations ${present.join(', ')}; ${h.fused.length} questions) | fused ${mean(h.fused).toFixed(3)}, BM25 ${mean(h.bm25).toFixed(3)} |`,
      );
  }
  lines.push(`| questions | ${questions} (skipped without gold evidence: ${skipped}) |`);
  lines.push(`| distinct messages in a recall's 20 results | median ${percentile(distinct, 50)}, p10 ${percentile(distinct, 10)} |`);
  lines.push(
    bytes > 0
      ? `| retain throughput | ${(bytes / 1024 / (retainMs / 1000)).toFixed(1)} KB/s (${(bytes / 1e6).toFixed(1)} MB; no consolidation worker) |`
      : '| retain throughput | not measured (every store reused from --data) |',
  );
  lines.push(
    `| recall latency (limit 20, trace on) | p50 ${percentile(latencies, 50).toFixed(1)} ms, p95 ${percentile(latencies, 95).toFixed(1)} ms (BM25 reference p50 ${percentile(bm25Latencies, 50).toFixed(1)} ms) |`,
  );
  lines.push(`| load average after | ${formatLoad()} on ${availableParallelism()} cores |`);
  const table = lines.join('\n');
  process.stdout.write(`${describe}\n${table}\n`);
  if (record) {
    const results = new URL('./RESULTS.md', import.meta.url);
    const command = `node --import tsx benchmarks/recall-beam.ts ${args.join(' ')}`.trim();
    appendFileSync(
      results,
      `\n## Recall on beam-dev (${new Date().toISOString()})\n\nCommand: \`${command}\`\n\nSetup: ${describe}\n\n${table}\n`,
    );
  }
  if (!keptData) rmSync(dataDir, { recursive: true, force: true });
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
