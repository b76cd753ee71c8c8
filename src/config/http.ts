// Where the HTTP API listens and whether it asks for a key.
//   CAIRN_HOST      interface to listen on (default 127.0.0.1)
//   CAIRN_PORT      port, 0-65535 (default: PORT, else 8787; 0 picks a free one)
//   CAIRN_API_KEY   when set, every route but /health needs `Authorization: Bearer <key>`
import { z } from 'zod';
import { integer, section, verbatim } from './variables.ts';

export interface HttpConfig {
  host: string;
  port: number;
  apiKey: string | undefined;
}

export const HTTP = section(
  z.object({
    CAIRN_HOST: verbatim(),
    CAIRN_PORT: integer(0, 65535),
    PORT: integer(0, 65535),
    CAIRN_API_KEY: verbatim(),
  }),
  (v): HttpConfig => ({ host: v.CAIRN_HOST ?? '127.0.0.1', port: v.CAIRN_PORT ?? v.PORT ?? 8787, apiKey: v.CAIRN_API_KEY }),
);
