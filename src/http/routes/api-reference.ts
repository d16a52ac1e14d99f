// GET /docs: the API reference. Swagger UI (swagger-ui-dist, served from this process: no CDN,
// and the page's scripts are files, so the CSP needs no inline script) renders /openapi.json
// with "Try it out"; under it, a plain table of every operation that works without JavaScript.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';

/** The files of swagger-ui-dist the page uses, with their content types. */
const UI_FILES = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
} as const;

const INIT_SCRIPT = `window.addEventListener('load', () => {
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    tryItOutEnabled: false,
    validatorUrl: null,
  });
});
`;

// Swagger UI sets inline styles on elements and shows data: images; scripts only from here.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'self'",
].join('; ');

interface Operation {
  summary?: string;
  tags?: string[];
}

/** Registers /docs and its assets under /docs/assets/. */
export function registerApiReference(app: FastifyInstance): void {
  const files = loadUiFiles();
  app.get('/docs', { schema: { hide: true } as object }, async (_request, reply) => {
    const spec = app.swagger() as { paths?: Record<string, Record<string, Operation>> };
    return withHeaders(reply)
      .type('text/html; charset=utf-8')
      .send(renderPage(spec.paths ?? {}));
  });
  app.get('/docs/assets/init.js', { schema: { hide: true } as object }, async (_request, reply) =>
    withHeaders(reply).type('text/javascript; charset=utf-8').send(INIT_SCRIPT),
  );
  for (const [name, contentType] of Object.entries(UI_FILES)) {
    const body = files.get(name);
    app.get(`/docs/assets/${name}`, { schema: { hide: true } as object }, async (_r, reply) =>
      withHeaders(reply)
        .header('cache-control', 'public, max-age=3600')
        .type(contentType)
        .send(body),
    );
  }
}

function loadUiFiles(): Map<string, Buffer> {
  const require = createRequire(import.meta.url);
  const dir = path.dirname(require.resolve('swagger-ui-dist/package.json'));
  return new Map(Object.keys(UI_FILES).map((name) => [name, readFileSync(path.join(dir, name))]));
}

function renderPage(paths: Record<string, Record<string, Operation>>): string {
  const rows = Object.entries(paths).flatMap(([route, operations]) =>
    Object.entries(operations).map(
      ([method, op]) =>
        `<tr><td>${escape(op.tags?.[0] ?? '')}</td><td><code>${method.toUpperCase()}</code></td>` +
        `<td><code>${escape(route)}</code></td><td>${escape(op.summary ?? '')}</td></tr>`,
    ),
  );
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>HermesX API</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="/docs/assets/swagger-ui.css">
<style>body{font-family:system-ui,sans-serif;margin:0}#operations{margin:1.5rem 2rem;max-width:70rem}td,th{padding:.3rem .8rem;text-align:left;border-bottom:1px solid #ddd}</style>
</head><body>
<div id="reference"></div>
<section id="operations"><h2>Every operation</h2><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a>.
Authenticate with <code>Authorization: Bearer &lt;token&gt;</code> ("Authorize" above keeps it in this page only).</p>
<table><tr><th>Area</th><th>Method</th><th>Path</th><th>What it does</th></tr>${rows.join('')}</table></section>
<script src="/docs/assets/swagger-ui-bundle.js"></script><script src="/docs/assets/init.js"></script>
</body></html>`;
}

function withHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer');
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
