// Reflect: an answer from the bank's memory (markdown, or JSON matching responseSchema), the observation and
// fact ids it rests on, and a trace of every step. The composition root says which answerer a bank gets.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import type { AnswererFor } from '../../reflect/index.ts';
import { BankIdParam, ErrorSchema, isoTimestamp, json } from '../schemas.ts';

export type { AnswererFor };

export const ReflectRequestSchema = z
  .object({
    query: z.string().trim().min(1, 'query must not be empty').max(4000),
    budget: z.enum(['low', 'mid', 'high']).optional().openapi({ description: 'How much searching reflect may do (default mid)' }),
    maxTokens: z.number().int().min(16).max(32_000).optional().openapi({ description: "Cap on the answer's length in tokens" }),
    responseSchema: z.record(z.string(), z.unknown()).optional().openapi({
      description:
        'A JSON schema: the answer is then a JSON value matching it (needs an LLM unless the schema accepts {answer, citations})',
    }),
    queryTime: isoTimestamp('queryTime').optional(),
  })
  .strict()
  .openapi('ReflectRequest');

const UsageSchema = z.object({ inputTokens: z.number(), outputTokens: z.number(), cachedTokens: z.number() });

export const ReflectResponseSchema = z
  .object({
    answer: z.unknown().openapi({ description: 'Markdown citing memory ids in brackets, or the JSON value matching responseSchema' }),
    basedOn: z.object({ observations: z.array(z.string()), facts: z.array(z.string()) }),
    trace: z
      .array(z.record(z.string(), z.unknown()))
      .openapi({ description: 'Every step: tool calls, the answer, dropped citations, early stops' }),
    answerer: z.string(),
    usage: UsageSchema.optional(),
  })
  .openapi('ReflectResponse');

export function reflectRoutes(engine: Engine, answererFor: AnswererFor): (app: OpenAPIHono) => void {
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/reflect',
        tags: ['reflect'],
        request: { params: BankIdParam, body: { content: { 'application/json': { schema: ReflectRequestSchema } }, required: true } },
        responses: {
          200: json(ReflectResponseSchema, 'The answer, what it rests on, and how it was found'),
          400: json(ErrorSchema, 'Invalid request, or a responseSchema that needs an LLM'),
          404: json(ErrorSchema, 'No such bank'),
          503: json(ErrorSchema, 'The LLM failed or gave no usable answer'),
        },
      }),
      async (c) => {
        const response = await engine.reflect.answer(c.req.valid('param').bank, c.req.valid('json'), answererFor);
        return c.json(response as unknown as z.infer<typeof ReflectResponseSchema>, 200);
      },
    );
  };
}
