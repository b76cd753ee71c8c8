// Retain and the memory it builds: retain items, list and get facts and documents (with their source text), list
// sessions, list and get entities and the graph of their co-mentions, delete facts and documents, read operations.
import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import type { Routes } from './index.ts';
import {
  BankIdParam,
  BankIdSchema,
  ChunkSchema,
  DocumentSchema,
  EntityEdgeSchema,
  EntitySchema,
  ErrorSchema,
  FactKindSchema,
  FactSchema,
  forwardOccurredRange,
  json,
  OperationSchema,
  PageQuery,
  queryInteger,
  RetainRequestSchema,
  RetainResponseSchema,
  SessionSchema,
  TimeFilterFields,
  DeleteQuery,
  deleteReason,
} from '../schemas.ts';

/** Routes that take no query parameters say so: an unknown one is a 400, not silently ignored. */
const NO_QUERY = z.object({}).strict();
const errors = {
  400: json(ErrorSchema, 'Invalid request'),
  404: json(ErrorSchema, 'Not found (a deleted fact or document: the message says when and why)'),
};
const DeleteResultSchema = z
  .object({
    factIds: z.array(z.string()).openapi({
      description: 'The records deleted: the facts (of a document: all of its facts), or the observation asked for by its id',
    }),
    observationIds: z.array(z.string()).openapi({
      description:
        'Observations that cited a deleted fact, left to revise: consolidation re-judges each on its remaining evidence (removed when none is left)',
    }),
  })
  .openapi('DeleteResult');

/** What a listing shows of an operation: all but its input (a retain's can be megabytes). */
const OperationSummarySchema = OperationSchema.omit({ input: true }).openapi('OperationSummary');

const OperationsQuery = z
  .object({
    limit: queryInteger('limit', { min: 1, max: 200, default: 20 }),
    offset: queryInteger('offset', { min: 0, default: 0 }),
    status: OperationSchema.shape.status.optional(),
  })
  .strict();

const EntityGraphSchema = z
  .object({
    nodes: z.array(EntitySchema).openapi({ description: 'The `limit` most mentioned entities, most mentioned first' }),
    edges: z.array(EntityEdgeSchema).openapi({
      description: 'Pairs of those entities that active facts mention together (no self edges), ordered by source, then target',
    }),
  })
  .openapi('EntityGraph');

export function memoryRoutes(engine: Engine): Routes {
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks/{bank}/memories',
        tags: ['retain'],
        request: { params: BankIdParam, body: { content: { 'application/json': { schema: RetainRequestSchema } }, required: true } },
        responses: {
          200: json(RetainResponseSchema, 'Retained (synchronous)'),
          202: json(RetainResponseSchema, 'Accepted; poll GET /v1/operations/{id}'),
          ...errors,
          409: json(
            ErrorSchema,
            'The bank holds vectors of another embedder, or a sync retry of an operationId whose operation still runs',
          ),
          422: json(ErrorSchema, 'The operationId was first used with another payload'),
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        const body = c.req.valid('json');
        const { operation, result } = await engine.retain(
          bank,
          { items: body.items, documentMode: body.documentMode },
          { async: body.async, operationId: body.operationId },
        );
        const payload = { operationId: operation.id, status: operation.status, result };
        return body.async ? c.json(payload, 202) : c.json(payload, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/facts',
        tags: ['memory'],
        request: {
          params: BankIdParam,
          query: forwardOccurredRange(
            PageQuery.extend({
              kind: FactKindSchema.optional(),
              documentId: z.string().optional(),
              entityId: z.string().optional(),
              session: z.string().min(1).max(256).optional().openapi({
                description:
                  'Only facts whose source item belongs to this session (GET /v1/banks/{bank}/sessions); observations belong to none',
              }),
              includeSuperseded: z.enum(['true', 'false']).optional(),
              ...TimeFilterFields,
            }).strict(),
          ),
        },
        responses: { 200: json(z.object({ facts: z.array(FactSchema), total: z.number() }), 'A page of facts'), ...errors },
      }),
      async (c) => {
        const q = c.req.valid('query');
        const page = await engine.memories.listFacts(c.req.valid('param').bank, {
          limit: q.limit,
          offset: q.offset,
          kinds: q.kind ? [q.kind] : undefined,
          documentId: q.documentId,
          entityId: q.entityId,
          session: q.session,
          includeSuperseded: q.includeSuperseded === 'true',
          occurredFrom: q.occurredFrom,
          occurredTo: q.occurredTo,
          validAt: q.validAt,
        });
        return c.json(page, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/facts/{fact}',
        tags: ['memory'],
        request: { params: BankIdParam.extend({ fact: z.string() }) },
        responses: { 200: json(FactSchema, 'The fact'), ...errors },
      }),
      async (c) => {
        const { bank, fact } = c.req.valid('param');
        return c.json(await engine.memories.getFact(bank, fact), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'delete',
        path: '/v1/banks/{bank}/facts/{fact}',
        tags: ['memory'],
        request: { params: BankIdParam.extend({ fact: z.string() }), query: DeleteQuery },
        responses: { 200: json(DeleteResultSchema, 'Deleted through every index'), ...errors },
      }),
      async (c) => {
        const { bank, fact } = c.req.valid('param');
        return c.json(await engine.memories.deleteFact(bank, fact, deleteReason(c.req.valid('query'))), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/documents',
        tags: ['memory'],
        request: { params: BankIdParam, query: PageQuery },
        responses: {
          200: json(z.object({ documents: z.array(DocumentSchema) }), 'Documents in the order they were first retained'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        const q = c.req.valid('query');
        return c.json({ documents: await engine.memories.listDocuments(bank, q.limit, q.offset) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/documents/{document}',
        tags: ['memory'],
        request: { params: BankIdParam.extend({ document: z.string() }) },
        responses: {
          200: json(DocumentSchema.extend({ chunks: z.array(ChunkSchema) }), 'The document with its chunks in order'),
          ...errors,
        },
      }),
      async (c) => {
        const { bank, document } = c.req.valid('param');
        const { chunks, ...doc } = await engine.memories.getDocument(bank, document);
        return c.json(
          {
            ...doc,
            chunks: chunks.map((k) => ({
              id: k.id,
              documentId: k.documentId,
              index: k.index,
              itemId: k.itemId,
              text: k.text,
              speaker: k.speaker,
              timestamp: k.timestamp,
              context: k.context,
              session: k.session ?? null,
            })),
          },
          200,
        );
      },
    );
    app.openapi(
      createRoute({
        method: 'delete',
        path: '/v1/banks/{bank}/documents/{document}',
        tags: ['memory'],
        request: {
          params: BankIdParam.extend({ document: z.string() }),
          query: DeleteQuery,
        },
        responses: {
          200: json(DeleteResultSchema, 'Deleted with all its facts'),
          ...errors,
          409: json(ErrorSchema, 'A retain in progress is writing the document: delete it once that operation has finished'),
        },
      }),
      async (c) => {
        const { bank, document } = c.req.valid('param');
        return c.json(await engine.memories.deleteDocument(bank, document, deleteReason(c.req.valid('query'))), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/entities',
        tags: ['memory'],
        request: { params: BankIdParam, query: PageQuery },
        responses: { 200: json(z.object({ entities: z.array(EntitySchema) }), 'Entities, most mentioned first'), ...errors },
      }),
      async (c) => {
        const q = c.req.valid('query');
        return c.json({ entities: await engine.memories.listEntities(c.req.valid('param').bank, q.limit, q.offset) }, 200);
      },
    );
    // Before /entities/{entity}: the first route that matches answers. Entity ids are generated (`ent_` and hex,
    // core/ids.ts), so none is ever 'graph'.
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/entities/graph',
        tags: ['memory'],
        request: {
          params: BankIdParam,
          query: z.object({ limit: queryInteger('limit', { min: 1, max: 500, default: 100 }) }).strict(),
        },
        responses: { 200: json(EntityGraphSchema, 'The most mentioned entities and their co-mentions'), ...errors },
      }),
      async (c) => {
        return c.json(await engine.memories.entityGraph(c.req.valid('param').bank, c.req.valid('query').limit), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/entities/{entity}',
        tags: ['memory'],
        request: { params: BankIdParam.extend({ entity: z.string() }), query: NO_QUERY },
        responses: { 200: json(EntitySchema, 'The entity'), ...errors },
      }),
      async (c) => {
        const { bank, entity } = c.req.valid('param');
        return c.json(await engine.memories.getEntity(bank, entity), 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/sessions',
        tags: ['memory'],
        request: { params: BankIdParam, query: NO_QUERY },
        responses: { 200: json(z.object({ sessions: z.array(SessionSchema) }), 'Sessions in time order, the earliest first'), ...errors },
      }),
      async (c) => {
        return c.json({ sessions: await engine.memories.sessions(c.req.valid('param').bank) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}/operations',
        tags: ['operations'],
        request: { params: BankIdParam, query: OperationsQuery },
        responses: {
          200: json(z.object({ operations: z.array(OperationSummarySchema) }), 'Operations newest first (by createdAt, then id)'),
          ...errors,
        },
      }),
      async (c) => {
        const { limit, offset, status } = c.req.valid('query');
        const operations = await engine.listOperations(c.req.valid('param').bank, { limit, offset, status });
        return c.json({ operations: operations.map(({ input: _input, ...op }) => op) }, 200);
      },
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/operations/{id}',
        tags: ['operations'],
        request: {
          params: z.object({
            id: z.string().openapi({ description: 'The operation id, or the operationId (idempotency key) it was started with' }),
          }),
          query: z
            .object({
              include: z
                .enum(['input'])
                .optional()
                .openapi({ description: 'input: also return the request the operation was started with' }),
              bank: BankIdSchema.optional().openapi({
                description: 'The bank of the operation (needed when a key was used in several banks)',
              }),
            })
            .strict(),
        },
        responses: {
          200: json(OperationSchema, 'Status and progress'),
          400: errors[400],
          404: errors[404],
          409: json(ErrorSchema, 'The key names operations of several banks: add ?bank='),
        },
      }),
      async (c) => {
        const { include, bank } = c.req.valid('query');
        const { input, ...op } = await engine.getOperation(c.req.valid('param').id, bank);
        return c.json(include === 'input' ? { ...op, input } : op, 200);
      },
    );
  };
}
