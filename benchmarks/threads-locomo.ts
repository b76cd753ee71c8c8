// Thread memory on LoCoMo: every conversation replayed into a thread message by message (offline observer and
// reflector), then the final context is measured against the full history: token compression (also along the
// way, at 50, 100, 200 and 400 messages), and evidence survival, the share of category 1-4 questions whose
// evidence turns are still present in the context. Two definitions of "present": words (at least PRESENT_SHARE
// of the turn's distinct content words occur in the context) and the stricter pairs (at least PRESENT_SHARE of
// the turn's adjacent content-word pairs occur adjacent in the context, so scattered common words do not count).
// A question survives when all its evidence turns are present. For comparison the same measures are taken on a
// plain truncation baseline: the newest messages that fit in the same number of tokens. Appends a dated section
// to benchmarks/RESULTS.md.
//
//   node --import tsx benchmarks/threads-locomo.ts [--path ../shared/datasets/locomo/locomo10.json]
//        [--profile default|roomy|both] [--settings JSON] [--conversations 1-5] [--dump DIR] [--no-write]
//   --settings: thread settings to try as the profile `custom` (replaces --profile), e.g. '{"messageTokens":800}';
//   --conversations: a 1-based range or list of conversations (e.g. 1-5 to decide, 6-10 to confirm on a held-out half);
//   --dump: writes each final context to DIR/<profile>-<conversation>.txt for reading.
import { appendFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { SqliteStore } from '../src/store/sqlite/store.ts';
import { SqliteThreadStore } from '../src/store/sqlite/threads.ts';
import { contentWords, words } from '../src/text/words.ts';
import { ThreadMemory } from '../src/threads/memory.ts';
import { DEFAULT_LOCOMO_PATH, loadLocomo, locomoAvailable, type LocomoConversation } from './locomo-threads.ts';
import type { ThreadSettingsInput } from '../src/threads/settings.ts';
import type { ThreadMessage } from '../src/threads/types.ts';

const PRESENT_SHARE = 2 / 3;
const CHECKPOINTS = [50, 100, 200, 400];

const PROFILES: Record<string, ThreadSettingsInput> = {
  /** The shipped defaults (the recommended profile). */
  default: {},
  /** The defaults before they were lowered: more raw messages and a larger memory, for models with long contexts. */
  roomy: {
    messageTokens: 4000,
    observationTokens: 3000,
    reflectionConsolidationThreshold: 4,
    memoryTokenBudget: 4000,
    messageTokenBudget: 6000,
    workingMemory: { maxTokens: 500 },
  },
};

interface Survival {
  /** Questions whose evidence turns are all present, by word overlap. */
  words: number;
  /** The same with adjacent content-word pairs. */
  pairs: number;
}

interface Result {
  id: string;
  messages: number;
  historyTokens: number;
  contextTokens: number;
  questions: number;
  kept: Survival;
  baseline: Survival;
  generations: number;
  /** Compression (1 - context/history) at each checkpoint reached. */
  along: Map<number, number>;
  ms: number;
}

const pairsOf = (text: string): Set<string> => {
  const w = contentWords(text);
  return new Set(w.slice(1).map((x, i) => `${w[i]} ${x}`));
};

function share(needed: Set<string>, have: Set<string>): number {
  if (needed.size === 0) return 1;
  let hit = 0;
  for (const x of needed) if (have.has(x)) hit++;
  return hit / needed.size;
}

function survival(conv: LocomoConversation, contextText: string): Survival {
  const contextWords = new Set(words(contextText));
  const contextPairs = pairsOf(contextText);
  const byId = new Map(conv.turns.map((t) => [t.diaId, t.message.content]));
  const out: Survival = { words: 0, pairs: 0 };
  for (const q of conv.questions) {
    const turns = q.evidence.map((e) => byId.get(e) ?? '');
    if (turns.every((t) => share(new Set(contentWords(t)), contextWords) >= PRESENT_SHARE)) out.words++;
    // A turn of fewer than two content words has no pair: its words decide.
    if (
      turns.every(
        (t) => (pairsOf(t).size ? share(pairsOf(t), contextPairs) : share(new Set(contentWords(t)), contextWords)) >= PRESENT_SHARE,
      )
    )
      out.pairs++;
  }
  return out;
}

/** "1-5", "6,8,10" or "3" (1-based, inclusive) -> 0-based indexes. */
function pickConversations(spec: string, count: number): number[] {
  const out = new Set<number>();
  for (const part of spec.split(',')) {
    const m = /^\s*(\d+)\s*(?:-\s*(\d+))?\s*$/.exec(part);
    if (!m) throw new Error(`--conversations: cannot read '${part}' (use e.g. 1-5 or 6,8,10)`);
    const [from, to] = [Number(m[1]), Number(m[2] ?? m[1])];
    for (let i = from; i <= to; i++) if (i >= 1 && i <= count) out.add(i - 1);
  }
  if (!out.size) throw new Error(`--conversations ${spec} picks none of the ${count} conversations`);
  return [...out].sort((a, b) => a - b);
}

async function replay(conv: LocomoConversation, settings: ThreadSettingsInput, dumpFile: string | null): Promise<Result> {
  const started = Date.now();
  const store = new SqliteStore({ file: ':memory:' });
  const memory = new ThreadMemory({ store: new SqliteThreadStore(store.db), banks: store });
  const now = new Date().toISOString();
  await store.createBank({
    id: 'bench',
    name: 'bench',
    mission: '',
    config: { threads: settings },
    embedder: null,
    createdAt: now,
    updatedAt: now,
  });
  const history: ThreadMessage[] = [];
  const along = new Map<number, number>();
  let historyTokens = 0;
  for (const turn of conv.turns) {
    const r = await memory.append('bench', conv.id, { messages: [turn.message] });
    history.push(...r.messages);
    historyTokens += r.messages[0].tokens;
    await memory.idle();
    if (CHECKPOINTS.includes(history.length))
      along.set(history.length, 1 - (await memory.context('bench', conv.id)).totalTokens / historyTokens);
  }
  const ctx = await memory.context('bench', conv.id);
  const status = await memory.status('bench', conv.id);
  const contextText = [ctx.prefix, ...ctx.messages.map((m) => m.content)].join('\n');
  const kept = survival(conv, contextText);
  if (dumpFile) {
    mkdirSync(dirname(dumpFile), { recursive: true });
    const omitted = `---- left out of the context: ${ctx.omittedReflections} reflections, ${ctx.omittedObservations} observations, ${ctx.omittedMessages} messages ----`;
    writeFileSync(
      dumpFile,
      `${ctx.prefix}\n${omitted}\n---- raw tail (${ctx.messages.length} messages, ${ctx.messageTokens} tokens) ----\n${ctx.messages.map((m) => `${m.name ?? m.role}: ${m.content}`).join('\n')}\n`,
    );
  }

  // Baseline: the newest raw messages within the same token count.
  const tail: ThreadMessage[] = [];
  let used = 0;
  for (let i = history.length - 1; i >= 0 && used + history[i].tokens <= ctx.totalTokens; i--) {
    tail.unshift(history[i]);
    used += history[i].tokens;
  }
  const baseline = survival(conv, tail.map((m) => m.content).join('\n'));
  await store.close();
  return {
    id: conv.id,
    messages: history.length,
    historyTokens,
    contextTokens: ctx.totalTokens,
    questions: conv.questions.length,
    kept,
    baseline,
    generations: status.generationCount,
    along,
    ms: Date.now() - started,
  };
}

const pct = (a: number, b: number): string => (b ? `${((100 * a) / b).toFixed(1)}%` : 'n/a');

function table(rows: Result[]): string {
  const lines = [
    '| conversation | messages | history tok | context tok | fewer tokens | generations | questions | survival: words | survival: pairs | truncation baseline: words / pairs |',
    '|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of rows)
    lines.push(
      `| ${r.id} | ${r.messages} | ${r.historyTokens} | ${r.contextTokens} | ${pct(r.historyTokens - r.contextTokens, r.historyTokens)} | ${r.generations} | ${r.questions} | ${pct(r.kept.words, r.questions)} | ${pct(r.kept.pairs, r.questions)} | ${pct(r.baseline.words, r.questions)} / ${pct(r.baseline.pairs, r.questions)} |`,
    );
  const sum = (f: (r: Result) => number): number => rows.reduce((n, r) => n + f(r), 0);
  const h = sum((r) => r.historyTokens);
  const c = sum((r) => r.contextTokens);
  const q = sum((r) => r.questions);
  lines.push(
    `| **all** | ${sum((r) => r.messages)} | ${h} | ${c} | ${pct(h - c, h)} | | ${q} | ${pct(
      sum((r) => r.kept.words),
      q,
    )} | ${pct(
      sum((r) => r.kept.pairs),
      q,
    )} | ${pct(
      sum((r) => r.baseline.words),
      q,
    )} / ${pct(
      sum((r) => r.baseline.pairs),
      q,
    )} |`,
  );
  const along = CHECKPOINTS.map((n) => {
    const at = rows.filter((r) => r.along.has(n)).map((r) => r.along.get(n) as number);
    return at.length
      ? `${n} messages: ${(100 * Math.min(...at)).toFixed(1)}% to ${(100 * Math.max(...at)).toFixed(1)}% (mean ${((100 * at.reduce((a, b) => a + b, 0)) / at.length).toFixed(1)}%, ${at.length} threads)`
      : '';
  }).filter(Boolean);
  lines.push('', `Fewer tokens along the way (context vs history so far): ${along.join('; ')}.`);
  return lines.join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      path: { type: 'string', default: DEFAULT_LOCOMO_PATH },
      profile: { type: 'string', default: 'both' },
      settings: { type: 'string' },
      conversations: { type: 'string' },
      dump: { type: 'string' },
      'no-write': { type: 'boolean', default: false },
    },
  });
  const path = values.path as string;
  if (!locomoAvailable(path)) {
    console.error(`LoCoMo not found at ${path}; pass --path`);
    process.exit(2);
  }
  if (values.settings) {
    PROFILES.custom = JSON.parse(values.settings) as ThreadSettingsInput;
    values.profile = 'custom';
  }
  const names = values.profile === 'both' ? Object.keys(PROFILES) : [values.profile as string];
  for (const n of names) if (!PROFILES[n]) throw new Error(`unknown profile '${n}' (default, roomy, both)`);
  process.env.CAIRN_LOG_LEVEL ??= 'warn';
  const all = loadLocomo(path);
  const picked = values.conversations ? pickConversations(values.conversations, all.length) : all.map((_, i) => i);
  const conversations = picked.map((i) => all[i]);
  const skipped = conversations.reduce((n, c) => n + c.skippedQuestions, 0);
  const sections: string[] = [];
  for (const name of names) {
    const rows: Result[] = [];
    for (const conv of conversations) {
      const r = await replay(conv, PROFILES[name], values.dump ? `${values.dump}/${name}-${conv.id}.txt` : null);
      rows.push(r);
      console.error(
        `${name} ${r.id}: ${r.messages} msgs, ${r.historyTokens} -> ${r.contextTokens} tok, survival ${pct(r.kept.words, r.questions)} words, ${pct(r.kept.pairs, r.questions)} pairs (${r.ms} ms)`,
      );
    }
    const total = rows.reduce((n, r) => n + r.ms, 0);
    sections.push(
      `Profile \`${name}\` (settings ${JSON.stringify(PROFILES[name])}; replay ${(total / 1000).toFixed(1)} s)\n\n${table(rows)}`,
    );
  }
  const chosen = values.settings ? ` --settings '${values.settings}'` : values.profile === 'both' ? '' : ` --profile ${values.profile}`;
  const command = `node --import tsx benchmarks/threads-locomo.ts${chosen}${values.conversations ? ` --conversations ${values.conversations}` : ''}`;
  const section = [
    `## Thread memory on LoCoMo (offline observer and reflector), ${new Date().toISOString()}`,
    '',
    `\`${command}\` (${cpus().length} × ${cpus()[0]?.model.trim() ?? 'cpu'}, node ${process.version}). Each conversation is replayed into one thread,`,
    'one message per turn (speaker A as user, B as assistant), waiting for background work after each; then the final context',
    '(memory prefix + raw unobserved tail, no maxTokens) is compared with the full history. Tokens: cl100k, content + 4 per message.',
    `Evidence survival: share of category 1-4 questions (${skipped} skipped: no valid evidence id) whose evidence turns are all`,
    `present in the final context. "words": >= ${Math.round(PRESENT_SHARE * 100)}% of a turn's distinct content words occur in the context (lenient: common`,
    `words recur anywhere in a long context); "pairs": >= ${Math.round(PRESENT_SHARE * 100)}% of its adjacent content-word pairs occur adjacent in the context`,
    '(strict). Both are text overlap, not answerability, and miss facts kept only in paraphrase. Truncation baseline: the newest',
    'raw messages within the same token count as the final context.',
    '',
    sections.join('\n\n'),
    '',
  ].join('\n');
  process.stdout.write(`${section}\n`);
  if (!values['no-write']) appendFileSync(new URL('./RESULTS.md', import.meta.url), `\n${section}`);
}

await main();
