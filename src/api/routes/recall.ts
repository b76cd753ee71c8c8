// Recall: the fused four-arm search over a bank's memory.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import { BankIdParam, ErrorSchema, FactKindSchema, RecallRequestSchema } from '../schemas.ts';

const json = <T extends z.ZodType>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });

const RecallResultSchema = z
  .object({
    id: z.string(),
    text: z.string(),
    kind: FactKindSchema,
    score: z.number(),
    scores: z.record(z.string(), z.number()).openapi({ description: 'Score per arm (semantic, keyword, graph, temporal), fusion and rerank' }),
    occurredStart: z.string().nullable(),
    occurredEnd: z.string().nullable(),
    mentionedAt: z.string(),
    entities: z.array(z.string()),
    source: z.unknown(),
    metadata: z.record(z.string(), z.string()),
    tags: z.array(z.string()),
  })
  .passthrough()
  .openapi('RecallResult');

export const RecallResponseSchema = z
  .object({ results: z.array(RecallResultSchema), trace: z.unknown().optional() })
  .openapi('RecallResponse');

export function recallRoutes(app: OpenAPIHono, engine: Engine): void {
  app.openapi(
    createRoute({
      method: 'post', path: '/v1/banks/{bank}/recall', tags: ['recall'],
      request: { params: BankIdParam, body: { content: { 'application/json': { schema: RecallRequestSchema } }, required: true } },
      responses: { 200: json(RecallResponseSchema, 'Ranked memories'), 400: json(ErrorSchema, 'Invalid request'), 404: json(ErrorSchema, 'No such bank') },
    }),
    async (c) => {
      const response = await engine.recall(c.req.valid('param').bank, c.req.valid('json'));
      return c.json(response as unknown as z.infer<typeof RecallResponseSchema>, 200);
    },
  );
}
