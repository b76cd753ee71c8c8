// Pieces the screens share: an error line announced to screen readers, a readable message from any failure, the
// bank picker (the banks, the chosen one: the address's, else the first), and a guard for out-of-order answers.
import { useEffect, useRef, useState } from 'preact/hooks';
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

/**
 * The banks and the chosen one: the address's, else the first. Choosing another changes the address
 * (#/<screen>/<bank>), so the navigation keeps the bank and the screen starts afresh for it (main.tsx keys screens
 * by bank). A failure to list them goes to onError.
 */
export function useBanks(client: CairnClient, initial: string | null, onError: (message: string) => void) {
  const [banks, setBanks] = useState<Bank[]>([]);
  const [fallback, setFallback] = useState('');
  useEffect(() => {
    client
      .listBanks()
      .then((list) => {
        setBanks(list);
        setFallback(list[0]?.id ?? '');
        // An address naming no bank (mistyped, or deleted since) says so rather than showing an empty picker.
        if (initial && !list.some((b) => b.id === initial)) onError(`not_found: bank '${initial}' does not exist; choose one above`);
      })
      .catch((e: unknown) => onError(messageOf(e)));
  }, []);
  const setBank = (id: string): void => {
    const [, screen] = location.hash.split('/');
    location.hash = `#/${screen || 'banks'}/${encodeURIComponent(id)}`;
  };
  return { banks, bank: initial || fallback, setBank };
}

/**
 * Guards async loads against answers arriving out of order: `begin()` before a load, then write its answer only while
 * the returned check says no newer load has begun.
 */
export function useLatest(): () => () => boolean {
  const counter = useRef(0);
  return () => {
    const mine = ++counter.current;
    return () => mine === counter.current;
  };
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
