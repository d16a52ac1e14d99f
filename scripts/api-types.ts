// Writes web/src/api.gen.ts: the dashboard's API types, generated from the served /openapi.json
// with openapi-typescript and formatted like the rest of the code. `npm run api:types` after a
// change to the API; test/unit/api-types.test.ts fails while the committed file is stale.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import openapiTS, { astToString } from 'openapi-typescript';
import prettier from 'prettier';
import { readServedOpenApiDocument } from './openapi-document.js';

export const API_TYPES_FILE = path.resolve(import.meta.dirname, '../web/src/api.gen.ts');

const HEADER = `// Generated from /openapi.json by \`npm run api:types\` (scripts/api-types.ts): do not edit.\n\n`;

export async function generateApiTypes(): Promise<string> {
  const document = (await readServedOpenApiDocument()) as Parameters<typeof openapiTS>[0];
  const source = HEADER + astToString(await openapiTS(document));
  const options = await prettier.resolveConfig(API_TYPES_FILE);
  return prettier.format(source, { ...options, filepath: API_TYPES_FILE });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  writeFileSync(API_TYPES_FILE, await generateApiTypes());
  console.log(`wrote ${path.relative(process.cwd(), API_TYPES_FILE)}`);
}
