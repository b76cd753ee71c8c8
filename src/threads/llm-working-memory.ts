// The LLM working-memory updater: asks the configured model to rewrite the working-memory document with what
// lasts from the latest turn, keeping the template's headings.
import { type LlmProvider, generateObject } from '../llm/index.ts';
import type { CallControl, WorkingMemoryRequest, WorkingMemoryUpdater } from './ports.ts';
import { WorkingMemoryReply, workingMemorySystemPrompt, workingMemoryUserPrompt } from './prompts.ts';

export class LlmWorkingMemoryUpdater implements WorkingMemoryUpdater {
  readonly name: string;

  constructor(private readonly llm: LlmProvider) {
    this.name = `llm:${llm.provider}/${llm.model}`;
  }

  async update(request: WorkingMemoryRequest, control: CallControl = {}): Promise<{ document: string }> {
    const { value } = await generateObject(
      this.llm,
      {
        operation: 'threads',
        bankId: request.bankId,
        schemaName: 'working_memory',
        temperature: 0,
        messages: [
          { role: 'system', content: workingMemorySystemPrompt(request.maxTokens) },
          { role: 'user', content: workingMemoryUserPrompt(request.document, request.template, request.messages) },
        ],
      },
      WorkingMemoryReply,
      { signal: control.signal },
    );
    return { document: value.document.trim() };
  }
}
