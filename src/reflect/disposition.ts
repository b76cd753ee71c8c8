// The bank's reflect disposition (bank.config.disposition): skepticism, literalism and empathy, each 1 to 5
// (3 when unset), and the instruction each level gives the model.
import type { BankConfig } from '../core/index.ts';

export interface Disposition {
  skepticism: number;
  literalism: number;
  empathy: number;
}

export const NEUTRAL: Disposition = { skepticism: 3, literalism: 3, empathy: 3 };

/** Each trait as an integer 1..5; missing or non-numeric values are 3, others are rounded and clamped. */
export function dispositionOf(config: BankConfig): Disposition {
  const raw = (config.disposition ?? {}) as Record<string, unknown>;
  const trait = (name: keyof Disposition): number => {
    const v = raw[name];
    return typeof v === 'number' && Number.isFinite(v) ? Math.min(5, Math.max(1, Math.round(v))) : 3;
  };
  return { skepticism: trait('skepticism'), literalism: trait('literalism'), empathy: trait('empathy') };
}

type Levels = [low: string, middle: string, high: string];

const RULES: Record<keyof Disposition, Levels> = {
  skepticism: [
    'Take what memory says at face value.',
    'Weigh the evidence; mention doubts where memories conflict.',
    'Be skeptical: separate what is well supported from what rests on a single mention, point out conflicts ' +
      'and gaps, and claim nothing the evidence does not show.',
  ],
  literalism: [
    'Read the question generously: answer what the person most likely wants to know, drawing reasonable inferences.',
    'Answer the question as asked; mark inferences as inferences.',
    'Be literal: answer exactly what was asked, with only what memory states; draw no inferences.',
  ],
  empathy: [
    'Be neutral and matter-of-fact.',
    'Be considerate and clear.',
    'Be warm: acknowledge feelings and the personal side of what memory holds.',
  ],
};

const level = (n: number): 0 | 1 | 2 => (n <= 2 ? 0 : n === 3 ? 1 : 2);

/** One instruction per trait. */
export function dispositionRules(d: Disposition): string[] {
  return (Object.keys(RULES) as Array<keyof Disposition>).map((trait) => RULES[trait][level(d[trait])]);
}
