import type { FastifyInstance } from 'fastify';

/** /openapi.json from the route schemas, and /docs: a plain page listing the operations. */
export function registerOpenApiRoutes(app: FastifyInstance): void {
  app.get('/openapi.json', { schema: { hide: true } as object }, async () => app.swagger());
  app.get('/docs', { schema: { hide: true } as object }, async (_request, reply) => {
    const spec = app.swagger() as {
      paths?: Record<string, Record<string, { summary?: string; tags?: string[] }>>;
    };
    const rows = Object.entries(spec.paths ?? {}).flatMap(([path, operations]) =>
      Object.entries(operations).map(
        ([method, op]) =>
          `<tr><td>${escape(op.tags?.[0] ?? '')}</td><td><code>${method.toUpperCase()}</code></td>` +
          `<td><code>${escape(path)}</code></td><td>${escape(op.summary ?? '')}</td></tr>`,
      ),
    );
    const html = `<!doctype html><html><head><meta charset="utf-8"><title>HermesX API</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}td,th{padding:.3rem .8rem;text-align:left;border-bottom:1px solid #ddd}</style>
</head><body><h1>HermesX API</h1><p>Machine-readable description: <a href="/openapi.json">/openapi.json</a>.
Authenticate with <code>Authorization: Bearer &lt;token&gt;</code>.</p>
<table><tr><th>Area</th><th>Method</th><th>Path</th><th>What it does</th></tr>${rows.join('')}</table></body></html>`;
    return reply.type('text/html; charset=utf-8').send(html);
  });
}

function escape(text: string): string {
  return text.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
}
