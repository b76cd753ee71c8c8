// The bank's retain mode (bank.config.retainMode): concise (default), verbose or verbatim. Read here so the
// pipeline and the bank routes agree on the default and on what counts as a bad value.
import { badRequest, type BankConfig, shortened } from '../core/index.ts';
import { RETAIN_MODES, type RetainMode } from './extractor.ts';

export function retainModeOf(config: BankConfig): RetainMode {
  const value = config.retainMode;
  if (value === undefined || value === null) return 'concise';
  if (typeof value === 'string' && (RETAIN_MODES as readonly string[]).includes(value)) return value as RetainMode;
  // Shown as JSON: String() of an object whose "toString" key is not a function throws (a 500 instead of this 400).
  const shown = typeof value === 'string' ? value : JSON.stringify(value);
  throw badRequest(`bank config retainMode '${shortened(shown, 100)}' is not one of ${RETAIN_MODES.join(', ')}`);
}
