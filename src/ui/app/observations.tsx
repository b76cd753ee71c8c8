// Observation audit: a bank's observations; one opens to its evidence chain down to the sentence (the facts that
// support it and those that contradict it, each with the sentence and document it was read from) and its revision
// history as a readable diff (created, supported, refined, contradicted, evidence removed), its proof count, and
// whether it is stale (facts about its entities still wait to be consolidated).
import { useEffect, useState } from 'preact/hooks';
import type { CairnClient, components } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks, useLatest } from './common.tsx';

type Fact = components['schemas']['Fact'];
type Revision = components['schemas']['ObservationRevision'];
type Link = components['schemas']['EvidenceLink'];
type Audit = Extract<components['schemas']['Why'], { kind: 'observation' }>;

const REASONS: Record<Revision['reason'], string> = {
  created: 'Created',
  supported: 'Supported by new evidence',
  refined: 'Refined',
  contradicted: 'Contradicted',
  'evidence-removed': 'Evidence removed',
};

function Evidence({ title, links }: { title: string; links: Link[] }) {
  return (
    <section aria-label={title}>
      <h3>
        {title} ({links.length})
      </h3>
      {links.length === 0 ? (
        <p class="empty">None.</p>
      ) : (
        <ul class="evidence">
          {links.map((l) => (
            <li data-evidence={l.fact.id}>
              <div>{l.fact.text}</div>
              {l.source && (
                <blockquote class="passage">
                  <mark>{l.source.sentence}</mark>
                </blockquote>
              )}
              <div class="sub">
                {l.source ? `document ${l.source.documentId}` : 'no source'} · said {l.fact.mentionedAt.slice(0, 10)} · linked{' '}
                {l.linkedAt.slice(0, 10)}
              </div>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

export function ObservationsScreen({ client, bank: initial, opened }: { client: CairnClient; bank: string | null; opened: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);
  const [observations, setObservations] = useState<Fact[] | null>(null);
  const [open, setOpen] = useState<Audit | null>(null);
  const latest = useLatest();

  useEffect(() => {
    if (!bank) return;
    client.raw
      .GET('/v1/banks/{bank}/facts', { params: { path: { bank }, query: { kind: 'observation', limit: 200 } } })
      .then((r) => setObservations(r.data?.facts ?? []))
      .catch((e: unknown) => setError(messageOf(e)));
  }, [bank]);

  // The address names the open observation (the list writes it, the entity graph links to it, Back returns to it).
  useEffect(() => {
    if (bank && opened) void show(opened);
    else setOpen(null);
  }, [bank, opened]);

  const choose = (id: string): void => {
    location.hash = `#/observations/${encodeURIComponent(bank)}/${encodeURIComponent(id)}`;
  };

  const show = async (id: string): Promise<void> => {
    try {
      // The why chain carries all of it in one read: the evidence both ways, the history and the staleness.
      const current = latest();
      const why = await client.why(bank, id);
      if (why.kind === 'observation' && current()) setOpen(why);
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <section aria-labelledby="observations-title">
      <h1 id="observations-title">Observations</h1>
      <form class="query" onSubmit={(e) => e.preventDefault()}>
        <BankPicker id="observations-bank" banks={banks} bank={bank} onChange={setBank} />
      </form>
      <ErrorLine error={error} />
      {observations === null ? (
        !error && <p class="loading">Loading observations…</p>
      ) : observations.length === 0 ? (
        <p class="empty">No observations yet: consolidation forms them from facts.</p>
      ) : (
        <div class="split">
          <ol class="timeline" aria-label="Observations">
            {observations.map((o) => (
              <li key={o.id} data-observation={o.id} class={open?.observation.id === o.id ? 'open' : undefined}>
                <button type="button" class="fact" onClick={() => choose(o.id)} aria-expanded={open?.observation.id === o.id}>
                  <span class="text">{o.text}</span>
                  <span class="sub">
                    {o.status} · updated {o.updatedAt.slice(0, 10)}
                  </span>
                </button>
              </li>
            ))}
          </ol>
          <aside class="panel detail" aria-label="The chosen observation">
            {open ? (
              <>
                <h2>{open.observation.text}</h2>
                <p class="sub">
                  proof count {open.observation.proofCount} · {open.observation.status} ·{' '}
                  {open.stale ? (
                    <span class="badge stale" data-stale="true">
                      stale: newer facts about its entities wait to be consolidated
                    </span>
                  ) : (
                    <span class="badge" data-stale="false">
                      up to date with its entities' facts
                    </span>
                  )}
                </p>
                <Evidence title="Supporting" links={open.supporting} />
                <Evidence title="Contradicting" links={open.contradicting} />
                <h3>History</h3>
                <ol class="history">
                  {open.history.map((r) => (
                    <li data-revision={r.reason}>
                      <strong>{REASONS[r.reason]}</strong> <span class="sub">{r.at.slice(0, 19).replace('T', ' ')}</span>
                      {r.oldText !== null && r.oldText !== r.newText ? (
                        <div class="diff">
                          <del>{r.oldText}</del>
                          <ins>{r.newText}</ins>
                        </div>
                      ) : (
                        <div>{r.newText}</div>
                      )}
                      <div class="sub">{r.factIds.length} fact(s)</div>
                    </li>
                  ))}
                </ol>
              </>
            ) : (
              <p class="sub">Choose an observation to see its evidence and history.</p>
            )}
          </aside>
        </div>
      )}
    </section>
  );
}
