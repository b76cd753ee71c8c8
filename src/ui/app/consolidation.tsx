// Consolidation and operations: per bank, what waits (backlog, the oldest wait, why it waits), what was done
// (consolidated facts, observations, the current rate) and what failed (dead letters with their errors, retried from
// here); a bank's backlog can be run now. Beneath, the recent operations of every bank (async retains, imports)
// with their progress. Both are read again while the page is shown (operations of busy banks more often).
import { useEffect, useRef, useState } from 'preact/hooks';
import { type CairnClient, CairnError, type components, type ConsolidationStatus, unwrap } from '../../../clients/typescript/src/index.ts';
import { ErrorLine, messageOf } from './common.tsx';

type DeadLetter = components['schemas']['DeadLetter'];
type Operation = components['schemas']['Operation'];

/** Operations listed: the newest of all banks together. */
const RECENT_OPERATIONS = 20;
const REFRESH_MS = 1500;
/** How often the page reads everything again while nothing it shows is running. */
const IDLE_REFRESH_MS = 6000;

function Operations({ client, banks }: { client: CairnClient; banks: string[] }) {
  const [operations, setOperations] = useState<Operation[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const byBank = new Map<string, Operation[]>();
    let ticks = 0;
    const unfinished = (o: Operation) => o.status === 'queued' || o.status === 'running';
    // Every bank first; then the banks with unfinished work every REFRESH_MS and every bank every IDLE_REFRESH_MS
    // (a page kept open over many banks asks little). A bank deleted meanwhile simply has no operations.
    const load = async (targets: string[]): Promise<void> => {
      try {
        await Promise.all(
          targets.map(async (bank) => {
            try {
              const list = await unwrap(
                client.raw.GET('/v1/banks/{bank}/operations', { params: { path: { bank }, query: { limit: RECENT_OPERATIONS } } }),
              );
              byBank.set(bank, list.operations);
            } catch (e) {
              if (e instanceof CairnError && e.status === 404) byBank.delete(bank);
              else throw e;
            }
          }),
        );
        if (!stopped) setError(null);
      } catch (e) {
        if (!stopped) setError(messageOf(e));
      }
      if (stopped) return;
      const newest = [...byBank.values()]
        .flat()
        .sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id.localeCompare(a.id))
        .slice(0, RECENT_OPERATIONS);
      setOperations(newest);
      // Busy banks are read again soon; every bank now and then, for work started since (elsewhere, or by an agent).
      // A hidden page with nothing running reads nothing (load([]) only waits for the next turn).
      const busy = [...byBank].filter(([, list]) => list.some(unfinished)).map(([bank]) => bank);
      const everyBank = (ticks += 1) % Math.round(IDLE_REFRESH_MS / REFRESH_MS) === 0 || busy.length === 0;
      const hiddenAndIdle = document.visibilityState !== 'visible' && busy.length === 0;
      timer = setTimeout(() => void load(hiddenAndIdle ? [] : everyBank ? banks : busy), busy.length > 0 ? REFRESH_MS : IDLE_REFRESH_MS);
    };
    void load(banks);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [banks.join('\n')]);

  return (
    <section aria-labelledby="operations-title" class="operations">
      <h2 id="operations-title">Recent operations</h2>
      <ErrorLine error={error} />
      {operations === null ? (
        <p class="loading">Loading operations…</p>
      ) : operations.length === 0 ? (
        <p class="empty">No operations yet: asynchronous retains and imports show here with their progress.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">Operation</th>
              <th scope="col">Bank</th>
              <th scope="col">Status</th>
              <th scope="col">Progress</th>
              <th scope="col">Started</th>
              <th scope="col">Updated</th>
            </tr>
          </thead>
          <tbody>
            {operations.map((o) => (
              <tr data-operation={o.id} data-status={o.status}>
                <td>
                  {o.kind} <code class="sub">{o.id}</code>
                  {o.error && <div class="error">{o.error}</div>}
                </td>
                <td>{o.bankId}</td>
                <td>{o.status}</td>
                <td>
                  {/* A retain's chunks move within a long item, where its items stay at 0 of 1: the bar follows them. */}
                  <progress
                    max={Math.max(1, o.progress.chunks?.total ?? o.progress.total)}
                    value={o.progress.chunks?.done ?? o.progress.done}
                    aria-label={`${o.kind} ${o.id}: ${o.progress.done} of ${o.progress.total}${
                      o.progress.chunks ? `, chunks ${o.progress.chunks.done} of ${o.progress.chunks.total}` : ''
                    }`}
                  />{' '}
                  <span class="sub">
                    {o.progress.done} / {o.progress.total}
                    {o.progress.chunks && ` · chunks ${o.progress.chunks.done} / ${o.progress.chunks.total}`}
                  </span>
                </td>
                <td>{o.createdAt.slice(0, 19).replace('T', ' ')}</td>
                <td>{o.updatedAt.slice(0, 19).replace('T', ' ')}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}
type Row = { status: ConsolidationStatus; dead: DeadLetter[] };

const age = (seconds: number | null): string =>
  seconds === null
    ? '–'
    : seconds < 90
      ? `${Math.round(seconds)} s`
      : seconds < 5400
        ? `${Math.round(seconds / 60)} min`
        : `${Math.round(seconds / 3600)} h`;

export function ConsolidationScreen({ client }: { client: CairnClient }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);

  const load = async (): Promise<void> => {
    try {
      const banks = await client.listBanks();
      const read = await Promise.all(
        banks.map(async (b): Promise<Row | null> => {
          const path = { bank: b.id };
          try {
            const [status, dead] = await Promise.all([
              client.consolidationStatus(b.id),
              unwrap(client.raw.GET('/v1/banks/{bank}/consolidation/dead-letters', { params: { path } })).then((r) => r.deadLetters),
            ]);
            return { status, dead };
          } catch (e) {
            // A bank deleted since the list was read is simply gone.
            if (e instanceof CairnError && e.status === 404) return null;
            throw e;
          }
        }),
      );
      setRows(read.filter((r): r is Row => r !== null));
      setError(null);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  // Read again every few seconds while the page is shown and nothing was asked of it: backlogs drain, banks come and go.
  const acting = useRef(false);
  acting.current = busy !== null;
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible' && !acting.current) void load();
    }, IDLE_REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  const act = async (bank: string, what: 'run' | 'retry', factIds?: string[]): Promise<void> => {
    setBusy(`${what}:${bank}`);
    setError(null);
    try {
      const path = { bank };
      if (what === 'run') await unwrap(client.raw.POST('/v1/banks/{bank}/consolidate', { params: { path, query: { wait: 'true' } } }));
      else
        await unwrap(
          client.raw.POST('/v1/banks/{bank}/consolidation/dead-letters/retry', {
            params: { path },
            ...(factIds ? { body: { factIds } as never } : {}),
          }),
        );
      await load();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(null);
    }
  };

  return (
    <section aria-labelledby="consolidation-title">
      <h1 id="consolidation-title">Consolidation</h1>
      <ErrorLine error={error} />
      {rows === null ? (
        !error && <p class="loading">Loading…</p>
      ) : rows.length === 0 ? (
        <p class="empty">No banks.</p>
      ) : (
        <table class="consolidation">
          <caption class="visually-hidden">Consolidation per bank</caption>
          <thead>
            <tr>
              <th scope="col">Bank</th>
              <th scope="col" class="num">
                Waiting
              </th>
              <th scope="col" class="num">
                Oldest wait
              </th>
              <th scope="col" class="num">
                Consolidated
              </th>
              <th scope="col" class="num">
                Observations
              </th>
              <th scope="col">Now</th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ status: s, dead }) => (
              <>
                <tr data-consolidation={s.bankId}>
                  <th scope="row">{s.bankId}</th>
                  <td class="num" data-field="backlog">
                    {s.backlog}
                  </td>
                  <td class="num">{age(s.oldestWaitingAgeSeconds)}</td>
                  <td class="num">{s.consolidated}</td>
                  <td class="num">{s.observations}</td>
                  <td>
                    {s.waiting.reason ?? 'nothing waits'}
                    {s.rate.perSecond ? <div class="sub">{s.rate.perSecond.toFixed(1)} facts/s</div> : null}
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      disabled={busy !== null}
                      onClick={() => void act(s.bankId, 'run')}
                      aria-label={`Consolidate now: ${s.bankId}`}
                    >
                      {busy === `run:${s.bankId}` ? 'Running…' : 'Consolidate now'}
                    </button>
                  </td>
                </tr>
                {dead.length > 0 && (
                  <tr class="dead">
                    <td colSpan={7}>
                      <strong>{dead.length} dead letter(s)</strong>{' '}
                      <button type="button" class="secondary" disabled={busy !== null} onClick={() => void act(s.bankId, 'retry')}>
                        Retry all
                      </button>
                      <ul>
                        {dead.map((d) => (
                          <li data-dead={d.factId}>
                            <code>{d.factId}</code> · {d.attempts} attempt(s) · {d.failedAt.slice(0, 19).replace('T', ' ')} · {d.error}{' '}
                            <button
                              type="button"
                              class="secondary"
                              disabled={busy !== null}
                              onClick={() => void act(s.bankId, 'retry', [d.factId])}
                            >
                              Retry
                            </button>
                          </li>
                        ))}
                      </ul>
                    </td>
                  </tr>
                )}
              </>
            ))}
          </tbody>
        </table>
      )}
      {rows && <Operations client={client} banks={rows.map((r) => r.status.bankId)} />}
    </section>
  );
}
