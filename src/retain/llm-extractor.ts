// The LLM extractor: one structured call per chunk (validated with zod, corrected once, else LlmOutputError so
// the pipeline writes nothing for the item), then each reply fact becomes an ExtractedFact: its text composed
// for the bank's mode, its span found from the model's verbatim quote (the whole chunk when the quote is not
// there), its dates made absolute ranges, its entities merged with who and where (no code among them), its causes
// checked, and the keyword terms of the chunk's units it spans (identifiers of inline code and of the code they
// introduce, as the offline extractor gives them).
import { type LlmProvider, type UsageLedger, generateObject } from '../llm/index.ts';
import type { ExtractInput, ExtractedEntity, ExtractedFact, Extractor, RetainMode } from './extractor.ts';
import { ExtractionSchema, extractionMessages, type LlmFact } from './llm-extraction-prompt.ts';
import { occurredRange } from './occurred-range.ts';
import { isCodeFragment } from '../text/index.ts';
import { locateQuote, type Span } from './quote-span.ts';
import { unitsOf, type Unit } from './units.ts';

export interface LlmExtractorOptions {
  /** Records every call (with the bank id) to this ledger. */
  ledger?: UsageLedger;
  /** Sampling temperature (default 0: extraction should be repeatable). */
  temperature?: number;
  /** Cap on the reply's tokens (default: the provider's). */
  maxTokens?: number;
}

export class LlmExtractor implements Extractor {
  readonly name: string;

  constructor(
    readonly llm: LlmProvider,
    readonly options: LlmExtractorOptions = {},
  ) {
    this.name = `llm:${llm.provider}:${llm.model}`;
  }

  async extract(input: ExtractInput): Promise<ExtractedFact[]> {
    const { value } = await generateObject(
      this.llm,
      {
        operation: 'retain',
        bankId: input.bankId,
        schemaName: 'facts',
        messages: extractionMessages(input),
        temperature: this.options.temperature ?? 0,
        ...(this.options.maxTokens ? { maxTokens: this.options.maxTokens } : {}),
      },
      ExtractionSchema,
      this.options.ledger ? { ledger: this.options.ledger } : {},
    );
    return toExtractedFacts(value.facts, input);
  }
}

/** Turns validated reply facts into the port's facts (exported for tests of the mapping alone). */
export function toExtractedFacts(facts: LlmFact[], input: ExtractInput): ExtractedFact[] {
  const mode = input.mode ?? 'concise';
  const reference = new Date(input.timestamp);
  const out: ExtractedFact[] = [];
  let units: Unit[] | null = null;
  let cursor = 0;
  facts.forEach((f, index) => {
    const found = locateQuote(input.text, f.quote, cursor);
    if (found) cursor = found.start;
    const span: Span = found ?? { start: 0, end: input.text.length };
    const when = occurredRange(f.occurredStart, f.occurredEnd, f.when, reference, `${f.quote}\n${f.what}`);
    const terms = found ? termsWithin((units ??= unitsOf(input.text)), found) : [];
    out.push({
      text: factText(f, mode, found ? input.text.slice(found.start, found.end) : null),
      kind: f.kind,
      start: span.start,
      end: span.end,
      occurredStart: when.start,
      occurredEnd: when.end,
      entities: entitiesOf(f),
      // Only earlier facts can be causes; anything else is a slip of the model and is dropped.
      causedBy: [...new Set(f.causedBy ?? [])].filter((c) => c < index),
      ...(terms.length ? { terms } : {}),
    });
  });
  return out;
}

/** The keyword terms of the units a quoted span overlaps. */
function termsWithin(units: Unit[], span: Span): string[] {
  return [...new Set(units.filter((u) => u.start < span.end && span.start < u.end).flatMap((u) => u.terms))];
}

/** concise: the statement; verbose: plus the details it does not already say; verbatim: the source's words. */
export function factText(f: LlmFact, mode: RetainMode, quoted: string | null): string {
  const what = f.what.trim();
  if (mode === 'verbatim') return quoted?.trim() || what;
  if (mode === 'concise') return what;
  const lower = what.toLowerCase();
  const details: string[] = [];
  const add = (label: string, value: string | null | undefined): void => {
    const v = value?.trim();
    if (v && !lower.includes(v.toLowerCase())) details.push(`${label}: ${v}`);
  };
  add('when', f.when);
  add('where', f.where);
  for (const person of f.who ?? []) add('with', person);
  add('why', f.why);
  return details.length ? `${what} (${details.join('; ')})` : what;
}

const NAME = /^\p{Lu}/u;

function entitiesOf(f: LlmFact): ExtractedEntity[] {
  const found = new Map<string, ExtractedEntity>();
  const add = (name: string, type: string | null): void => {
    const clean = name.trim();
    if (clean.length < 2 || isCodeFragment(clean)) return;
    const key = clean.toLowerCase();
    const existing = found.get(key);
    if (!existing || (existing.type === null && type)) found.set(key, { name: clean, type });
  };
  for (const e of f.entities ?? []) add(e.name, e.type?.trim() ? e.type.trim().toLowerCase() : null);
  // who and where are free text ("my sister", "a cafe"): only names become entities.
  for (const person of f.who ?? []) if (NAME.test(person.trim())) add(person, 'person');
  if (f.where && NAME.test(f.where.trim())) add(f.where, 'place');
  return [...found.values()];
}
