// `cairn memory list|status|clear --thread <id>`: the command bodies, returning the text to print (or JSON), so
// the CLI wiring only parses arguments and builds a ThreadMemory on the data directory.
import type { ThreadMemory, MemoryStatus } from '../../threads/index.ts';

export type MemoryCommand = 'list' | 'status' | 'clear';
export const MEMORY_COMMANDS: readonly MemoryCommand[] = ['list', 'status', 'clear'];

export interface MemoryCommandOptions {
  bank: string;
  thread: string;
  /** Print JSON instead of text. */
  json?: boolean;
  /** list: only these statuses (default active and buffered). */
  statuses?: MemoryStatus[];
}

const indent = (text: string): string =>
  text
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n');

export async function memoryList(memory: ThreadMemory, o: MemoryCommandOptions): Promise<string> {
  const items = await memory.items(o.bank, o.thread, o.statuses ?? ['active', 'buffered', 'running']);
  if (o.json) return `${JSON.stringify(items, null, 2)}\n`;
  if (!items.length) return `no observations or reflections for thread ${o.thread}\n`;
  return `${items
    .map((i) => {
      const what = i.kind === 'reflection' ? `reflection g${i.generation}` : 'observation';
      const span = i.firstAt ? ` ${i.firstAt.slice(0, 10)}..${(i.lastAt ?? i.firstAt).slice(0, 10)}` : '';
      const covers = i.kind === 'reflection' ? `${i.covers.length} items` : `${i.messageCount} msgs`;
      return `${i.id}  ${what}  ${i.status}  ${i.tokens} tok from ${i.inputTokens} (${covers})${span}\n${indent(i.text || '(nothing worth keeping)')}`;
    })
    .join('\n')}\n`;
}

export async function memoryStatus(memory: ThreadMemory, o: MemoryCommandOptions): Promise<string> {
  const s = await memory.status(o.bank, o.thread);
  if (o.json) return `${JSON.stringify(s, null, 2)}\n`;
  const a = s.windows.active;
  const b = s.windows.buffered;
  const gens =
    Object.entries(a.reflections.byGeneration)
      .map(([g, n]) => `g${g}:${n}`)
      .join(' ') || 'none';
  return `${[
    `thread ${s.threadId} (bank ${s.bankId}, ${s.scope} scope, record ${s.recordId}${s.resourceId ? `, resource ${s.resourceId}` : ''})`,
    `observer ${s.observer}, reflector ${s.reflector}`,
    `messages: ${s.messages.count} (${s.messages.tokens} tok); unobserved ${a.messages.count} (${a.messages.tokens}/${a.messages.threshold} tok, blocks at ${a.messages.blockAfter})`,
    `observations: ${a.observations.count} active (${a.observations.tokens}/${a.observations.threshold} tok), ${s.archived.observations} archived`,
    `reflections: ${a.reflections.count} active (${a.reflections.tokens} tok; ${gens}), ${s.archived.reflections} archived, generation count ${s.generationCount}`,
    `buffered observations: ${b.observations.status}, ${b.observations.chunks} chunk(s), ${b.observations.messageTokens} message tok -> ${b.observations.observationTokens} tok, activation would remove ${b.observations.projectedMessageRemoval}`,
    `buffered reflection: ${b.reflection.status}${b.reflection.status === 'idle' ? '' : `, ${b.reflection.inputObservationTokens} -> ${b.reflection.observationTokens} tok`}`,
    `working memory: ${s.workingMemory ? `${s.workingMemory.tokens} tok (${s.workingMemory.key})` : 'none'}`,
  ].join('\n')}\n`;
}

export async function memoryClear(memory: ThreadMemory, o: MemoryCommandOptions): Promise<string> {
  const r = await memory.clear(o.bank, o.thread);
  if (o.json) return `${JSON.stringify(r)}\n`;
  return `cleared ${r.items} memory item(s) of ${r.recordId}${r.workingMemory ? ' and its working memory' : ''}; messages are kept and will be observed again\n`;
}

export function runMemoryCommand(memory: ThreadMemory, command: MemoryCommand, o: MemoryCommandOptions): Promise<string> {
  if (command === 'list') return memoryList(memory, o);
  if (command === 'status') return memoryStatus(memory, o);
  return memoryClear(memory, o);
}
