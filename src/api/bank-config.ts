// A bank's config checked when it is written (create, update), with the same readers the modules use when they
// read it later: a config that would make every later retain, consolidation, reflect or thread call fail (an
// invalid `llm` section, retainMode or `threads` settings) is a 400 now instead of being stored. Keys the modules
// do not know stay free-form.
import { z } from '@hono/zod-openapi';
import { CairnError, type BankConfig } from '../core/index.ts';
import { bankOverride } from '../llm/index.ts';
import { retainModeOf } from '../retain/index.ts';
import { parseThreadSettings } from '../threads/index.ts';

const trait = z.number().min(1).max(5);
const DispositionSchema = z.strictObject({ skepticism: trait.optional(), literalism: trait.optional(), empathy: trait.optional() });

/** What is wrong with a bank config, one message per problem (none: it can be stored). */
export function bankConfigProblems(config: BankConfig): string[] {
  const problems: string[] = [];
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
