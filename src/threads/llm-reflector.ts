// The LLM reflector: asks the configured model to condense observations (or reflections) into one reflection,
// later information winning, within a target size, following the bank's instructions.
import { type LlmProvider, generateObject } from '../llm/index.ts';
import type { CallControl, ReflectRequest, Reflector } from './ports.ts';
import { ReflectionReply, reflectorSystemPrompt, reflectorUserPrompt } from './prompts.ts';

export class LlmReflector implements Reflector {
  readonly name: string;

  constructor(private readonly llm: LlmProvider) {
    this.name = `llm:${llm.provider}/${llm.model}`;
  }

  async reflect(request: ReflectRequest, control: CallControl = {}): Promise<{ text: string }> {
    const { value } = await generateObject(
      this.llm,
      {
        operation: 'threads',
        bankId: request.bankId,
        schemaName: 'reflection',
        temperature: 0,
        messages: [
          { role: 'system', content: reflectorSystemPrompt(request.instructions, request.targetTokens) },
          { role: 'user', content: reflectorUserPrompt(request.items) },
        ],
      },
      ReflectionReply,
      { signal: control.signal },
    );
    return { text: value.reflection.trim() };
  }
}
