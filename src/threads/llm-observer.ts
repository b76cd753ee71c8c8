// The LLM observer: asks the configured model (through the LLM port and generateObject) to compress a batch of
// messages into an observation with currentTask and suggestedResponse hints, following the bank's instructions.
import { type LlmProvider, generateObject } from '../llm/index.ts';
import type { CallControl, ObservationDraft, ObserveRequest, Observer } from './ports.ts';
import { ObservationReply, observerSystemPrompt, observerUserPrompt } from './prompts.ts';

export class LlmObserver implements Observer {
  readonly name: string;

  constructor(private readonly llm: LlmProvider) {
    this.name = `llm:${llm.provider}/${llm.model}`;
  }

  async observe(request: ObserveRequest, control: CallControl = {}): Promise<ObservationDraft> {
    const { value } = await generateObject(
      this.llm,
      {
        operation: 'threads',
        bankId: request.bankId,
        schemaName: 'observation',
        temperature: 0.3,
        messages: [
          { role: 'system', content: observerSystemPrompt(request.instructions) },
          { role: 'user', content: observerUserPrompt(request.previous, request.currentTask, request.messages) },
        ],
      },
      ObservationReply,
      { signal: control.signal },
    );
    const blank = (s: string | null): string | null => (s?.trim() ? s.trim() : null);
    return { text: value.observations.trim(), currentTask: blank(value.currentTask), suggestedResponse: blank(value.suggestedResponse) };
  }
}
