// Post-processing of the generated OpenAPI document. fastify-type-provider-zod emits every named
// schema twice (`X` for responses, `XInput` for requests); clients and linters want each name
// once, so unused variants go and a request-only `XInput` takes the plain name `X`.

type Json = unknown;
type Document = { paths?: Json; components?: { schemas?: Record<string, Json> } };

const PREFIX = '#/components/schemas/';
const SUCCESS: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

export function tidyOpenApiDocument<T>(document: T): T {
  const doc = document as Document;
  const schemas = doc.components?.schemas;
  if (!schemas) return document;
  const used = reachableSchemas(doc, schemas);
  for (const name of Object.keys(schemas)) if (!used.has(name)) delete schemas[name];
  const renames = new Map<string, string>();
  for (const name of Object.keys(schemas)) {
    const plain = name.endsWith('Input') ? name.slice(0, -'Input'.length) : undefined;
    if (plain && !(plain in schemas)) renames.set(name, plain);
  }
  for (const [from, to] of renames) {
    schemas[to] = schemas[from];
    delete schemas[from];
  }
  rewriteRefs(doc, renames);
  describeSuccesses(doc.paths);
  return document;
}

function reachableSchemas(doc: Document, schemas: Record<string, Json>): Set<string> {
  const used = new Set<string>();
  const pending = refsIn(doc.paths);
  while (pending.length > 0) {
    const name = pending.pop() as string;
    if (used.has(name)) continue;
    used.add(name);
    pending.push(...refsIn(schemas[name]));
  }
  return used;
}

function refsIn(value: Json, found: string[] = []): string[] {
  if (Array.isArray(value)) for (const item of value) refsIn(item, found);
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        found.push(child.slice(PREFIX.length));
      } else refsIn(child, found);
    }
  }
  return found;
}

function rewriteRefs(value: Json, renames: Map<string, string>): void {
  if (Array.isArray(value)) for (const item of value) rewriteRefs(item, renames);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, Json>;
    for (const [key, child] of Object.entries(record)) {
      if (key === '$ref' && typeof child === 'string' && child.startsWith(PREFIX)) {
        const to = renames.get(child.slice(PREFIX.length));
        if (to) record[key] = PREFIX + to;
      } else rewriteRefs(child, renames);
    }
  }
}

const RETRY_AFTER = {
  description: 'seconds until a request may succeed',
  required: true,
  schema: { type: 'integer', minimum: 0 },
};

/**
 * @fastify/swagger calls every response without a description "Default Response"; and the Zod
 * transform drops response headers, so a 429's Retry-After is added here.
 */
function describeSuccesses(paths: Json): void {
  for (const operations of Object.values((paths ?? {}) as Record<string, Record<string, Json>>)) {
    for (const operation of Object.values(operations)) {
      const responses = (operation as { responses?: Record<string, { description?: string }> })
        .responses;
      for (const [status, response] of Object.entries(responses ?? {})) {
        if (response.description === 'Default Response' && SUCCESS[status]) {
          response.description = SUCCESS[status];
        }
        if (status === '429') Object.assign(response, { headers: { 'Retry-After': RETRY_AFTER } });
      }
    }
  }
}
