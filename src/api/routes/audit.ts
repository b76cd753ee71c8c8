// Audit routes: an observation with its full evidence chain (facts -> exact source sentence -> document), its
// history, the observations a fact supports, one "why" for any recall result id, and the deletion tombstones.
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import { TOMBSTONE_KINDS } from '../../store/index.ts';
import { BankIdParam, ErrorSchema, FactSchema, json, queryInteger, SourceSpanSchema } from '../schemas.ts';

const errors = {
  400: json(ErrorSchema, 'Invalid request'),
  404: json(ErrorSchema, 'No such bank, observation or fact (a deleted one: the message says when and why)'),
};

const ObservationSchema = FactSchema.extend({ proofCount: z.number().openapi({ description: 'Supporting facts' }) }).openapi('Observation');

const EvidenceLinkSchema = z
  .object({ role: z.enum(['supports', 'contradicts']), linkedAt: z.string(), fact: FactSchema, source: SourceSpanSchema.nullable() })
  .openapi('EvidenceLink');

const RevisionSchema = z
  .object({
    id: z.string(),
    observationId: z.string(),
    oldText: z.string().nullable(),
    newText: z.string(),
    factIds: z.array(z.string()).openapi({ description: 'The facts that caused the revision' }),
    reason: z.enum(['created', 'supported', 'refined', 'contradicted', 'evidence-removed']),
    at: z.string(),
  })
  .openapi('ObservationRevision');

const ChainSchema = z
  .object({ observation: ObservationSchema, supporting: z.array(EvidenceLinkSchema), contradicting: z.array(EvidenceLinkSchema) })
  .openapi('EvidenceChain');

const ObservationOfFactSchema = z.object({
  role: z.enum(['supports', 'contradicts']),
  linkedAt: z.string(),
  observation: ObservationSchema,
});

const WhySchema = z
  .union([
    z.object({
      id: z.string(),
      kind: z.literal('observation'),
      observation: ObservationSchema,
      stale: z.boolean().openapi({ description: 'Facts about its entities are waiting to be consolidated' }),
      supporting: z.array(EvidenceLinkSchema),
      contradicting: z.array(EvidenceLinkSchema),
      history: z.array(RevisionSchema),
    }),
    z.object({
      id: z.string(),
      kind: z.enum(['world', 'experience']),
      fact: FactSchema,
      source: SourceSpanSchema.nullable(),
      supersededBy: z.object({ fact: FactSchema, source: SourceSpanSchema.nullable() }).nullable(),
      observations: z.array(ObservationOfFactSchema),
    }),
  ])
  .openapi('Why');

const TombstoneSchema = z
  .object({
    id: z.string(),
    bankId: z.string(),
    kind: z.enum(TOMBSTONE_KINDS),
    targetId: z.string(),
    reason: z.string(),
    at: z.string(),
  })
  .openapi('Tombstone');

const IdParam = BankIdParam.extend({ id: z.string().min(1).max(256) });

export function auditRoutes(engine: Engine): (app: OpenAPIHono) => void {
  const { audit } = engine;
  return (app) => {
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/observations/{id}',
        tags: ['audit'],
        request: { params: IdParam },
        responses: {
          200: json(ChainSchema, 'The observation with its supporting and contradicting facts, their source sentences and documents'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank, id } = c.req.valid('param');
        return c.json(await audit.chain(bank, id), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/observations/{id}/history',
        tags: ['audit'],
        request: { params: IdParam },
        responses: {
          200: json(
            z.object({ observationId: z.string(), history: z.array(RevisionSchema) }),
            'Every revision: old and new text, the facts that caused it, when, why',
          ),
          ...errors,
        },
      }),
      async (c) => {
        const { bank, id } = c.req.valid('param');
        return c.json({ observationId: id, history: await audit.history(bank, id) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/facts/{id}/observations',
        tags: ['audit'],
        request: { params: IdParam },
        responses: {
          200: json(
            z.object({ factId: z.string(), observations: z.array(ObservationOfFactSchema) }),
            'The observations the fact supports or contradicts',
          ),
          ...errors,
        },
      }),
      async (c) => {
        const { bank, id } = c.req.valid('param');
        return c.json({ factId: id, observations: await audit.observationsOfFact(bank, id) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/why/{id}',
        tags: ['audit'],
        request: { params: IdParam },
        responses: { 200: json(WhySchema, 'The whole chain behind a recall result (observation or fact)'), ...errors },
      }),
      async (c) => {
        const { bank, id } = c.req.valid('param');
        return c.json(await audit.why(bank, id), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/tombstones',
        tags: ['audit'],
        request: { params: BankIdParam, query: z.object({ limit: queryInteger('limit', { min: 1, max: 1000, default: 100 }) }).strict() },
        responses: {
          200: json(z.object({ tombstones: z.array(TombstoneSchema) }), 'What was deleted, when and why (never the content), newest first'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        return c.json({ tombstones: await audit.tombstones(bank, c.req.valid('query').limit) }, 200);
      },
    );
  };
}
