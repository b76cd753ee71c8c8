// A bank's config checked when it is written (create, update), with the same readers the modules use when they
// read it later: a config that would make every later retain, consolidation, reflect or thread call fail (an
// invalid `llm` section, retainMode or `threads` settings) is a 400 now instead of being stored. Keys the modules
// do not know stay free-form, unless one is a near miss of a setting ("retainmode", "dispostion"): stored, the typo
// would silently leave the setting at its default.
import { z } from '@hono/zod-openapi';
import { distance } from 'fastest-levenshtein';
import { CairnError, type BankConfig, withoutNulls } from '../core/index.ts';
import { bankOverride } from '../llm/index.ts';
import { retainModeOf } from '../retain/index.ts';
import { parseThreadSettings } from '../threads/index.ts';

const trait = z.number().min(1).max(5);
const DispositionSchema = z.strictObject({ skepticism: trait.optional(), literalism: trait.optional(), empathy: trait.optional() });

/** The settings the modules read from a bank's config. */
const SETTINGS = ['retainMission', 'retainMode', 'disposition', 'threads', 'llm'];

/** The setting a key was likely meant to be: the same letters in another case, with separators or a plural "s", or (for the
 * longer settings, where two edits cannot turn one ordinary word into another) at most two edits away. */
function meantSetting(key: string): string | null {
  if (SETTINGS.includes(key)) return null;
  const lower = key.toLowerCase();
  // Letters only, and no plural "s" ("LLMs", "retain_modes").
  const plain = lower.replace(/[^a-z]/g, '').replace(/s$/, '');
  return (
    SETTINGS.find((s) => s.toLowerCase().replace(/s$/, '') === plain || (s.length >= 7 && distance(s.toLowerCase(), lower) <= 2)) ?? null
  );
}

/** What is wrong with a bank config, one message per problem (none: it can be stored). */
export function bankConfigProblems(written: BankConfig): string[] {
  // A null removes its key (a patch's way to reset a setting): what is checked is what would be stored.
  const config = withoutNulls(written);
  const problems: string[] = [];
  for (const key of Object.keys(config)) {
    const meant = meantSetting(key);
    // Quoted: a key differing only by a space or case would read the same as the setting.
    if (meant) problems.push(`config key ${JSON.stringify(key)} is not a setting: did you mean "${meant}"?`);
  }
  const check = (read: () => unknown): void => {
    try {
      read();
    } catch (e) {
      if (!(e instanceof CairnError)) throw e;
      problems.push(e.message.replace(/\s*\n\s*/g, ' '));
    }
  };
  check(() => bankOverride('retain', config));
  check(() => retainModeOf(config));
  check(() => parseThreadSettings(config.threads, 'config.threads'));
  if (config.retainMission !== undefined && typeof config.retainMission !== 'string')
    problems.push('config.retainMission must be a string');
  if (config.disposition !== undefined) {
    const parsed = DispositionSchema.safeParse(config.disposition);
    if (!parsed.success)
      problems.push(
        `config.disposition must be {skepticism, literalism, empathy}, each a number from 1 to 5: ${z.prettifyError(parsed.error).replace(/\s*\n\s*/g, ' ')}`,
      );
  }
  return problems;
}
