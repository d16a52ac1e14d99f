// The migrations give exactly the schema in test/schema.sql: a change to one without the other
// (or drift in a migration already applied) fails here. `npm run schema:dump` rewrites the file.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, withOwner } from '../helpers/database.js';
import { dumpSchema } from '../helpers/schema-dump.js';

describe('schema in force', () => {
  it('is what test/schema.sql says', async () => {
    const url = await createTestDatabase();
    const actual = await withOwner(url, (client) => dumpSchema(client));
    const expected = readFileSync(path.resolve(import.meta.dirname, '../schema.sql'), 'utf8');
    expect(actual, 'the migrations changed the schema: run `npm run schema:dump`').toBe(expected);
  });
});
