// Test support: serve a Hono app on a random loopback port and talk JSON to it over real HTTP.
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';

type FetchApp = { fetch: (request: Request) => Response | Promise<Response> };

export interface Listening {
  url: string;
  call<T = unknown>(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: T }>;
  /** Stops accepting and drops open connections (SSE streams included). */
  close(): Promise<void>;
}

export async function listen(app: FetchApp): Promise<Listening> {
  const server: ServerType = await new Promise((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    async call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(url + path, {
        method,
        headers: { 'content-type': 'application/json', ...headers },
        body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      });
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : null) as T };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      }),
  };
}
