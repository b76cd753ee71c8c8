// Serves Cairn Explorer at /ui: one HTML page, its stylesheet, and its script bundled from src/ui/app (Preact and
// the typed client) by esbuild on first request and kept in memory, so there is no build step to run or commit.
// These files hold no memory content (the page reads everything through the public API with the user's key), so
// they are served without the key.
import { readFileSync } from 'node:fs';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { build } from 'esbuild';

const APP = new URL('./app/', import.meta.url);

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Cairn Explorer</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/ui/app.css">
</head>
<body>
<div id="root"><p class="loading">Loading Cairn Explorer…</p></div>
<script type="module" src="/ui/app.js"></script>
</body>
</html>
`;

let bundle: Promise<string> | null = null;
let stylesheet: string | null = null;

/** The page's script: src/ui/app/main.tsx with its imports, for browsers, built once per process. */
function script(): Promise<string> {
  bundle ??= build({
    entryPoints: [new URL('main.tsx', APP).pathname],
    bundle: true,
    write: false,
    format: 'esm',
    target: 'es2022',
    minify: true,
    jsx: 'automatic',
    jsxImportSource: 'preact',
    logLevel: 'silent',
  })
    .then((r) => r.outputFiles[0].text)
    .catch((e: Error) => {
      bundle = null; // a later request tries again
      throw e;
    });
  return bundle;
}

export function uiRoutes(): (app: OpenAPIHono) => void {
  return (app) => {
    app.get('/ui', (c) => c.html(PAGE));
    app.get('/ui/', (c) => c.redirect('/ui'));
    app.get('/ui/app.js', async (c) => c.body(await script(), 200, { 'content-type': 'text/javascript; charset=utf-8' }));
    app.get('/ui/app.css', (c) =>
      c.body((stylesheet ??= readFileSync(new URL('style.css', APP), 'utf8')), 200, { 'content-type': 'text/css; charset=utf-8' }),
    );
  };
}
