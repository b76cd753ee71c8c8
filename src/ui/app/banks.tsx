// The Banks screen: every bank with its counts (facts, observations, waiting for consolidation), creating one,
// editing its mission and configuration, and deleting it after a confirmation.
import { useEffect, useState } from 'preact/hooks';
import { type Bank, type CairnClient, type ConsolidationStatus, unwrap } from '../../../clients/typescript/src/index.ts';
import { ErrorLine, messageOf } from './common.tsx';

type Row = { bank: Bank; status: ConsolidationStatus | null };

function EditBank({ client, bank, onDone }: { client: CairnClient; bank: Bank; onDone: () => void }) {
  const [mission, setMission] = useState(bank.mission);
  const [config, setConfig] = useState(JSON.stringify(bank.config, null, 2));
  const [error, setError] = useState<string | null>(null);
  const save = async (): Promise<void> => {
    try {
      const parsed = JSON.parse(config) as Record<string, unknown>;
      await unwrap(client.raw.PATCH('/v1/banks/{bank}', { params: { path: { bank: bank.id } }, body: { mission, config: parsed } }));
      onDone();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  return (
    <form
      class="edit"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <label for={`mission-${bank.id}`}>Mission</label>
      <textarea id={`mission-${bank.id}`} rows={3} value={mission} onInput={(e) => setMission(e.currentTarget.value)} />
      <label for={`config-${bank.id}`}>Configuration (JSON)</label>
      <textarea id={`config-${bank.id}`} rows={5} class="code" value={config} onInput={(e) => setConfig(e.currentTarget.value)} />
      <ErrorLine error={error} />
      <div class="actions">
        <button type="submit">Save</button>
        <button type="button" class="secondary" onClick={onDone}>
          Cancel
        </button>
      </div>
    </form>
  );
}

export function BanksScreen({ client }: { client: CairnClient }) {
  const [rows, setRows] = useState<Row[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [id, setId] = useState('');
  const [mission, setMission] = useState('');

  const load = async (): Promise<void> => {
    try {
      const banks = await client.listBanks();
      setRows(
        await Promise.all(banks.map(async (bank) => ({ bank, status: await client.consolidationStatus(bank.id).catch(() => null) }))),
      );
    } catch (e) {
      setError(messageOf(e));
    }
  };
  useEffect(() => {
    void load();
  }, []);

  const create = async (): Promise<void> => {
    setError(null);
    try {
      await client.createBank({ id: id.trim(), ...(mission.trim() ? { mission } : {}) });
      setId('');
      setMission('');
      await load();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const remove = async (bank: string): Promise<void> => {
    if (!confirm(`Delete the bank "${bank}" and everything it remembers? This cannot be undone.`)) return;
    try {
      await client.deleteBank(bank);
      await load();
    } catch (e) {
      setError(messageOf(e));
    }
  };

  return (
    <section aria-labelledby="banks-title">
      <h1 id="banks-title">Banks</h1>
      <ErrorLine error={error} />
      {rows === null ? (
        !error && <p class="loading">Loading banks…</p>
      ) : rows.length === 0 ? (
        <p class="empty">No banks yet: create one below.</p>
      ) : (
        <table class="banks">
          <caption class="visually-hidden">Memory banks with their counts</caption>
          <thead>
            <tr>
              <th scope="col">Bank</th>
              <th scope="col">Mission</th>
              <th scope="col" class="num">
                Facts
              </th>
              <th scope="col" class="num">
                Observations
              </th>
              <th scope="col" class="num">
                Waiting
              </th>
              <th scope="col">Actions</th>
            </tr>
          </thead>
          <tbody>
            {rows.map(({ bank, status }) => (
              <tr key={bank.id} data-bank={bank.id}>
                <th scope="row">
                  <a href={`#/recall/${encodeURIComponent(bank.id)}`}>{bank.id}</a>
                  {bank.name !== bank.id && <div class="sub">{bank.name}</div>}
                </th>
                <td class="mission">
                  {editing === bank.id ? (
                    <EditBank
                      client={client}
                      bank={bank}
                      onDone={() => {
                        setEditing(null);
                        void load();
                      }}
                    />
                  ) : (
                    bank.mission || <span class="sub">none</span>
                  )}
                </td>
                <td class="num">{status ? status.consolidated + status.backlog + status.failed : '–'}</td>
                <td class="num">{status?.observations ?? '–'}</td>
                <td class="num">{status?.backlog ?? '–'}</td>
                <td class="actions">
                  <button type="button" class="secondary" onClick={() => setEditing(bank.id)} aria-label={`Edit ${bank.id}`}>
                    Edit
                  </button>
                  <button type="button" class="danger" onClick={() => void remove(bank.id)} aria-label={`Delete ${bank.id}`}>
                    Delete
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <form
        class="create"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <h2>New bank</h2>
        <label for="new-bank-id">Id</label>
        <input id="new-bank-id" required value={id} onInput={(e) => setId(e.currentTarget.value)} placeholder="alice" />
        <label for="new-bank-mission">Mission</label>
        <input
          id="new-bank-mission"
          value={mission}
          onInput={(e) => setMission(e.currentTarget.value)}
          placeholder="What this memory is for"
        />
        <button type="submit">Create bank</button>
      </form>
    </section>
  );
}
