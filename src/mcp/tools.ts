// The MCP tools, as data: each names its REST route, the fields it takes (picked from the same zod schemas that
// validate the REST API, so both edges accept the same input) and annotations telling a client which tools only read
// and which delete. A tool call becomes one request to that route (server.ts), so auth, validation and errors are the
// REST API's own.
import { z } from '@hono/zod-openapi';
import { LONE_SURROGATE, ONLY_DOTS } from '../core/index.ts';
import { CreateBankSchema, MessageList, RecallFields, ReflectRequestSchema, RetainRequestSchema } from '../api/index.ts';

/** One REST request: method, path (its segments already encoded), query and JSON body. */
export interface RestRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Turns the REST answer into the tool's (when they differ). */
  reshape?: (body: unknown) => unknown;
}

/** Arguments a tool cannot send (its message says why); the call answers with it as a tool error. */
export class ToolInputError extends Error {}

export interface ToolAnnotations {
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface ToolRecipe {
  name: string;
  title: string;
  /** Written for a model: what the tool does and when to use it rather than another. */
  description: string;
  /** Acts on one bank: it takes `bank` (optional when the connection is bound to one). */
  onBank: boolean;
  /** Its arguments besides `bank`. */
  fields: z.ZodRawShape;
  annotations: ToolAnnotations;
  /** The REST request for validated arguments, the bank they act on ('' for tools not on a bank) and the bank the
   * connection is bound to (tools not on a bank keep a bound connection to its bank too). */
  request: (args: Record<string, unknown>, bank: string, bound: string | undefined) => RestRequest;
}

/** An id as one path segment. Ids of only dots cannot be one (every URL parser reads them as steps up, even
 * percent-encoded), and a lone surrogate cannot be encoded: both are refused with a message. */
const seg = (value: unknown): string => {
  const text = String(value);
  if (ONLY_DOTS.test(text)) throw new ToolInputError(`the id '${text}' cannot be sent: an id of only dots reads as a path step`);
  if (LONE_SURROGATE.test(text)) throw new ToolInputError('the id holds a lone surrogate, which is not valid text');
  return encodeURIComponent(text);
};
const bankPath = (bank: string, rest = ''): string => `/v1/banks/${seg(bank)}${rest}`;
/** The arguments without the named ones (what goes into a request body). */
const without = (args: Record<string, unknown>, ...names: string[]): Record<string, unknown> =>
  Object.fromEntries(Object.entries(args).filter(([k, v]) => !names.includes(k) && v !== undefined));

const RECALL_FIELDS = [
  'query',
  'limit',
  'maxTokens',
  'types',
  'occurredFrom',
  'occurredTo',
  'validAt',
  'asOf',
  'queryTime',
  'tags',
  'budget',
  'group',
  'perSource',
] as const;
const pick = <S extends z.ZodRawShape, K extends keyof S & string>(shape: S, keys: readonly K[]): Pick<S, K> =>
  Object.fromEntries(keys.map((k) => [k, shape[k]])) as Pick<S, K>;

const thread = z
  .string()
  .min(1)
  .max(256)
  .refine((t) => !ONLY_DOTS.test(t), { message: 'a thread id must not be only dots' })
  .describe('The conversation thread id (any string the agent uses for this conversation)');
const reason = z.string().max(500).optional().describe('Why it is forgotten (kept in the tombstone)');

export const TOOLS: readonly ToolRecipe[] = [
  {
    name: 'list_banks',
    title: 'List memory banks',
    description:
      'Lists the memory banks this server holds (id, name, mission). Use it to find which bank to work with. A connection ' +
      'bound to a bank sees that bank only.',
    onBank: false,
    fields: {},
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (_args, _bank, bound) =>
      bound ? { method: 'GET', path: bankPath(bound), reshape: (bank) => ({ banks: [bank] }) } : { method: 'GET', path: '/v1/banks' },
  },
  {
    name: 'get_bank',
    title: 'Get a memory bank',
    description: 'Reads one bank: its name, its mission (what this memory is for, which guides consolidation) and its configuration.',
    onBank: true,
    fields: {},
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (_args, bank) => ({ method: 'GET', path: bankPath(bank) }),
  },
  {
    name: 'create_bank',
    title: 'Create a memory bank',
    description:
      'Creates a memory bank: a separate memory (one per user, agent or project). Give a mission saying what the memory is for; ' +
      'it steers which beliefs consolidation forms. Fails if a bank with that id exists. A connection bound to a bank may ' +
      'create that bank only.',
    onBank: false,
    fields: CreateBankSchema.shape,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    request: (args, _bank, bound) => {
      if (bound && args.id !== undefined && args.id !== bound)
        throw new ToolInputError(`this connection is bound to bank "${bound}"; it can create that bank only`);
      return { method: 'POST', path: '/v1/banks', body: bound ? { ...args, id: bound } : args };
    },
  },
  {
    name: 'retain',
    title: 'Remember content',
    description:
      'Stores content in long-term memory: conversation turns, notes, documents. Cairn extracts facts (with when they happened), ' +
      'entities and links, and later consolidates them into observations. Use it for anything worth remembering across sessions. ' +
      'Give each item a timestamp when you know when it was said, and a documentId to update a document later. With async: true ' +
      'it returns at once with an operation id (poll get_operation); otherwise it answers when the facts are stored.',
    onBank: true,
    fields: RetainRequestSchema.shape,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    request: (args, bank) => ({ method: 'POST', path: bankPath(bank, '/memories'), body: without(args, 'bank') }),
  },
  {
    name: 'get_operation',
    title: 'Get an operation',
    description: 'Reads an asynchronous operation (an async retain): its status, progress and result once it has succeeded.',
    onBank: true,
    fields: { id: z.string().min(1).max(200).describe('The operation id (or operationId key) a retain returned') },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({ method: 'GET', path: `/v1/operations/${seg(args.id)}`, query: { bank } }),
  },
  {
    name: 'recall',
    title: 'Recall memories',
    description:
      'Searches memory for what is relevant to a query and returns facts and observations (beliefs formed from many facts), best ' +
      'first, each with its id, text, times and source. Use it before answering anything that may depend on what was said or ' +
      'learned earlier. Narrow by time (occurredFrom/occurredTo, validAt; asOf reads memory as it stood then) or kind (types); maxTokens bounds the size of the answer. ' +
      'To get a written answer with citations instead of raw memories, use reflect.',
    onBank: true,
    fields: pick(RecallFields.shape, RECALL_FIELDS),
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({ method: 'POST', path: bankPath(bank, '/recall'), body: without(args, 'bank') }),
  },
  {
    name: 'reflect',
    title: 'Answer from memory',
    description:
      'Answers a question from memory: searches it, reasons over what it finds and returns an answer citing the memory ids it rests ' +
      'on (basedOn). Use it for questions that need several memories put together; use recall to read memories themselves.',
    onBank: true,
    fields: pick(ReflectRequestSchema.shape, ['query', 'budget', 'maxTokens', 'queryTime']),
    annotations: { readOnlyHint: true, idempotentHint: false, openWorldHint: false },
    request: (args, bank) => ({ method: 'POST', path: bankPath(bank, '/reflect'), body: without(args, 'bank') }),
  },
  {
    name: 'why',
    title: 'Explain a memory',
    description:
      'The evidence chain behind a recall result: for an observation, the facts supporting or contradicting it and its revisions; ' +
      'for a fact, the sentence and document it was read from. Use it to check why Cairn believes something before relying on it.',
    onBank: true,
    fields: { id: z.string().min(1).max(200).describe('An observation or fact id from recall or reflect') },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({ method: 'GET', path: bankPath(bank, `/why/${seg(args.id)}`) }),
  },
  {
    name: 'consolidation_status',
    title: 'Consolidation status',
    description:
      'How far consolidation (facts into observations) has come in the bank: facts waiting, the age of the oldest, failures. ' +
      'Observations for recently retained content appear once the backlog has drained.',
    onBank: true,
    fields: {},
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (_args, bank) => ({ method: 'GET', path: bankPath(bank, '/consolidation') }),
  },
  {
    name: 'forget_fact',
    title: 'Forget a fact',
    description:
      'Deletes one fact from every index (what it supported is revised; a tombstone records the deletion). Use it when the user asks ' +
      'to forget something specific or a fact is wrong. Cannot be undone.',
    onBank: true,
    fields: { fact: z.string().min(1).max(200).describe('The fact id (from recall)'), reason },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({
      method: 'DELETE',
      path: bankPath(bank, `/facts/${seg(args.fact)}`),
      query: { reason: args.reason as string | undefined },
    }),
  },
  {
    name: 'forget_document',
    title: 'Forget a document',
    description: 'Deletes a retained document and every fact read from it. Cannot be undone.',
    onBank: true,
    fields: { document: z.string().min(1).max(256).describe('The documentId given at retain (or shown in recall results)'), reason },
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({
      method: 'DELETE',
      path: bankPath(bank, `/documents/${seg(args.document)}`),
      query: { reason: args.reason as string | undefined },
    }),
  },
  {
    name: 'thread_append',
    title: 'Append messages to a thread',
    description:
      "Adds messages to a conversation thread's memory. Cairn compresses a long thread into observations so its context stays small " +
      'and stable (read it with thread_context). Send every turn of the conversation here.',
    onBank: true,
    fields: { thread, messages: MessageList },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    request: (args, bank) => ({
      method: 'POST',
      path: bankPath(bank, `/threads/${seg(args.thread)}/messages`),
      body: { messages: args.messages },
    }),
  },
  {
    name: 'thread_context',
    title: 'Thread context',
    description:
      "The thread's memory as context for the next turn: a compressed prefix (stable between turns, so it caches well) and the recent " +
      'messages not yet compressed. Put it at the start of the prompt instead of the whole conversation.',
    onBank: true,
    fields: { thread, maxTokens: z.number().int().min(1).max(2_000_000).optional().describe('Most tokens of context to return') },
    annotations: { readOnlyHint: true, idempotentHint: true, openWorldHint: false },
    request: (args, bank) => ({
      method: 'GET',
      path: bankPath(bank, `/threads/${seg(args.thread)}/context`),
      query: { maxTokens: args.maxTokens === undefined ? undefined : String(args.maxTokens) },
    }),
  },
  {
    name: 'thread_remember',
    title: 'Note in working memory',
    description:
      "Adds a note to the thread's working memory (facts about the user or task that every later turn should see, such as a name " +
      'or a preference). Returns the updated working memory.',
    onBank: true,
    fields: { thread, note: z.string().trim().min(1, 'note must not be empty').max(4000).describe('The note') },
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    request: (args, bank) => ({ method: 'POST', path: bankPath(bank, `/threads/${seg(args.thread)}/remember`), body: { note: args.note } }),
  },
];
