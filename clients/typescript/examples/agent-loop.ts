// An agent loop with Cairn as its memory, on the Vercel AI SDK: two tools, `remember` and `recall`, backed by the
// client. The model here is SCRIPTED (the AI SDK's MockLanguageModelV3, not a model): it remembers what the user
// said, recalls it, and answers with what recall returned, so the example runs offline. Swap in any AI SDK model
// (for example `groq('llama-3.3-70b-versatile')`) for a real agent.
//
//   npx cairn serve &                                                     # a local Cairn
//   node --import tsx clients/typescript/examples/agent-loop.ts http://127.0.0.1:8787
import { generateText, stepCountIs, tool, type LanguageModel } from 'ai';
import { MockLanguageModelV3 } from 'ai/test';
import { z } from 'zod';
import { CairnClient } from '../src/index.ts';

/** Memory as AI SDK tools over one bank. */
export function memoryTools(cairn: CairnClient, bank: string) {
  return {
    remember: tool({
      description: 'Store something worth remembering about the user or the task, for later conversations',
      inputSchema: z.object({ content: z.string().describe('What to remember, as a full sentence') }),
      execute: async ({ content }) => {
        const r = await cairn.retain(bank, { items: [{ content, timestamp: new Date().toISOString() }] });
        return { storedFacts: r.result?.facts ?? 0 };
      },
    }),
    recall: tool({
      description: 'Search long-term memory before answering anything that may depend on earlier conversations',
      inputSchema: z.object({ query: z.string().describe('What to look for') }),
      execute: async ({ query }) => (await cairn.recall(bank, { query, limit: 5 })).results.map((r) => r.text),
    }),
  };
}

const usage = { inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 5, text: 5, reasoning: 0 } };

/** The scripted model: step 1 calls remember, step 2 calls recall, step 3 answers from recall's output. */
export function scriptedModel(fact: string, question: string): LanguageModel {
  return new MockLanguageModelV3({
    doGenerate: async ({ prompt }) => {
      const results = prompt.flatMap((m) => (m.role === 'tool' ? m.content : [])).filter((p) => p.type === 'tool-result');
      const call = (toolName: string, input: unknown) => ({
        content: [{ type: 'tool-call' as const, toolCallId: `call-${results.length}`, toolName, input: JSON.stringify(input) }],
        finishReason: { unified: 'tool-calls' as const, raw: 'tool_calls' },
        usage,
        warnings: [],
      });
      if (results.length === 0) return call('remember', { content: fact });
      if (results.length === 1) return call('recall', { query: question });
      const recalled = results.at(-1)!.output;
      const memories = recalled.type === 'json' ? (recalled.value as string[]) : [];
      return {
        content: [{ type: 'text' as const, text: `From memory: ${memories[0] ?? 'nothing found'}` }],
        finishReason: { unified: 'stop' as const, raw: 'stop' },
        usage,
        warnings: [],
      };
    },
  });
}

/** One conversation turn: the user's message, the agent's tool calls, its answer. */
export async function runAgent(baseUrl: string, options: { apiKey?: string; bank?: string; model?: LanguageModel } = {}) {
  const cairn = new CairnClient({ baseUrl, apiKey: options.apiKey });
  const bank = options.bank ?? 'agent-example';
  if (!(await cairn.listBanks()).some((b) => b.id === bank)) await cairn.createBank({ id: bank, mission: 'Remember the user' });
  const fact = 'The user is allergic to peanuts.';
  const question = 'What is the user allergic to?';
  const result = await generateText({
    model: options.model ?? scriptedModel(fact, question),
    tools: memoryTools(cairn, bank),
    stopWhen: stepCountIs(5),
    system: 'You are an assistant with long-term memory. Remember what matters; recall before answering.',
    prompt: `Please note: I am allergic to peanuts. ${question}`,
  });
  return { text: result.text, toolCalls: result.steps.flatMap((s) => s.toolCalls.map((c) => c.toolName)) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const baseUrl = process.argv[2] ?? 'http://127.0.0.1:8787';
  const { text, toolCalls } = await runAgent(baseUrl, { apiKey: process.argv[3] });
  process.stdout.write(`tools called: ${toolCalls.join(', ')}\nanswer: ${text}\n`);
}
