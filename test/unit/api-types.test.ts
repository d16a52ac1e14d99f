// The dashboard's API types (web/src/api.gen.ts) are what `npm run api:types` generates from the
// served /openapi.json now: a change to the API that leaves them stale fails here.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_TYPES_FILE, generateApiTypes } from '../../scripts/api-types.js';

describe('web/src/api.gen.ts', () => {
  it('is what npm run api:types generates from /openapi.json', async () => {
    const committed = readFileSync(API_TYPES_FILE, 'utf8');
    const generated = await generateApiTypes();
    expect(generated, 'run `npm run api:types` and commit web/src/api.gen.ts').toBe(committed);
  });
});
