// Pieces the screens share: an error line announced to screen readers, a readable message from any failure, and
// the bank picker (the banks, the chosen one: the address's, else the first).
import { useEffect, useState } from 'preact/hooks';
import { type Bank, type CairnClient, CairnError } from '../../../clients/typescript/src/index.ts';

export function messageOf(e: unknown): string {
  if (e instanceof CairnError) return `${e.code}: ${e.message.replace(/^\d+ [a-z_]+: /, '')}`;
  return e instanceof Error ? e.message : String(e);
}

export function ErrorLine({ error }: { error: string | null }) {
  return error ? (
    <p class="error" role="alert">
      {error}
    </p>
  ) : null;
}

/** The banks and the chosen one; a failure to list them goes to onError. */
export function useBanks(client: CairnClient, initial: string | null, onError: (message: string) => void) {
  const [banks, setBanks] = useState<Bank[]>([]);
  const [bank, setBank] = useState(initial ?? '');
  useEffect(() => {
    client
      .listBanks()
      .then((list) => {
        setBanks(list);
        setBank((chosen) => chosen || list[0]?.id || '');
      })
      .catch((e: unknown) => onError(messageOf(e)));
  }, []);
  return { banks, bank, setBank };
}

export function BankPicker({ id, banks, bank, onChange }: { id: string; banks: Bank[]; bank: string; onChange: (bank: string) => void }) {
  return (
    <div class="field">
      <label for={id}>Bank</label>
      <select id={id} value={bank} onChange={(e) => onChange(e.currentTarget.value)}>
        {banks.map((b) => (
          <option value={b.id}>{b.id}</option>
        ))}
      </select>
    </div>
  );
}
