// LoCoMo conversations read as thread messages, for the thread-memory replay test and benchmark: one message
// per turn (speaker_a as user, speaker_b as assistant, named), timestamped from the session date, plus the
// category 1-4 questions with their evidence turn ids (invalid ids dropped, questions left without any counted).
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { MessageInput } from '../src/threads/types.ts';

export const DEFAULT_LOCOMO_PATH = fileURLToPath(new URL('../../shared/datasets/locomo/locomo10.json', import.meta.url));

export interface LocomoTurn {
  diaId: string;
  message: MessageInput;
}

export interface LocomoQuestion {
  question: string;
  category: number;
  evidence: string[];
}

export interface LocomoConversation {
  id: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
  /** Category 1-4 questions skipped because none of their evidence ids names a turn. */
  skippedQuestions: number;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown> & { speaker_a: string; speaker_b: string };
  qa: Array<{ question: string; evidence?: string[]; category: number }>;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** "1:56 pm on 8 May, 2023" -> epoch ms (UTC); null when it does not parse. */
export function parseSessionDate(text: string): number | null {
  const m = /(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})/i.exec(text);
  if (!m) return null;
  const month = MONTHS.indexOf(m[5].toLowerCase());
  if (month < 0) return null;
  const hour = (Number(m[1]) % 12) + (m[3].toLowerCase() === 'pm' ? 12 : 0);
  return Date.UTC(Number(m[6]), month, Number(m[4]), hour, Number(m[2]));
}

export function locomoAvailable(path = DEFAULT_LOCOMO_PATH): boolean {
  return existsSync(path);
}

export function loadLocomo(path = DEFAULT_LOCOMO_PATH): LocomoConversation[] {
  const samples = JSON.parse(readFileSync(path, 'utf8')) as RawSample[];
  return samples.map((s) => {
    const c = s.conversation;
    const turns: LocomoTurn[] = [];
    for (let n = 1; Array.isArray(c[`session_${n}`]); n++) {
      const start = parseSessionDate(String(c[`session_${n}_date_time`] ?? '')) ?? Date.UTC(2023, 0, 1) + n * 86_400_000;
      (c[`session_${n}`] as RawTurn[]).forEach((t, i) => {
        const content = t.blip_caption ? `${t.text} [shares a photo: ${t.blip_caption}]` : t.text;
        turns.push({
          diaId: t.dia_id,
          message: {
            role: t.speaker === c.speaker_a ? 'user' : 'assistant',
            name: t.speaker,
            content,
            timestamp: new Date(start + i * 30_000).toISOString(),
          },
        });
      });
    }
    const ids = new Set(turns.map((t) => t.diaId));
    let skipped = 0;
    const questions: LocomoQuestion[] = [];
    for (const q of s.qa) {
      if (q.category < 1 || q.category > 4) continue;
      const evidence = (q.evidence ?? []).filter((e) => ids.has(e));
      if (!evidence.length) skipped++;
      else questions.push({ question: q.question, category: q.category, evidence });
    }
    return { id: s.sample_id, turns, questions, skippedQuestions: skipped };
  });
}
