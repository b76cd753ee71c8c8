// The offline observer: deterministic and extractive. It keeps the most salient sentences of a batch of
// messages (decisions, intent, facts, progress, pending work, constraints), drops tool output, code, greetings
// and repeats of what memory already holds, and writes them as dated, attributed notes within a token share
// of the input. It also derives the current task and a suggested next response.
import { countTokens } from '../text/index.ts';
import { sumTokens } from './accounting.ts';
import { formatNotes, parseNotes, type Note } from './notes.ts';
import type { ObservationDraft, ObserveRequest, Observer } from './ports.ts';
import {
  cuesOf,
  dayLabel,
  isBinding,
  isGreeting,
  isQuestion,
  noteScore,
  restates,
  salience,
  splitSentences,
  stripNoise,
  tidy,
  wordSet,
} from './salience.ts';
import type { ThreadMessage } from './types.ts';

export interface OfflineObserverOptions {
  /** Share of the input tokens an observation may use (default 0.3). */
  ratio?: number;
  /** Floor of the observation budget in tokens (default 40). */
  minTokens?: number;
}

/** What one message contributes: its sentences worth keeping, in order, as one attributed note. */
interface Candidate {
  note: Note;
  order: number;
  score: number;
  words: Set<string>;
  tokens: number;
  /** States a decision or a constraint: kept before anything else. */
  binding: boolean;
}

interface Sentence {
  text: string;
  score: number;
  binding: boolean;
}

export const speakerOf = (m: Pick<ThreadMessage, 'name' | 'role'>): string =>
  m.name ?? (m.role === 'user' ? 'User' : m.role === 'assistant' ? 'Assistant' : m.role === 'system' ? 'System' : 'Tool');

/** A sentence below this salience is left out of its message's note (pleasantries, reactions, questions back). */
const KEEP_SENTENCE = 1.0;

/**
 * A message's note keeps its worthwhile sentences together: a fact often needs its neighbours (the sentence
 * that names what "it" is), and a message is the unit a reader checks against.
 */
function candidateOf(sentences: Sentence[], message: ThreadMessage, order: number): Candidate | null {
  const kept = sentences.filter((x) => x.score >= KEEP_SENTENCE || x.binding);
  if (!kept.length) return null;
  const text = kept.map((x) => x.text).join(' ');
  const tokens = countTokens(text) + 3;
  return {
    note: { date: dayLabel(message.timestamp), speaker: speakerOf(message), text },
    order,
    score: noteScore(kept, tokens),
    words: wordSet(text),
    tokens,
    binding: kept.some((x) => x.binding),
  };
}

export class OfflineObserver implements Observer {
  readonly name = 'offline';
  private readonly ratio: number;
  private readonly minTokens: number;

  constructor(options: OfflineObserverOptions = {}) {
    this.ratio = options.ratio ?? 0.3;
    this.minTokens = options.minTokens ?? 40;
  }

  async observe(request: ObserveRequest): Promise<ObservationDraft> {
    const { messages } = request;
    const names = new Set(messages.map((m) => (m.name ?? '').toLowerCase()).filter(Boolean));
    const seen = request.previous.flatMap((p) => parseNotes(p)).map((n) => wordSet(n.text));
    const candidates: Candidate[] = [];
    const tools = new Map<string, number>();
    let order = 0;
    for (const m of messages) {
      for (const call of m.toolCalls ?? []) tools.set(call.name, (tools.get(call.name) ?? 0) + 1);
      if (m.role === 'tool' || m.role === 'system') continue;
      const sentences: Sentence[] = [];
      for (const raw of splitSentences(stripNoise(m.content))) {
        const text = tidy(raw);
        if (!text || isGreeting(text, names)) continue;
        const score = salience(text, { role: m.role });
        if (score < 0) continue;
        const words = wordSet(text);
        if (seen.some((s) => restates(words, s, 0.8))) continue;
        sentences.push({ text, score, binding: isBinding(text) });
      }
      const c = candidateOf(sentences, m, order++);
      if (c) candidates.push(c);
    }
    // Decisions and constraints may use up to half the input; everything else shares the ratio's budget.
    const inputTokens = sumTokens(messages);
    const budget = Math.max(this.minTokens, Math.round(inputTokens * this.ratio));
    const hardCap = Math.max(budget, Math.round(inputTokens * 0.5));
    const chosen: Candidate[] = [];
    let used = 0;
    for (const c of [...candidates].sort((a, b) => Number(b.binding) - Number(a.binding) || b.score - a.score || a.order - b.order)) {
      if (used + c.tokens > (c.binding ? hardCap : budget)) continue;
      if (chosen.some((k) => restates(c.words, k.words, 0.7))) continue;
      chosen.push(c);
      used += c.tokens;
    }
    chosen.sort((a, b) => a.order - b.order);
    let text = formatNotes(chosen.map((c) => c.note));
    if (tools.size) text += `${text ? '\n' : ''}Tools used: ${[...tools].map(([n, k]) => (k > 1 ? `${n} (${k}x)` : n)).join(', ')}.`;
    return { text, currentTask: currentTask(messages), suggestedResponse: suggestedResponse(messages) };
  }
}

/** The latest thing a user asked for or said is still to do. */
function currentTask(messages: ThreadMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i];
    if (m.role !== 'user') continue;
    const sentences = splitSentences(stripNoise(m.content)).map(tidy).filter(Boolean);
    for (let j = sentences.length - 1; j >= 0; j--) {
      const cues = cuesOf(sentences[j]);
      if (cues.has('intent') || cues.has('pending')) return `${speakerOf(m)}: ${sentences[j]}`;
    }
  }
  return null;
}

/** What the conversation is waiting for: an answer to the last user message, or the user's reply. */
function suggestedResponse(messages: ThreadMessage[]): string | null {
  const last = [...messages].reverse().find((m) => m.role === 'user' || m.role === 'assistant');
  if (!last) return null;
  const sentences = splitSentences(stripNoise(last.content)).map(tidy).filter(Boolean);
  const question = [...sentences].reverse().find(isQuestion);
  if (last.role === 'user')
    return `Answer ${speakerOf(last)}'s latest message${question ? `: ${question}` : sentences.length ? `: ${sentences[sentences.length - 1]}` : '.'}`;
  return question ? `Wait for the reply to: ${question}` : null;
}
