// Does a new fact change the story an observation tells? Offline signals: words that announce a change
// ("switched", "no longer", "instead"), or a turn of fortune against the observation's latest evidence
// (it was going well, now it goes badly, or the reverse), read from a small lexicon of outcome words.
import { words } from '../text/index.ts';

const CHANGE =
  /\b(however|instead|no longer|not any ?more|any ?more|switched|switching|replaced|replacing|quit|cancel+ed|downgraded|reverted|abandoned|rolled back|gave up|scrapped|called off|broke up|reversed)\b/i;

const GOOD = new Set(
  `improve improved improves improving improvement lift lifted lifts gain gains gained boost boosted grew grow growing growth
  success successful succeeded win won wins love loved loves enjoy enjoyed enjoys great better best happy excited proud
  ahead on-track saved saving savings profitable thrilled approved launched recovered healthy promoted`.split(/\s+/),
);
const BAD = new Set(
  `fail failed fails failing failure loss losses lost lose drop dropped declined decline exceed exceeded exceeds overrun overran
  problem problems issue issues delay delayed delays blocked blocker broke broken worse worst sad angry frustrated upset behind
  missed miss cut cuts spiked spike crashed crash outage overbudget expensive costly bug bugs complaint complaints sick injured
  fired laid rejected canceled cancelled struggling struggle stress stressed`.split(/\s+/),
);
const OVER_BUDGET = /\bover (the )?budget\b/i;

/** +1 good news, -1 bad news, 0 neutral or mixed. */
export function polarity(text: string): number {
  let good = 0;
  let bad = OVER_BUDGET.test(text) ? 1 : 0;
  for (const w of words(text)) {
    if (GOOD.has(w)) good++;
    else if (BAD.has(w)) bad++;
  }
  return Math.sign(good - bad);
}

export function announcesChange(text: string): boolean {
  return CHANGE.test(text);
}

/** True when `fact` changes the story told by `latest` (the observation's most recent evidence). */
export function changesStory(fact: string, latest: string[]): boolean {
  if (announcesChange(fact)) return true;
  const p = polarity(fact);
  if (p === 0) return false;
  const before = latest.length ? polarity(latest[latest.length - 1]) : 0;
  return before !== 0 && before !== p;
}
