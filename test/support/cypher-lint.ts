// Offline validation of Cypher text with Neo4j's own language support (its parser and its semantic analysis,
// Cypher 5): syntax errors, undefined variables, parameters the statement does not get. The unit tests use it
// because no Neo4j server runs in CI. The analysis costs about a quarter of a second per statement, so many
// statements are spread over worker threads.
import { lintCypherQuery } from '@neo4j-cypher/language-support';
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Statement } from '../../src/store/neo4j/statement.ts';

export interface LintProblem {
  message: string;
  severity: 'error' | 'warning';
}

type Diagnostic = ReturnType<typeof lintCypherQuery>['diagnostics'][number];

const toProblem = (d: Diagnostic): LintProblem => ({
  message: typeof d.message === 'string' ? d.message : d.message.value,
  severity: d.severity === 1 ? 'error' : 'warning',
});

export function lintStatement(s: Statement): LintProblem[] {
  return lintCypherQuery(s.text, { parameters: s.params }).diagnostics.map(toProblem);
}

const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { lintCypherQuery } = require(workerData.module);
parentPort.postMessage(workerData.statements.map((s) =>
  lintCypherQuery(s.text, { parameters: s.params }).diagnostics.map((d) => ({
    message: typeof d.message === 'string' ? d.message : d.message.value,
    severity: d.severity === 1 ? 'error' : 'warning',
  }))));
`;

/** Lints many statements in parallel; the problems of each, in order. */
export async function lintStatements(statements: Statement[], workers = Math.min(4, availableParallelism())): Promise<LintProblem[][]> {
  const module = createRequire(import.meta.url).resolve('@neo4j-cypher/language-support');
  const n = Math.max(1, Math.min(workers, statements.length));
  const parts = Array.from({ length: n }, (_, w) => statements.map((s, i) => ({ s, i })).filter(({ i }) => i % n === w));
  const results: LintProblem[][] = new Array(statements.length);
  await Promise.all(
    parts.map(
      (part) =>
        new Promise<void>((resolve, reject) => {
          // Parameters only need their names to survive the copy (driver integers arrive as plain objects).
          const payload = part.map(({ s }) => ({ text: s.text, params: JSON.parse(JSON.stringify(s.params)) as unknown }));
          const worker = new Worker(WORKER, { eval: true, execArgv: [], workerData: { module, statements: payload } });
          worker.once('message', (problems: LintProblem[][]) => {
            part.forEach(({ i }, k) => (results[i] = problems[k]));
            resolve();
          });
          worker.once('error', reject);
          worker.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lint worker exited with ${code}`))));
        }),
    ),
  );
  return results;
}
