// Long texts for retain benchmarks and tests, the same for the same seed: technical chat (paragraphs, lists, code
// fences, tables, numbers that change) and a block repeated for pages (copies of a few sentences).
import { random } from './random.ts';

const SERVICES = ['billing', 'gateway', 'search', 'ingest', 'scheduler', 'auth', 'reports', 'notifier', 'catalog', 'ledger'];
const TOOLS = ['Redis', 'PostgreSQL', 'Kafka', 'nginx', 'Docker', 'Kubernetes', 'Prometheus', 'Grafana', 'Elasticsearch', 'RabbitMQ'];
const PEOPLE = ['Priya', 'Marcus', 'Elena', 'Tomasz', 'Aiko', 'Jonas', 'Fatima', 'Diego'];
const VERBS = ['reduced', 'raised', 'capped', 'doubled', 'moved', 'rewrote', 'cached', 'split', 'retried', 'sharded'];
const THINGS = [
  'the connection pool',
  'the request timeout',
  'the batch size',
  'the worker count',
  'the cache TTL',
  'the queue depth',
  'the retry budget',
  'the index build',
];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

/** Technical chat text of about `size` characters, the same for the same seed. */
export function technicalText(size: number, seed: number): string {
  const rnd = random(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)];
  const n = (max: number): number => 1 + Math.floor(rnd() * max);
  const sentence = (): string => {
    const service = pick(SERVICES);
    switch (n(6)) {
      case 1:
        return `${pick(PEOPLE)} ${pick(VERBS)} ${pick(THINGS)} to ${n(2000)}.`;
      case 2:
        return `${service} moved to ${pick(TOOLS)} ${n(9)}.${n(20)} on ${pick(MONTHS)} ${n(28)}.`;
      case 3:
        return `${service} runs ${pick(TOOLS)} with ${n(64)} shards.`;
      case 4:
        return `${pick(PEOPLE)} owns the ${service} rollout.`;
      case 5:
        return `${service} p95 hit ${n(900)} ms.`;
      default:
        return `${service} serves ${n(12000)} requests per second.`;
    }
  };
  /** A short list item, as in release notes and status updates. */
  const note = (): string => {
    const service = pick(SERVICES);
    switch (n(4)) {
      case 1:
        return `${service} uses ${pick(TOOLS)}.`;
      case 2:
        return `${pick(PEOPLE)} fixed ${service}.`;
      case 3:
        return `${service} needs ${n(16)} replicas.`;
      default:
        return sentence();
    }
  };
  const block = (): string => {
    switch (n(10)) {
      case 1:
      case 2:
      case 3:
      case 4:
      case 5:
      case 6:
      case 7: {
        const items = Array.from({ length: 3 + n(8) }, () => `- ${note()}`);
        return `Here is what changed:\n${items.join('\n')}`;
      }
      case 8: {
        const name = pick(SERVICES);
        const code = [
          '```ts',
          `export async function ${name}Handler(req: Request): Promise<Response> {`,
          `  const pool = createPool({ max: ${n(64)}, idleTimeoutMillis: ${n(30000)} });`,
          `  const rows = await pool.query('SELECT id, total FROM ${name}_orders WHERE day = $1', [req.day]);`,
          `  return json({ count: rows.length, ms: ${n(500)} });`,
          '}',
          '```',
        ];
        return `${sentence()} The handler for ${name} now looks like this:\n${code.join('\n')}`;
      }
      case 9:
        return `| Service | Replicas | p95 ms |\n|---|---|---|\n${Array.from({ length: n(4) }, () => `| ${pick(SERVICES)} | ${n(16)} | ${n(900)} |`).join('\n')}`;
      default:
        return Array.from({ length: 2 + n(6) }, sentence).join(' ');
    }
  };
  const parts: string[] = [];
  let length = 0;
  while (length < size) {
    const b = block();
    parts.push(b);
    length += b.length + 2;
  }
  return parts.join('\n\n').slice(0, size);
}

/** A build log pasted whole: one block of lines (labels, a warning, code) repeated, so its facts are copies of a few
 * sentences with equal vectors, each tying with thousands of others in every similarity search. */
export function repeatedText(size: number, seed: number): string {
  const block = [
    `**Build step ${seed}:**`,
    '- Use Redis Sentinel for the pool.',
    '- Label only:',
    '- Another label:',
    'WARN deprecated option, falling back to 20.',
    '```js',
    'const a = 1;',
    '```',
    '',
  ].join('\n');
  return block.repeat(Math.ceil(size / block.length)).slice(0, size);
}
