// What the HTTP benchmarks share: the messages of the BEAM conversations (markers stripped, each timed from its
// session's date), a real `cairn serve` child process on a temporary data directory, JSON requests to it, and the
// child's CPU time and memory read from /proc (so figures are the server's, not the benchmark client's).
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

export interface Message {
  role: 'user' | 'assistant';
  content: string;
  timestamp: string;
  /** 0-based index of the conversation (folder) it comes from. */
  conversation: number;
}

type BeamTurn = { role: string; content: string; time_anchor?: string };
type BeamChat = Array<{ turns: BeamTurn[][] }>;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
/** "January-05-2024" as an ISO instant (null when it is not such a date). */
function sessionDate(anchor: string | undefined): number | null {
  const m = anchor?.match(/^([A-Za-z]+)-(\d{1,2})-(\d{4})$/);
  const month = m ? MONTHS.indexOf(m[1].toLowerCase()) : -1;
  return m && month >= 0 ? Date.UTC(Number(m[3]), month, Number(m[2]), 9) : null;
}

/** The messages of the first `conversations` conversations under dir with at least `minLength` characters, with
 * their probing questions (or, when none came with the data, the opening words of messages as queries). */
export function loadMessages(
  dir: string,
  options: { minLength?: number; conversations?: number } = {},
): { messages: Message[]; questions: string[]; conversations: number } {
  const minLength = options.minLength ?? 0;
  const messages: Message[] = [];
  const questions: string[] = [];
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => join(dir, d.name))
    .sort();
  let conversations = 0;
  for (const folder of folders) {
    if (conversations >= (options.conversations ?? Infinity)) break;
    let chat: BeamChat;
    try {
      chat = JSON.parse(readFileSync(join(folder, 'chat.json'), 'utf8')) as BeamChat;
    } catch {
      continue;
    }
    for (const batch of chat) {
      const turns = batch.turns.flat();
      let at = sessionDate(turns.find((t) => t.time_anchor)?.time_anchor) ?? Date.UTC(2024, 0, 1, 9);
      for (const t of turns) {
        at += 60_000;
        // A generation marker such as " ->-> 1,7" ends many user messages.
        const content = t.content.replace(/\s*->->\s*[\d,\s]*$/, '').trim();
        if (content.length >= Math.max(1, minLength) && (t.role === 'user' || t.role === 'assistant')) {
          messages.push({ role: t.role, content, timestamp: new Date(at).toISOString(), conversation: conversations });
        }
      }
    }
    conversations++;
    try {
      const probing = JSON.parse(readFileSync(join(folder, 'probing_questions', 'probing_questions.json'), 'utf8')) as Record<
        string,
        Array<{ question?: string }>
      >;
      for (const list of Object.values(probing)) for (const q of list) if (q.question?.trim()) questions.push(q.question.trim());
    } catch {
      // a conversation without probing questions adds none
    }
  }
  if (!messages.length) throw new Error(`no messages found under ${dir} (expected */chat.json as in ../shared/README.md); pass --data`);
  if (!questions.length) questions.push(...messages.slice(0, 200).map((m) => m.content.split(/\s+/).slice(0, 12).join(' ')));
  return { messages, questions, conversations };
}

export interface Server {
  url: string;
  pid: number;
  describe: string;
  /** Warnings and errors the server logged. */
  problems: string[];
  stop(): Promise<void>;
}

/** `cairn serve` on 127.0.0.1 with the default configuration, a clean environment (not whatever LLM keys or settings
 * the caller's shell holds) plus `env`. */
export async function startServer(dataDir: string, env: Record<string, string> = {}): Promise<Server> {
  const childEnv = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    CAIRN_DATA_DIR: dataDir,
    CAIRN_HOST: '127.0.0.1',
    CAIRN_PORT: '0',
    CAIRN_LOG_LEVEL: 'info',
    ...env,
  };
  // SERVER_NODE_ARGS: extra node flags for the server, for profiling it (for example "--cpu-prof --cpu-prof-dir=DIR").
  const child = spawn(
    process.execPath,
    [...(process.env.SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), join(ROOT, 'bin', 'cairn.mjs'), 'serve'],
    { env: childEnv, stdio: ['ignore', 'inherit', 'pipe'] },
  );
  const problems: string[] = [];
  let describe = '';
  const exited = new Promise<number | null>((done) => child.once('exit', (code) => done(code)));
  const url = await new Promise<string>((done, fail) => {
    let buffer = '';
    const timer = setTimeout(() => fail(new Error('the server did not start listening within 120 s')), 120_000);
    child.once('exit', (code) => fail(new Error(`the server exited (code ${code}) before listening: ${buffer.slice(-2000)}`)));
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (text: string) => {
      buffer += text;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (/ (warn|error) /.test(line)) problems.push(line);
        if (line.includes(' store: ')) describe = line.replace(/^\S+ info\s+/, '');
        const m = line.match(/cairn listening on (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) {
          clearTimeout(timer);
          done(m[1]);
        }
      }
    });
  });
  return {
    url,
    pid: child.pid ?? 0,
    describe,
    problems,
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

export async function post(url: string, body: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, text: await res.text() };
}

export async function get<T>(url: string): Promise<T> {
  const res = await fetch(url);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${text.slice(0, 300)}`);
  return JSON.parse(text) as T;
}

/** CPU seconds (user + system) a process has used, and its resident and peak resident memory in MB (Linux /proc). */
export function processUsage(pid: number): { cpuSeconds: number; rssMb: number; peakRssMb: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // Fields after the command name (which may hold spaces) start at the last ')'; utime and stime are 14th and 15th.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string): number => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN);
  // Linux reports CPU time in clock ticks of 100 per second (USER_HZ) on every architecture Node runs on.
  return { cpuSeconds: ticks / 100, rssMb: kb('VmRSS') / 1024, peakRssMb: kb('VmHWM') / 1024 };
}

/** Starts recalls on a bank of the server, one after another with `everyMs` between them, until the returned function
 * is called: it answers the latencies in ms of those that succeeded (what another client sees while the server does
 * something else) and what went wrong with the others (each printed as it happens). */
export function recallProbe(url: string, bank: string, query: string, everyMs: number): () => Promise<{ ms: number[]; failed: string[] }> {
  const ms: number[] = [];
  const failed: string[] = [];
  let running = true;
  const done = (async () => {
    while (running) {
      const t = performance.now();
      const problem = await post(`${url}/v1/banks/${bank}/recall`, { query }).then(
        (r) => (r.status === 200 ? null : `${r.status} ${r.text.slice(0, 200)}`),
        (e: unknown) => (e instanceof Error ? `${e.message} ${String((e.cause as { code?: string } | undefined)?.code ?? '')}` : String(e)),
      );
      if (problem === null) ms.push(performance.now() - t);
      else {
        failed.push(problem);
        process.stderr.write(`recall on ${bank} failed: ${problem}\n`);
      }
      await new Promise((wake) => setTimeout(wake, everyMs));
    }
  })();
  return async () => {
    running = false;
    await done;
    return { ms, failed };
  };
}
