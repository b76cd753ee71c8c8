// The bank's retain mode (bank.config.retainMode): concise (default), verbose or verbatim. Read here so the
// pipeline and the bank routes agree on the default and on what counts as a bad value.
import { badRequest, type BankConfig } from '../core/index.ts';
import { RETAIN_MODES, type RetainMode } from './extractor.ts';

export function retainModeOf(config: BankConfig): RetainMode {
  const value = config.retainMode;
  if (value === undefined || value === null) return 'concise';
  if (typeof value === 'string' && (RETAIN_MODES as readonly string[]).includes(value)) return value as RetainMode;
  throw badRequest(`bank config retainMode '${String(value)}' is not one of ${RETAIN_MODES.join(', ')}`);
}
