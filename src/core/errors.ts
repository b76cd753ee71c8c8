// Errors the engine raises on purpose. Each carries a stable code and the HTTP status the API answers with.

export type ErrorCode =
  | 'bad_request'
  | 'unauthorized'
  | 'not_found'
  | 'conflict'
  | 'idempotency_key_reused'
  | 'payload_too_large'
  | 'embedder_mismatch'
  | 'unavailable'
  | 'internal';

const STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  unauthorized: 401,
  not_found: 404,
  conflict: 409,
  idempotency_key_reused: 422,
  payload_too_large: 413,
  embedder_mismatch: 409,
  unavailable: 503,
  internal: 500,
};

export class CairnError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.name = 'CairnError';
    this.code = code;
    this.status = STATUS[code];
  }
}

/** The first `max` characters of a text a message shows (never half of a surrogate pair, which no UTF-8 encoder
 * takes), with "..." when it went on. */
export function shortened(text: string, max: number): string {
  if (text.length <= max) return text;
  // A pair is two code units: this many hold more than `max` characters whenever the text does.
  const characters = [...text.slice(0, 2 * max + 2)];
  return characters.length <= max ? text : `${characters.slice(0, max).join('')}...`;
}

/** An id as a message quotes it: a long one is cut (an id of kilobytes in a path need not come back in the answer),
 * between characters (never inside a surrogate pair, which no UTF-8 encoder takes), and counted in characters. */
export function quoteId(id: string): string {
  if (id.length <= 100) return `'${id}'`;
  const characters = [...id].length;
  return characters <= 100 ? `'${id}'` : `'${shortened(id, 60)}' (${characters} characters)`;
}

export const notFound = (what: string, id: string): CairnError => new CairnError('not_found', `${what} ${quoteId(id)} does not exist`);

/** The 404 for a record asked for by id: when it was deleted, what it was, when and why (its tombstone; the content is
 * never kept). */
export const notFoundOrDeleted = (what: string, id: string, tombstone: { kind: string; at: string; reason: string } | null): CairnError =>
  tombstone
    ? new CairnError(
        'not_found',
        `${tombstone.kind} ${quoteId(id)} was deleted at ${tombstone.at} (reason: ${JSON.stringify(tombstone.reason)}); only its tombstone is kept`,
      )
    : notFound(what, id);

export const badRequest = (message: string): CairnError => new CairnError('bad_request', message);

/** Why an unfinished operation of a deleted bank failed (the stores record it, the engine says the same). */
export const bankDeletedError = (bankId: string): string =>
  `bank '${bankId}' was deleted before this operation finished; what it had stored went with the bank`;
