// Bank routes: create, list, get, update (mission, config), delete.
import { createRoute, z } from '@hono/zod-openapi';
import type { Engine } from '../../engine.ts';
import type { Routes } from './index.ts';
import { BankIdParam, BankSchema, CreateBankSchema, DeleteQuery, deleteReason, ErrorSchema, json, UpdateBankSchema } from '../schemas.ts';

const errors = { 400: json(ErrorSchema, 'Invalid request'), 404: json(ErrorSchema, 'No such bank') };

const BankDeletedSchema = z
  .object({
    deleted: z.string(),
    /** False: the answer came before every row was removed (see the 202). */
    complete: z.boolean(),
  })
  .openapi('BankDeleted');

export function bankRoutes(engine: Engine): Routes {
  return (app) => {
    app.openapi(
      createRoute({
        method: 'post',
        path: '/v1/banks',
        tags: ['banks'],
        request: { body: { content: { 'application/json': { schema: CreateBankSchema } }, required: true } },
        responses: { 201: json(BankSchema, 'The new bank'), 400: errors[400], 409: json(ErrorSchema, 'A bank with this id exists') },
      }),
      async (c) => c.json(await engine.createBank(c.req.valid('json')), 201),
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks',
        tags: ['banks'],
        responses: { 200: json(z.object({ banks: z.array(BankSchema) }), 'All banks') },
      }),
      async (c) => c.json({ banks: await engine.listBanks() }, 200),
    );
    app.openapi(
      createRoute({
        method: 'get',
        path: '/v1/banks/{bank}',
        tags: ['banks'],
        request: { params: BankIdParam },
        responses: { 200: json(BankSchema, 'The bank'), ...errors },
      }),
      async (c) => c.json(await engine.requireBank(c.req.valid('param').bank), 200),
    );
    app.openapi(
      createRoute({
        method: 'patch',
        path: '/v1/banks/{bank}',
        tags: ['banks'],
        request: { params: BankIdParam, body: { content: { 'application/json': { schema: UpdateBankSchema } }, required: true } },
        responses: { 200: json(BankSchema, 'The updated bank'), ...errors },
      }),
      async (c) => c.json(await engine.updateBank(c.req.valid('param').bank, c.req.valid('json')), 200),
    );
    app.openapi(
      createRoute({
        method: 'delete',
        path: '/v1/banks/{bank}',
        tags: ['banks'],
        request: { params: BankIdParam, query: DeleteQuery },
        responses: {
          200: json(BankDeletedSchema, 'Deleted, with everything in it'),
          202: json(
            BankDeletedSchema,
            'Gone for every reader and writer; its rows are still being removed (a large bank), and creating a bank of the same id is a 409 until they are',
          ),
          ...errors,
        },
      }),
      async (c) => {
        const { bank } = c.req.valid('param');
        const { complete } = await engine.deleteBank(bank, deleteReason(c.req.valid('query')));
        return complete ? c.json({ deleted: bank, complete }, 200) : c.json({ deleted: bank, complete }, 202);
      },
    );
  };
}
