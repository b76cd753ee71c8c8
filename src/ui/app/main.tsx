// Cairn Explorer's page: asks for the API key once (kept for the browser session), then shows the screens, chosen
// by the address's hash (#/<screen>/<bank>, e.g. #/recall/demo; #/banks and #/consolidation name no bank;
// #/observations/<bank>/<id> opens one observation). Everything it shows comes from the public API through the
// typed client.
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { CairnClient, CairnError } from '../../../clients/typescript/src/index.ts';
import { BanksScreen } from './banks.tsx';
import { ConsolidationScreen } from './consolidation.tsx';
import { EntitiesScreen } from './entities.tsx';
import { MemoryScreen } from './memory.tsx';
import { ObservationsScreen } from './observations.tsx';
import { RecallScreen } from './recall.tsx';
import { ReflectScreen } from './reflect.tsx';
import { ThreadsScreen } from './threads.tsx';
import { UsageScreen } from './usage.tsx';

const KEY = 'cairn-explorer-key';

function clientWith(key: string | null): CairnClient {
  return new CairnClient({ baseUrl: location.origin, apiKey: key || undefined, maxRetries: 1 });
}

/** A part of the address's hash, percent-decoded; one typed by hand that does not decode is taken as written. */
function decodedPart(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

function useHash(): string {
  const [hash, setHash] = useState(location.hash || '#/banks');
  useEffect(() => {
    const on = (): void => setHash(location.hash || '#/banks');
    addEventListener('hashchange', on);
    return () => removeEventListener('hashchange', on);
  }, []);
  return hash;
}

function KeyForm({ onKey, failed }: { onKey: (key: string) => void; failed: boolean }) {
  const [key, setKey] = useState('');
  return (
    <main class="narrow">
      <h1>Cairn Explorer</h1>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          onKey(key);
        }}
      >
        <label for="api-key">API key</label>
        <input id="api-key" type="password" autocomplete="current-password" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
        <p class="hint">The server's CAIRN_API_KEY. It is kept in this browser tab only.</p>
        {failed && (
          <p class="error" role="alert">
            That key was refused.
          </p>
        )}
        <button type="submit">Open</button>
      </form>
    </main>
  );
}

function App() {
  const [key, setKey] = useState<string | null>(sessionStorage.getItem(KEY));
  const [state, setState] = useState<'checking' | 'ok' | 'need-key' | 'refused'>('checking');
  const hash = useHash();
  const client = clientWith(key);

  useEffect(() => {
    client
      .listBanks()
      .then(() => setState('ok'))
      .catch((e: unknown) => setState(e instanceof CairnError && e.status === 401 ? (key ? 'refused' : 'need-key') : 'ok'));
  }, [key]);

  if (state === 'checking') return <p class="loading">Connecting…</p>;
  if (state !== 'ok')
    return (
      <KeyForm
        failed={state === 'refused'}
        onKey={(k) => {
          sessionStorage.setItem(KEY, k);
          setState('checking');
          setKey(k);
        }}
      />
    );
  const [, screen, bank, item] = hash.split('/').map(decodedPart);
  const nav = [
    ['banks', 'Banks'],
    ['recall', 'Recall debugger'],
    ['memory', 'Memory'],
    ['entities', 'Entity graph'],
    ['observations', 'Observations'],
    ['reflect', 'Reflect'],
    ['threads', 'Threads'],
    ['consolidation', 'Consolidation'],
    ['usage', 'Usage'],
  ] as const;
  return (
    <>
      <header>
        <strong class="brand">Cairn Explorer</strong>
        <nav aria-label="Screens">
          {nav.map(([id, label]) => (
            <a
              href={`#/${id}${bank && id !== 'banks' ? `/${encodeURIComponent(bank)}` : ''}`}
              aria-current={screen === id ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        {key && (
          <button
            type="button"
            class="header-action"
            onClick={() => {
              // A key changed on the server mid-session: back to the prompt without reloading.
              sessionStorage.removeItem(KEY);
              setState('checking');
              setKey(null);
            }}
          >
            Change API key
          </button>
        )}
      </header>
      {/* Keyed by screen and bank: a bank chosen anew (in the address or a picker) starts its screen afresh. */}
      <main key={`${screen}/${bank ?? ''}`}>
        {screen === 'recall' ? (
          <RecallScreen client={client} bank={bank ?? null} />
        ) : screen === 'memory' ? (
          <MemoryScreen client={client} bank={bank ?? null} />
        ) : screen === 'entities' ? (
          <EntitiesScreen client={client} bank={bank ?? null} />
        ) : screen === 'observations' ? (
          <ObservationsScreen client={client} bank={bank ?? null} opened={item ?? null} />
        ) : screen === 'reflect' ? (
          <ReflectScreen client={client} bank={bank ?? null} />
        ) : screen === 'threads' ? (
          <ThreadsScreen client={client} bank={bank ?? null} />
        ) : screen === 'usage' ? (
          <UsageScreen client={client} bank={bank ?? null} />
        ) : screen === 'consolidation' ? (
          <ConsolidationScreen client={client} />
        ) : (
          <BanksScreen client={client} />
        )}
      </main>
    </>
  );
}

render(<App />, document.getElementById('root')!);
