import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../errors.js';

// The web dashboard: the files Vite built into dist/web, served by the API process itself. They
// are read once at start (a few small files), so a request never touches the file system and no
// path from a URL is ever joined to a directory.

/**
 * Paths the dashboard's router owns: index.html whatever the client accepts. Any other page a
 * browser asks for (it accepts text/html) outside the API gets index.html too, and the
 * dashboard shows its own "not found" page for a path it does not know.
 */
export const DASHBOARD_PATHS = [
  '/jobs',
  '/runs',
  '/webhooks',
  '/mcp-servers',
  '/channels',
  '/usage',
  '/skills',
  '/secrets',
  '/settings',
  '/tenants',
  '/keys',
  '/cluster',
  '/audit',
  '/sign-in',
  '/members',
];

/** Never the dashboard's: their unknown paths stay JSON 404s, whoever asks. */
const NOT_DASHBOARD = /^\/(?:v1|auth|health|metrics|openapi\.json|docs|assets)(?:[/.?]|$)/;

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "manifest-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.svg', '.json', '.txt']);
const HASHED_CACHE = 'public, max-age=31536000, immutable';

interface Asset {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  cache: string;
}

/** dist/web next to the compiled code (dist/http/routes → dist/web) or, from sources, the repo's. */
export function defaultWebDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const candidates = [path.resolve(here, '../../web'), path.resolve(here, '../../../dist/web')];
  return candidates.find((dir) => existsSync(path.join(dir, 'index.html'))) ?? candidates[1]!;
}

export function registerDashboardRoutes(
  app: FastifyInstance,
  options: { webDir?: string } = {},
): void {
  const webDir = options.webDir ?? defaultWebDir();
  const assets = loadAssets(webDir);
  const index = assets.get('/index.html');
  // The page and its assets are public: the API key is asked for by the page, kept in the tab.
  const hidden = { schema: { hide: true } as object, config: { access: 'public' as const } };

  const sendIndex = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!index) return sendNotBuilt(reply, webDir);
    return sendAsset(request, reply, index);
  };
  app.get('/', hidden, sendIndex);
  // A reload or bookmark of a page added later needs no route: unmatched page requests from a
  // browser get index.html. Done where Fastify has found no route, so the API's 404s (and their
  // "unmatched" access-log and metrics label) are untouched.
  app.addHook('onRequest', async (request, reply) => {
    if (!request.is404 || !isPageRequest(request)) return;
    return sendIndex(request, reply);
  });
  for (const prefix of DASHBOARD_PATHS) {
    app.get(prefix, hidden, sendIndex);
    app.get(`${prefix}/*`, hidden, sendIndex);
  }
  app.get('/assets/*', hidden, async (request, reply) => {
    const asset = assets.get(request.url.split('?')[0] ?? '');
    if (!asset) throw new ApiError(404, 'not_found', `no dashboard file ${request.url}`);
    return sendAsset(request, reply, asset);
  });
  for (const [urlPath, asset] of assets) {
    if (urlPath.startsWith('/assets/') || urlPath === '/index.html') continue;
    app.get(urlPath, hidden, (request, reply) => sendAsset(request, reply, asset));
  }
}

function isPageRequest(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (!/\btext\/html\b/i.test(String(request.headers.accept ?? ''))) return false;
  return !NOT_DASHBOARD.test(request.url);
}

function sendAsset(request: FastifyRequest, reply: FastifyReply, asset: Asset) {
  const acceptsGzip = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
  securityHeaders(reply)
    .header('content-type', asset.type)
    .header('cache-control', asset.cache)
    .header('vary', 'accept-encoding');
  if (asset.gzip && acceptsGzip) {
    return reply.header('content-encoding', 'gzip').send(asset.gzip);
  }
  return reply.send(asset.body);
}

function sendNotBuilt(reply: FastifyReply, webDir: string) {
  const text =
    'The HermesX dashboard is not built.\n\n' +
    `Run \`npm run build\` in the repository (it writes ${webDir}), then restart the service.\n` +
    'The API itself works without it: see /docs and /openapi.json.\n';
  return securityHeaders(reply)
    .code(503)
    .header('content-type', 'text/plain; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(text);
}

function securityHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('content-security-policy', CONTENT_SECURITY_POLICY)
    .header('x-content-type-options', 'nosniff')
    .header('referrer-policy', 'no-referrer')
    .header('x-frame-options', 'DENY')
    .header('cross-origin-opener-policy', 'same-origin');
}

/** Every file under webDir, by URL path; empty when the dashboard was not built. */
function loadAssets(webDir: string): Map<string, Asset> {
  const assets = new Map<string, Asset>();
  if (!existsSync(path.join(webDir, 'index.html'))) return assets;
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const file = path.join(dir, name);
      if (statSync(file).isDirectory()) {
        walk(file);
        continue;
      }
      const ext = path.extname(name).toLowerCase();
      const type = TYPES[ext];
      if (!type) continue;
      const urlPath = '/' + path.relative(webDir, file).split(path.sep).join('/');
      const body = readFileSync(file);
      assets.set(urlPath, {
        body,
        gzip:
          COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
        type,
        // Vite puts content-hashed names under assets/; everything else is revalidated.
        cache: urlPath.startsWith('/assets/') ? HASHED_CACHE : 'no-cache',
      });
    }
  };
  walk(webDir);
  return assets;
}
