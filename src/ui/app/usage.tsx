// Usage: a bank's LLM calls, tokens and cost over time, as stacked bars per hour or day (one colour per
// operation), with the totals per operation and model in a table beneath (the chart's data, readable without it).
// The chart is a few SVG rectangles drawn here: a charting library would outweigh what it draws.
import { useEffect, useState } from 'preact/hooks';
import { type CairnClient, type components, unwrap } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks, useLatest } from './common.tsx';

type Report = components['schemas']['UsageReport'];
type Row = NonNullable<Report['series']>[number];

const RANGES = { day: 24 * 3600e3, week: 7 * 24 * 3600e3, month: 30 * 24 * 3600e3 } as const;
type Range = keyof typeof RANGES;
const MEASURES = {
  calls: { label: 'Calls', of: (r: Row) => r.calls, format: (n: number) => String(n) },
  tokens: { label: 'Tokens (in + out)', of: (r: Row) => r.inputTokens + r.outputTokens, format: (n: number) => n.toLocaleString('en') },
  cost: { label: 'Cost (USD)', of: (r: Row) => r.costUsd, format: (n: number) => `$${n.toFixed(4)}` },
} as const;
type Measure = keyof typeof MEASURES;
/** Operation colours, each distinct and at least 3:1 against white (graphical objects, WCAG 1.4.11). */
const PALETTE = ['#0b5cad', '#b34700', '#1d6b2f', '#6b2d8a', '#8a5a00', '#4d5660', '#a3195b', '#00707a', '#5a4fcf', '#7a5230'];
/** Most bars drawn (a month of hours). */
const MAX_BARS = 24 * 31;
/** Room one axis label needs (an hour's label is "11-25 03:00"). */
const LABEL_PX = 84;

function Chart({ series, measure, bucket }: { series: Row[]; measure: Measure; bucket: 'hour' | 'day' }) {
  const { of, format, label } = MEASURES[measure];
  const operations = [...new Set(series.map((r) => r.operation))].sort();
  // Every hour (or day) from the first with calls to the last, so a quiet stretch shows as a gap.
  const step = bucket === 'hour' ? 3600e3 : 86400e3;
  const seen = [...new Set(series.map((r) => r.start))].sort();
  const starts: string[] = [];
  if (seen.length > 0)
    for (let t = Date.parse(seen[0]); t <= Date.parse(seen[seen.length - 1]) && starts.length < MAX_BARS; t += step)
      starts.push(new Date(t).toISOString());
  const stacks = starts.map((start) => {
    const rows = series.filter((r) => r.start === start);
    return { start, parts: operations.map((op) => rows.filter((r) => r.operation === op).reduce((n, r) => n + of(r), 0)) };
  });
  const top = Math.max(0, ...stacks.map((s) => s.parts.reduce((a, b) => a + b, 0)));
  const width = 760;
  const height = 220;
  const left = 70;
  const bottom = 40;
  const slot = (width - left) / Math.max(1, stacks.length);
  const bar = Math.max(2, Math.min(48, slot * 0.7));
  const y = (n: number) => (top > 0 ? ((height - bottom - 10) * n) / top : 0);
  const when = (start: string) => (bucket === 'hour' ? start.slice(5, 16).replace('T', ' ') : start.slice(0, 10));
  const total = stacks.reduce((n, s) => n + s.parts.reduce((a, b) => a + b, 0), 0);
  // Every how many bars a time is written under, so the labels never overlap.
  const every = Math.max(1, Math.ceil(LABEL_PX / slot));
  if (total === 0)
    return (
      <p class="empty">Nothing to chart: the {label.toLowerCase()} of these calls add up to zero (a model without a price costs $0).</p>
    );
  return (
    <figure class="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={`${label} per ${bucket}: ${format(total)} in ${stacks.length} ${bucket}(s), by operation`}
        data-bars={stacks.length}
        data-total={total}
      >
        <line x1={left} y1={height - bottom} x2={width} y2={height - bottom} stroke="#4d5660" />
        <text x={left - 6} y={height - bottom} text-anchor="end" class="axis">
          0
        </text>
        {top > 0 && (
          <text x={left - 6} y={height - bottom - y(top) + 4} text-anchor="end" class="axis">
            {format(top)}
          </text>
        )}
        {stacks.map((s, i) => {
          let base = height - bottom;
          const x = left + i * slot + (slot - bar) / 2;
          return (
            <g data-start={s.start}>
              {s.parts.map((value, k) => {
                const h = y(value);
                base -= h;
                return value > 0 ? (
                  <rect x={x} y={base} width={bar} height={h} fill={PALETTE[k % PALETTE.length]}>
                    <title>{`${when(s.start)} · ${operations[k]}: ${format(value)}`}</title>
                  </rect>
                ) : null;
              })}
              {i % every === 0 && (
                <text x={x + bar / 2} y={height - bottom + 16} text-anchor="middle" class="axis">
                  {when(s.start)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption>
        {operations.map((op, k) => (
          <span class="legend">
            <span class="swatch" style={{ background: PALETTE[k % PALETTE.length] }} aria-hidden="true" /> {op}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}

/** A row's figures: calls, failures, tokens in, out and cached, cost, and the mean latency of a call. */
function TotalCells({ totals: t }: { totals: Report['total'] }) {
  return (
    <>
      <td class="num">{t.calls}</td>
      <td class="num">{t.failures}</td>
      <td class="num">{t.inputTokens.toLocaleString('en')}</td>
      <td class="num">{t.outputTokens.toLocaleString('en')}</td>
      <td class="num">{t.cachedTokens.toLocaleString('en')}</td>
      <td class="num">{t.costUsd.toFixed(4)}</td>
      <td class="num">{t.calls ? `${Math.round(t.latencyMs / t.calls)} ms` : '–'}</td>
    </>
  );
}

export function UsageScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);
  const [range, setRange] = useState<Range>('week');
  const [bucket, setBucket] = useState<'hour' | 'day'>('hour');
  const [measure, setMeasure] = useState<Measure>('tokens');
  const [report, setReport] = useState<Report | null>(null);
  const latest = useLatest();

  useEffect(() => {
    if (!bank) return;
    setError(null);
    const from = new Date(Date.now() - RANGES[range]).toISOString();
    const current = latest();
    unwrap(client.raw.GET('/v1/banks/{bank}/usage', { params: { path: { bank }, query: { from, bucket } } }))
      .then((r) => current() && setReport(r))
      .catch((e: unknown) => setError(messageOf(e)));
  }, [bank, range, bucket]);

  return (
    <section aria-labelledby="usage-title">
      <h1 id="usage-title">Usage</h1>
      <form class="query" onSubmit={(e) => e.preventDefault()}>
        <BankPicker id="usage-bank" banks={banks} bank={bank} onChange={setBank} />
        <div class="field">
          <label for="usage-range">Over the last</label>
          <select id="usage-range" value={range} onChange={(e) => setRange(e.currentTarget.value as Range)}>
            <option value="day">day</option>
            <option value="week">7 days</option>
            <option value="month">30 days</option>
          </select>
        </div>
        <div class="field">
          <label for="usage-bucket">Per</label>
          <select id="usage-bucket" value={bucket} onChange={(e) => setBucket(e.currentTarget.value as 'hour' | 'day')}>
            <option value="hour">hour</option>
            <option value="day">day</option>
          </select>
        </div>
        <div class="field">
          <label for="usage-measure">Show</label>
          <select id="usage-measure" value={measure} onChange={(e) => setMeasure(e.currentTarget.value as Measure)}>
            {Object.entries(MEASURES).map(([id, m]) => (
              <option value={id}>{m.label}</option>
            ))}
          </select>
        </div>
      </form>
      <ErrorLine error={error} />
      {report === null ? (
        !error && <p class="loading">Loading usage…</p>
      ) : report.total.calls === 0 ? (
        <p class="empty">No LLM calls in this range: with no model configured, Cairn works offline and calls none.</p>
      ) : (
        <>
          <Chart series={report.series ?? []} measure={measure} bucket={bucket} />
          <table class="usage">
            <caption class="visually-hidden">Totals per operation and model</caption>
            <thead>
              <tr>
                <th scope="col">Operation</th>
                <th scope="col">Model</th>
                <th scope="col">Calls</th>
                <th scope="col">Failed</th>
                <th scope="col">Tokens in</th>
                <th scope="col">Tokens out</th>
                <th scope="col">Cached</th>
                <th scope="col">Cost (USD)</th>
                <th scope="col">Mean latency</th>
              </tr>
            </thead>
            <tbody>
              {report.groups.map((g) => (
                <tr data-usage={`${g.operation}/${g.model}`}>
                  <td>{g.operation}</td>
                  <td>
                    {g.model} <span class="sub">{g.provider}</span>
                  </td>
                  <TotalCells totals={g} />
                </tr>
              ))}
            </tbody>
            <tfoot>
              <tr>
                <th scope="row" colSpan={2}>
                  Total
                </th>
                <TotalCells totals={report.total} />
              </tr>
            </tfoot>
          </table>
        </>
      )}
    </section>
  );
}
