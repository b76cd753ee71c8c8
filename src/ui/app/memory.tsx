// The memory browser: a bank's facts as a timeline (when each happened and when it was said), filtered by kind,
// entity, session, document and tag; a fact opens to its source passage with its sentence highlighted, and can be
// deleted (or its whole document), after which its tombstone is listed.
import { useEffect, useState } from 'preact/hooks';
import { type CairnClient, type components, unwrap } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks, useLatest } from './common.tsx';

type Fact = components['schemas']['Fact'];
type Entity = components['schemas']['Entity'];
type Chunk = components['schemas']['Chunk'];
type Tombstone = components['schemas']['Tombstone'];
type Kind = Fact['kind'];
type Session = components['schemas']['Session'];

/** The passage a fact was read from, its sentence marked. */
function Passage({ chunk, start, end }: { chunk: Chunk; start: number; end: number }) {
  const text = chunk.text;
  return (
    <blockquote class="passage">
      {text.slice(0, start)}
      <mark>{text.slice(start, end)}</mark>
      {text.slice(end)}
    </blockquote>
  );
}

const day = (iso: string): string => iso.slice(0, 10);

export function MemoryScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [kind, setKind] = useState<Kind | ''>('');
  const [entity, setEntity] = useState('');
  const [documentId, setDocumentId] = useState('');
  const [session, setSession] = useState('');
  const [sessions, setSessions] = useState<Session[]>([]);
  const [tag, setTag] = useState('');
  const [entities, setEntities] = useState<Entity[]>([]);
  const [facts, setFacts] = useState<Fact[] | null>(null);
  const [total, setTotal] = useState(0);
  const [open, setOpen] = useState<{ fact: Fact; chunk: Chunk | null } | null>(null);
  const [tombstones, setTombstones] = useState<Tombstone[]>([]);
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);
  const latest = useLatest();
  const latestShown = useLatest();

  const load = async (): Promise<void> => {
    if (!bank) return;
    setError(null);
    const current = latest();
    try {
      const path = { bank };
      const [page, ents, tombs, sessionList] = await Promise.all([
        unwrap(
          client.raw.GET('/v1/banks/{bank}/facts', {
            params: {
              path,
              query: {
                limit: 200,
                ...(kind ? { kind } : {}),
                ...(entity ? { entityId: entity } : {}),
                ...(documentId ? { documentId } : {}),
                ...(session ? { session } : {}),
              },
            },
          }),
        ),
        client.raw.GET('/v1/banks/{bank}/entities', { params: { path, query: { limit: 200 } } }),
        client.raw.GET('/v1/banks/{bank}/tombstones', { params: { path, query: { limit: 20 } } }),
        client.raw.GET('/v1/banks/{bank}/sessions', { params: { path } }),
      ]);
      if (!current()) return; // the filters changed meanwhile: a newer load answers
      const knownSessions = sessionList.data?.sessions ?? [];
      setSessions(knownSessions);
      // A session no longer in the bank (its facts deleted) lifts the filter on it, as for entities.
      if (session && !knownSessions.some((s) => s.id === session)) setSession('');
      const when = (f: Fact): string => f.occurredStart ?? f.mentionedAt;
      setFacts([...page.facts].sort((a, b) => when(a).localeCompare(when(b))));
      setTotal(page.total);
      const known = ents.data?.entities ?? [];
      setEntities(known);
      // An entity no fact names any more (its last fact deleted) leaves the list: so does the filter on it.
      if (entity && !known.some((e) => e.id === entity)) setEntity('');
      setTombstones(tombs.data?.tombstones ?? []);
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    setOpen(null);
    void load();
  }, [bank, kind, entity, documentId, session]);

  const show = async (fact: Fact): Promise<void> => {
    setOpen({ fact, chunk: null });
    if (!fact.source) return;
    const current = latestShown();
    try {
      const document = await unwrap(
        client.raw.GET('/v1/banks/{bank}/documents/{document}', { params: { path: { bank, document: fact.source.documentId } } }),
      );
      if (!current()) return; // another fact was opened meanwhile
      const chunk = document.chunks.find((c) => c.id === fact.source?.chunkId) ?? null;
      if (!chunk) setError(`the passage of this fact is no longer stored (document ${fact.source.documentId})`);
      setOpen({ fact, chunk });
    } catch (e) {
      if (current()) setError(messageOf(e));
    }
  };
  const forget = async (what: 'fact' | 'document', fact: Fact): Promise<void> => {
    const target = what === 'fact' ? fact.id : (fact.source?.documentId ?? '');
    if (!confirm(what === 'fact' ? `Delete this fact?\n\n${fact.text}` : `Delete the document "${target}" and every fact read from it?`))
      return;
    try {
      if (what === 'fact') await client.forgetFact(bank, target, 'deleted in the explorer');
      else await client.forgetDocument(bank, target, 'deleted in the explorer');
      setOpen(null);
      await load();
    } catch (e) {
      setError(messageOf(e));
    }
  };

  const names = new Map(entities.map((e) => [e.id, e.name]));
  const shown = (facts ?? []).filter((f) => !tag || f.tags.includes(tag));
  return (
    <section aria-labelledby="memory-title">
      <h1 id="memory-title">Memory</h1>
      <form class="query" onSubmit={(e) => e.preventDefault()}>
        <BankPicker id="memory-bank" banks={banks} bank={bank} onChange={setBank} />
        <div class="field">
          <label for="memory-kind">Kind</label>
          <select id="memory-kind" value={kind} onChange={(e) => setKind(e.currentTarget.value as Kind | '')}>
            <option value="">all</option>
            <option value="world">world</option>
            <option value="experience">experience</option>
            <option value="observation">observation</option>
          </select>
        </div>
        <div class="field">
          <label for="memory-entity">Entity</label>
          <select id="memory-entity" value={entity} onChange={(e) => setEntity(e.currentTarget.value)}>
            <option value="">all</option>
            {entities.map((e) => (
              <option value={e.id}>
                {e.name} ({e.mentionCount})
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="memory-session">Session</label>
          <select id="memory-session" value={session} onChange={(e) => setSession(e.currentTarget.value)}>
            <option value="">all</option>
            {sessions.map((s) => (
              <option value={s.id}>
                #{s.ordinal} {s.id}
                {s.start ? ` (${day(s.start)})` : ''}
              </option>
            ))}
          </select>
        </div>
        <div class="field">
          <label for="memory-document">Document</label>
          <input id="memory-document" value={documentId} onChange={(e) => setDocumentId(e.currentTarget.value.trim())} placeholder="any" />
        </div>
        <div class="field">
          <label for="memory-tag">Tag</label>
          <input id="memory-tag" value={tag} onInput={(e) => setTag(e.currentTarget.value.trim())} placeholder="any" />
        </div>
      </form>
      <ErrorLine error={error} />
      {facts === null ? (
        !error && <p class="loading">Loading facts…</p>
      ) : shown.length === 0 ? (
        <p class="empty">No facts match.</p>
      ) : (
        <div class="split">
          <ol class="timeline" aria-label={`Facts, ${shown.length} of ${total}, by when they happened`}>
            {shown.map((f) => (
              <li key={f.id} data-fact={f.id} class={open?.fact.id === f.id ? 'open' : undefined}>
                <button type="button" class="fact" onClick={() => void show(f)} aria-expanded={open?.fact.id === f.id}>
                  <span class="when">
                    {f.occurredStart ? `happened ${day(f.occurredStart)} · ` : ''}said {day(f.mentionedAt)}
                  </span>
                  <span class="text">{f.text}</span>
                  <span class="sub">
                    {f.kind}
                    {f.entities.length ? ` · ${f.entities.map((id) => names.get(id) ?? id).join(', ')}` : ''}
                    {f.tags.length ? ` · #${f.tags.join(' #')}` : ''}
                  </span>
                </button>
              </li>
            ))}
          </ol>
          <aside class="panel detail" aria-label="The chosen fact">
            {open ? (
              <>
                <h2>Source</h2>
                <p class="sub">
                  {open.fact.source
                    ? `document ${open.fact.source.documentId}${open.fact.speaker ? ` · ${open.fact.speaker}` : ''}`
                    : 'no source (an observation)'}
                </p>
                {open.chunk && open.fact.source ? (
                  <Passage chunk={open.chunk} start={open.fact.source.start} end={open.fact.source.end} />
                ) : open.fact.source && !error ? (
                  <p class="loading">Reading the passage…</p>
                ) : null}
                <div class="actions">
                  <button type="button" class="danger" onClick={() => void forget('fact', open.fact)}>
                    Delete fact
                  </button>
                  {open.fact.source && (
                    <button type="button" class="danger" onClick={() => void forget('document', open.fact)}>
                      Delete document
                    </button>
                  )}
                </div>
              </>
            ) : (
              <p class="sub">Choose a fact to see the passage it was read from.</p>
            )}
          </aside>
        </div>
      )}
      <section class="tombstones" aria-labelledby="tombstones-title">
        <h2 id="tombstones-title">Tombstones</h2>
        {tombstones.length === 0 ? (
          <p class="empty">Nothing deleted yet.</p>
        ) : (
          <ul class="tombstones">
            {tombstones.map((t) => (
              <li data-tombstone={t.targetId}>
                {t.kind} <code>{t.targetId}</code> · {t.reason} · {t.at.slice(0, 19).replace('T', ' ')}
              </li>
            ))}
          </ul>
        )}
      </section>
    </section>
  );
}
