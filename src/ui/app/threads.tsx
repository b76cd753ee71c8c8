// Threads: a bank's conversation threads; one opens to its messages, its observations and reflections by
// generation (with their status: buffered, active, archived), the context an agent would be given (the memory
// prefix and the unobserved tail) against a token budget the reader can change, and its working memory.
import { useEffect, useState } from 'preact/hooks';
import { type CairnClient, type components, unwrap } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks, useLatest } from './common.tsx';

type Thread = components['schemas']['Thread'];
type Message = components['schemas']['ThreadMessage'];
type Item = components['schemas']['MemoryItem'];
type Context = components['schemas']['ThreadContext'];
type Status = components['schemas']['ThreadMemoryStatus'];
type WorkingMemory = components['schemas']['WorkingMemory'];

/** Messages shown: the newest ones, so a long thread does not load whole. */
const SHOWN_MESSAGES = 50;

interface Opened {
  status: Status;
  messages: Message[];
  items: Item[];
  context: Context;
  workingMemory: WorkingMemory;
}

/** Observations (generation 0) then reflections by generation, each group in creation order. */
function byGeneration(items: Item[]): Array<{ title: string; key: string; items: Item[] }> {
  const groups = new Map<string, Item[]>();
  for (const item of items) {
    const key = item.kind === 'observation' ? 'observation' : `reflection-${item.generation}`;
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return [...groups.entries()]
    .sort(([a], [b]) => (a === 'observation' ? -1 : b === 'observation' ? 1 : a.localeCompare(b, 'en', { numeric: true })))
    .map(([key, list]) => ({
      key,
      title: key === 'observation' ? 'Observations' : `Reflections, generation ${list[0].generation}`,
      items: list,
    }));
}

function Budget({ context }: { context: Context }) {
  const budget = context.maxTokens;
  const share = (n: number) => (budget ? `${Math.min(100, (100 * n) / budget).toFixed(1)}%` : '0%');
  return (
    <section class="budget" aria-label="Token budget">
      <p>
        <strong>{context.totalTokens}</strong> tokens{budget ? ` of a budget of ${budget}` : ' (no budget set)'}: memory prefix{' '}
        {context.prefixTokens}, messages {context.messageTokens}.
      </p>
      {budget ? (
        <div class="meter" role="img" aria-label={`${context.totalTokens} of ${budget} tokens used`}>
          <span class="prefix" style={{ width: share(context.prefixTokens) }} />
          <span class="tail" style={{ width: share(context.messageTokens) }} />
        </div>
      ) : null}
      <p class="sub">
        Left out by the budget: {context.omittedMessages} message(s), {context.omittedObservations} observation(s),{' '}
        {context.omittedReflections} reflection(s).
      </p>
    </section>
  );
}

export function ThreadsScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);
  const [threads, setThreads] = useState<Thread[] | null>(null);
  const [thread, setThread] = useState<string | null>(null);
  const [opened, setOpened] = useState<Opened | null>(null);
  const [maxTokens, setMaxTokens] = useState('');
  const latest = useLatest();

  useEffect(() => {
    if (!bank) return;
    unwrap(client.raw.GET('/v1/banks/{bank}/threads', { params: { path: { bank }, query: { limit: 200 } } }))
      .then((r) => setThreads(r.threads))
      .catch((e: unknown) => setError(messageOf(e)));
  }, [bank]);

  const open = async (id: string, budget: string): Promise<void> => {
    setThread(id);
    setError(null);
    const current = latest();
    try {
      const path = { bank, thread: id };
      const tokens = Number(budget);
      const status = await unwrap(client.raw.GET('/v1/banks/{bank}/threads/{thread}/memory', { params: { path } }));
      const offset = Math.max(0, status.messages.count - SHOWN_MESSAGES);
      const [messages, items, context, workingMemory] = await Promise.all([
        unwrap(
          client.raw.GET('/v1/banks/{bank}/threads/{thread}/messages', { params: { path, query: { limit: SHOWN_MESSAGES, offset } } }),
        ),
        unwrap(client.raw.GET('/v1/banks/{bank}/threads/{thread}/observations', { params: { path } })),
        unwrap(
          client.raw.GET('/v1/banks/{bank}/threads/{thread}/context', {
            params: { path, query: budget.trim() && Number.isInteger(tokens) && tokens > 0 ? { maxTokens: tokens } : {} },
          }),
        ),
        unwrap(client.raw.GET('/v1/banks/{bank}/threads/{thread}/working-memory', { params: { path } })),
      ]);
      if (!current()) return; // another thread (or budget) was asked for meanwhile
      setOpened({ status, messages: messages.messages, items: items.items, context, workingMemory });
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <section aria-labelledby="threads-title">
      <h1 id="threads-title">Threads</h1>
      <form
        class="query"
        onSubmit={(e) => {
          e.preventDefault();
          if (thread) void open(thread, maxTokens);
        }}
      >
        <BankPicker id="threads-bank" banks={banks} bank={bank} onChange={setBank} />
        <div class="field">
          <label for="threads-budget">Context budget (tokens)</label>
          <input
            id="threads-budget"
            inputMode="numeric"
            placeholder="the thread's"
            value={maxTokens}
            onInput={(e) => setMaxTokens(e.currentTarget.value)}
          />
        </div>
        <button type="submit" disabled={!thread}>
          Assemble context
        </button>
      </form>
      <ErrorLine error={error} />
      {threads === null ? (
        !error && <p class="loading">Loading threads…</p>
      ) : threads.length === 0 ? (
        <p class="empty">No threads in this bank: an agent creates one by appending messages to it.</p>
      ) : (
        <div class="split threads">
          <ol class="timeline" aria-label="Threads">
            {threads.map((t) => (
              <li key={t.id} data-thread={t.id} class={thread === t.id ? 'open' : undefined}>
                <button type="button" class="fact" onClick={() => void open(t.id, maxTokens)} aria-expanded={thread === t.id}>
                  <span class="text">{t.id}</span>
                  <span class="sub">
                    {t.resourceId ? `resource ${t.resourceId} · ` : ''}updated {t.updatedAt.slice(0, 16).replace('T', ' ')}
                  </span>
                </button>
              </li>
            ))}
          </ol>
          <aside class="panel detail" aria-label="The chosen thread">
            {opened ? <ThreadDetail opened={opened} /> : <p class="sub">Choose a thread to see its messages and memory.</p>}
          </aside>
        </div>
      )}
    </section>
  );
}

function ThreadDetail({ opened }: { opened: Opened }) {
  const { status, messages, items, context, workingMemory } = opened;
  return (
    <>
      <h2>{status.threadId}</h2>
      <p class="sub">
        {status.messages.count} message(s), {status.messages.tokens} tokens · observer {status.observer} · reflector {status.reflector} ·
        scope {status.scope}
      </p>
      <section aria-labelledby="thread-context">
        <h3 id="thread-context">Context</h3>
        <Budget context={context} />
        {context.prefix ? <pre class="code prefix">{context.prefix}</pre> : <p class="empty">No memory prefix yet.</p>}
        <p class="sub">Then the {context.messages.length} newest unobserved message(s), verbatim.</p>
      </section>
      <section aria-labelledby="thread-memory">
        <h3 id="thread-memory">Observations and reflections</h3>
        {items.length === 0 ? (
          <p class="empty">None yet: the observer writes them once the thread's messages pass its threshold.</p>
        ) : (
          byGeneration(items).map((g) => (
            <section key={g.key} data-generation={g.key} aria-label={g.title}>
              <h4>
                {g.title} ({g.items.length})
              </h4>
              <ul class="items">
                {g.items.map((item) => (
                  <li data-item={item.id} data-status={item.status}>
                    <span class="badge">{item.status}</span> <span class="sub">{item.tokens} tokens</span>
                    {item.fromSeq !== null && (
                      <span class="sub">
                        {' '}
                        · messages {item.fromSeq}–{item.toSeq}
                      </span>
                    )}
                    <div class="item-text">{item.text}</div>
                  </li>
                ))}
              </ul>
            </section>
          ))
        )}
      </section>
      <section aria-labelledby="thread-working">
        <h3 id="thread-working">Working memory</h3>
        <pre class="code">{workingMemory.content || '(empty)'}</pre>
        <p class="sub">updated {workingMemory.updatedAt.slice(0, 16).replace('T', ' ')}</p>
      </section>
      <section aria-labelledby="thread-messages">
        <h3 id="thread-messages">
          Messages{status.messages.count > messages.length ? ` (the newest ${messages.length} of ${status.messages.count})` : ''}
        </h3>
        <ol class="messages" aria-labelledby="thread-messages">
          {messages.map((m) => (
            <li data-seq={m.seq} data-role={m.role}>
              <span class="badge">{m.name ?? m.role}</span>{' '}
              <span class="sub">
                {m.timestamp.slice(0, 16).replace('T', ' ')} · {m.tokens} tokens
              </span>
              <div class="item-text">{m.content}</div>
            </li>
          ))}
        </ol>
      </section>
    </>
  );
}
