// The recall debugger: a query against a bank, the fused results with each arm's rank and score side by side,
// how the query was read (focus, entities, time filter, sessions), the time each arm and stage took, and what the
// token budget left out.
import { useState } from 'preact/hooks';
import type { CairnClient, RecallResponse } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks } from './common.tsx';

const ARMS = ['semantic', 'keyword', 'graph', 'temporal', 'passage'] as const;
type Arm = (typeof ARMS)[number];

interface Trace {
  focus?: string;
  queryTime?: string;
  entities?: Array<{ name: string; mentions: number }>;
  filter?: Record<string, unknown>;
  arms?: Record<Arm, { ms: number; count: number; hits: Array<{ id: string; score: number }> }>;
  timings?: Record<string, number>;
  fused?: number;
}

/** Each arm's rank (1-based) of every fact it found. */
function ranksOf(trace: Trace): Record<Arm, Map<string, number>> {
  return Object.fromEntries(ARMS.map((arm) => [arm, new Map((trace.arms?.[arm]?.hits ?? []).map((h, i) => [h.id, i + 1]))])) as Record<
    Arm,
    Map<string, number>
  >;
}

export function RecallScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [query, setQuery] = useState('');
  const [limit, setLimit] = useState(10);
  const [maxTokens, setMaxTokens] = useState('');
  const [answer, setAnswer] = useState<RecallResponse | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);

  const run = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const tokens = Number(maxTokens);
      setAnswer(await client.recall(bank, { query, limit, trace: true, ...(maxTokens && tokens > 0 ? { maxTokens: tokens } : {}) }));
    } catch (e) {
      setAnswer(null);
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const trace = (answer?.trace ?? {}) as Trace;
  const ranks = ranksOf(trace);
  const slowest = Math.max(1, ...ARMS.map((arm) => trace.arms?.[arm]?.ms ?? 0));
  return (
    <section aria-labelledby="recall-title">
      <h1 id="recall-title">Recall debugger</h1>
      <form
        class="query"
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <BankPicker id="recall-bank" banks={banks} bank={bank} onChange={setBank} />
        <div class="field grow">
          <label for="recall-query">Query</label>
          <input
            id="recall-query"
            required
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            placeholder="What did Alice do last June?"
          />
        </div>
        <div class="field small">
          <label for="recall-limit">Results</label>
          <input
            id="recall-limit"
            type="number"
            min={1}
            max={500}
            value={limit}
            onInput={(e) => setLimit(Number(e.currentTarget.value) || 10)}
          />
        </div>
        <div class="field small">
          <label for="recall-tokens">Token budget</label>
          <input
            id="recall-tokens"
            type="number"
            min={1}
            value={maxTokens}
            onInput={(e) => setMaxTokens(e.currentTarget.value)}
            placeholder="none"
          />
        </div>
        <button type="submit" disabled={busy || !bank}>
          {busy ? 'Recalling…' : 'Recall'}
        </button>
      </form>
      <ErrorLine error={error} />
      {answer && (
        <>
          <div class="panels">
            <section class="panel" aria-labelledby="read-title">
              <h2 id="read-title">How the query was read</h2>
              <dl>
                <dt>Focus</dt>
                <dd>{trace.focus || '–'}</dd>
                <dt>Entities</dt>
                <dd>{trace.entities?.length ? trace.entities.map((e) => e.name).join(', ') : 'none'}</dd>
                <dt>As of</dt>
                <dd>{trace.queryTime ?? '–'}</dd>
                <dt>Filter</dt>
                <dd class="code">{trace.filter && Object.keys(trace.filter).length ? JSON.stringify(trace.filter) : 'none'}</dd>
                <dt>Budget</dt>
                <dd>
                  {answer.results.length} results, {answer.tokens} tokens
                  {maxTokens ? ` of ${maxTokens}` : ''}; {trace.fused ?? 0} candidates fused
                  {trace.fused && trace.fused > answer.results.length ? `, ${trace.fused - answer.results.length} left out` : ''}
                </dd>
              </dl>
            </section>
            <section class="panel" aria-labelledby="time-title">
              <h2 id="time-title">Time per arm</h2>
              <ul class="bars">
                {ARMS.map((arm) => {
                  const ms = trace.arms?.[arm]?.ms ?? 0;
                  return (
                    <li>
                      <span class="label">{arm}</span>
                      <span class="bar" style={{ width: `${(ms / slowest) * 100}%` }} />
                      <span class="value">
                        {ms.toFixed(1)} ms · {trace.arms?.[arm]?.count ?? 0} found
                      </span>
                    </li>
                  );
                })}
              </ul>
              <p class="sub">
                {Object.entries(trace.timings ?? {})
                  .map(([stage, ms]) => `${stage} ${ms.toFixed(1)} ms`)
                  .join(' · ')}
              </p>
            </section>
          </div>
          {answer.results.length === 0 ? (
            <p class="empty">Nothing found for this query.</p>
          ) : (
            <table class="results">
              <caption class="visually-hidden">Fused results with each arm's rank and score</caption>
              <thead>
                <tr>
                  <th scope="col" class="num">
                    #
                  </th>
                  <th scope="col">Memory</th>
                  <th scope="col" class="num">
                    Fused
                  </th>
                  {ARMS.map((arm) => (
                    <th scope="col" class="num">
                      {arm}
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {answer.results.map((r, i) => (
                  <tr data-result={r.id}>
                    <td class="num">{i + 1}</td>
                    <td>
                      <div class="text">{r.text}</div>
                      <div class="sub">
                        {r.kind}
                        {r.occurredStart ? ` · happened ${r.occurredStart.slice(0, 10)}` : ''} · said {r.mentionedAt.slice(0, 10)}
                        {r.session ? ` · session ${r.session.ordinal}` : ''}
                        {r.change ? ` · ${r.change.kind} (${r.change.role})` : ''}
                      </div>
                    </td>
                    <td class="num">{r.scores.fused.toFixed(3)}</td>
                    {ARMS.map((arm) => {
                      const rank = ranks[arm].get(r.id);
                      const score = r.scores[arm];
                      return (
                        <td class="num" data-arm={arm}>
                          {rank ? `#${rank}` : '–'}
                          {score !== undefined && <div class="sub">{score.toFixed(3)}</div>}
                        </td>
                      );
                    })}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </>
      )}
    </section>
  );
}
