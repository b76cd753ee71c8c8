// Pieces the screens share: an error line announced to screen readers, and a readable message from any failure.
import { CairnError } from '../../../clients/typescript/src/index.ts';

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
