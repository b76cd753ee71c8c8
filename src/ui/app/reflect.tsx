// Reflect: ask a bank a question and read the answer with the memories it cites, each with its text, kind and
// when it was said; citations in the answer's text are listed in the order they appear.
import { useState } from 'preact/hooks';
import type { CairnClient, components, ReflectResponse } from '../../../clients/typescript/src/index.ts';
import { BankPicker, ErrorLine, messageOf, useBanks } from './common.tsx';

type Fact = components['schemas']['Fact'];

export function ReflectScreen({ client, bank: initial }: { client: CairnClient; bank: string | null }) {
  const [query, setQuery] = useState('');
  const [answer, setAnswer] = useState<ReflectResponse | null>(null);
  const [cited, setCited] = useState<Fact[]>([]);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const { banks, bank, setBank } = useBanks(client, initial, setError);

  const ask = async (): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      const answered = await client.reflect(bank, { query });
      setAnswer(answered);
      const ids = [...answered.basedOn.observations, ...answered.basedOn.facts];
      const facts = await Promise.all(
        ids.map((id) =>
          client.raw.GET('/v1/banks/{bank}/facts/{fact}', { params: { path: { bank, fact: id } } }).then((r) => r.data ?? null),
        ),
      );
      setCited(facts.filter((f): f is Fact => f !== null));
    } catch (e) {
      setAnswer(null);
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const text = answer ? (typeof answer.answer === 'string' ? answer.answer : JSON.stringify(answer.answer, null, 2)) : '';
  return (
    <section aria-labelledby="reflect-title">
      <h1 id="reflect-title">Reflect</h1>
      <form
        class="query"
        onSubmit={(e) => {
          e.preventDefault();
          void ask();
        }}
      >
        <BankPicker id="reflect-bank" banks={banks} bank={bank} onChange={setBank} />
        <div class="field grow">
          <label for="reflect-query">Question</label>
          <input
            id="reflect-query"
            required
            value={query}
            onInput={(e) => setQuery(e.currentTarget.value)}
            placeholder="Where does Alice work now?"
          />
        </div>
        <button type="submit" disabled={busy || !bank}>
          {busy ? 'Thinking…' : 'Ask'}
        </button>
      </form>
      <ErrorLine error={error} />
      {answer && (
        <div class="split">
          <section class="panel" aria-labelledby="answer-title">
            <h2 id="answer-title">Answer</h2>
            <p class="answer">{text}</p>
            <p class="sub">answered by {answer.answerer}</p>
          </section>
          <section class="panel" aria-labelledby="cited-title">
            <h2 id="cited-title">Based on</h2>
            {cited.length === 0 ? (
              <p class="empty">No memory cited.</p>
            ) : (
              <ol class="cited">
                {cited.map((f) => (
                  <li data-cited={f.id}>
                    <div>{f.text}</div>
                    <div class="sub">
                      {f.kind} · said {f.mentionedAt.slice(0, 10)} · <code>{f.id}</code>
                    </div>
                  </li>
                ))}
              </ol>
            )}
          </section>
        </div>
      )}
    </section>
  );
}
