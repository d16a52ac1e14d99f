// Checks HTTP answers against the served OpenAPI document, in process: the status must be one the
// operation lists, the media type one it lists for that status (none for a 204), and the body must
// match its schema (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses it, with formats).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats is CommonJS: under Node's ESM loader its default export is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

interface MediaType {
  schema?: unknown;
}
interface Operation {
  requestBody?: { content: Record<string, MediaType> };
  responses: Record<
    string,
    { content?: Record<string, MediaType>; headers?: Record<string, { required?: boolean }> }
  >;
}
export interface OpenApiDocument {
  paths: Record<string, Record<string, Operation>>;
}

export interface Exchange {
  method: string;
  /** The request path with its query, as sent. */
  url: string;
  requestContentType?: string;
  requestBody?: unknown;
  status: number;
  contentType: string | undefined;
  /** The answer's headers (lower-case names). */
  headers?: Record<string, unknown>;
  body: string;
}

const DOCUMENT_ID = 'https://hermesx.invalid/openapi.json';
const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

export interface OpenApiValidator {
  /** The operation (`METHOD /template`) a request goes to, or undefined for none. */
  operationOf(method: string, url: string): string | undefined;
  /** What is wrong with this answer per the document (empty: nothing). */
  violations(exchange: Exchange): string[];
  /** Every operation of the document, as `METHOD /template`. */
  operations(): string[];
}

export function createOpenApiValidator(document: OpenApiDocument): OpenApiValidator {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const compiled = new Map<string, ValidateFunction>();
  const validatorAt = (pointer: string[]) => {
    const ref = `${DOCUMENT_ID}#/${pointer.map(escapePointer).join('/')}`;
    let validate = compiled.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      compiled.set(ref, validate);
    }
    return validate;
  };
  // Literal paths before templated ones, so /v1/cron-jobs/preview is not taken for {id}.
  const templates = Object.keys(document.paths)
    .map((template) => ({
      template,
      params: (template.match(/\{/g) ?? []).length,
      pattern: new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
    }))
    .sort((a, b) => a.params - b.params);

  const operationOf = (method: string, url: string) => {
    const path = url.split('?')[0] ?? '';
    const found = templates.find(
      (t) => t.pattern.test(path) && document.paths[t.template]?.[method.toLowerCase()],
    );
    return found ? `${method.toUpperCase()} ${found.template}` : undefined;
  };

  const checkSchema = (pointer: string[], value: unknown, what: string): string[] => {
    const validate = validatorAt(pointer);
    if (validate(value)) return [];
    return (validate.errors ?? []).map(
      (e) => `${what}: ${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`,
    );
  };

  return {
    operationOf,
    operations: () =>
      Object.entries(document.paths).flatMap(([template, ops]) =>
        Object.keys(ops)
          .filter((m) => METHODS.includes(m))
          .map((m) => `${m.toUpperCase()} ${template}`),
      ),
    violations(exchange) {
      const name = operationOf(exchange.method, exchange.url);
      const at = `${exchange.method} ${exchange.url} → ${exchange.status}`;
      if (!name) return [`${at}: no operation in the document`];
      const [, template = ''] = name.split(' ');
      const method = exchange.method.toLowerCase();
      const operation = document.paths[template]?.[method] as Operation;
      const problems: string[] = [];
      if (exchange.requestBody !== undefined && exchange.status < 400) {
        const media = mediaOf(exchange.requestContentType);
        if (!operation.requestBody?.content[media]) {
          problems.push(`${at}: request media type ${media} not documented`);
        } else {
          const pointer = ['paths', template, method, 'requestBody', 'content', media, 'schema'];
          problems.push(...checkSchema(pointer, exchange.requestBody, `${at}: request body`));
        }
      }
      const status = String(exchange.status);
      const response = operation.responses[status] ?? operation.responses.default;
      if (!response) return [...problems, `${at}: status not documented`];
      const responseKey = operation.responses[status] ? status : 'default';
      for (const [header, spec] of Object.entries(response.headers ?? {})) {
        const value = exchange.headers?.[header.toLowerCase()];
        if (spec.required && value === undefined) problems.push(`${at}: no ${header} header`);
        if (value !== undefined) {
          const pointer = ['paths', template, method, 'responses', responseKey, 'headers', header];
          const schema = [...pointer, 'schema'];
          const typed = /^\d+$/.test(String(value)) ? Number(value) : value;
          problems.push(...checkSchema(schema, typed, `${at}: header ${header}`));
        }
      }
      if (!response.content) {
        if (exchange.body !== '') problems.push(`${at}: documented without a body, got one`);
        if (exchange.contentType) problems.push(`${at}: content-type on a bodiless answer`);
        return problems;
      }
      const media = mediaOf(exchange.contentType);
      if (!response.content[media]) {
        return [...problems, `${at}: media type ${media} not documented`];
      }
      const value = media === 'application/json' ? parseJson(exchange.body) : exchange.body;
      const pointer = ['paths', template, method, 'responses', responseKey, 'content', media];
      problems.push(...checkSchema([...pointer, 'schema'], value, `${at}: body`));
      return problems;
    },
  };
}

function mediaOf(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return { unparseable: text.slice(0, 200) };
  }
}

function escapePointer(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}
