// Generates TypeScript types from the served /openapi.json with openapi-typescript and compiles the
// typed openapi-fetch tour of test/client/tour.ts against them: what a client team would do.
import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import openapiTS, { astToString } from 'openapi-typescript';
import { describe, expect, it } from 'vitest';
import { readServedOpenApiDocument } from '../../scripts/openapi-document.js';
import { REPO_ROOT } from '../helpers/process-cli.js';

const OUT_DIR = path.join(REPO_ROOT, 'test-results/openapi-client');
const TSC = path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc');

describe('a typed client generated from /openapi.json', () => {
  it('has named schemas and operations, and the client tour compiles against it', async () => {
    const document = (await readServedOpenApiDocument()) as Parameters<typeof openapiTS>[0];
    const source = astToString(await openapiTS(document));
    mkdirSync(OUT_DIR, { recursive: true });
    writeFileSync(path.join(OUT_DIR, 'hermesx.d.ts'), source);

    for (const name of ['CronJob', 'Run', 'Tenant', 'ApiKey', 'Error']) {
      expect(source).toMatch(new RegExp(`^\\s+${name}: \\{`, 'm'));
    }
    expect(source).toMatch(/^\s+createCronJob: \{/m);
    expect(source).not.toMatch(/export type operations = Record<string, never>/);

    const compiled = await promisify(execFile)(
      process.execPath,
      [TSC, '-p', path.join(REPO_ROOT, 'test/client/tsconfig.json')],
      { cwd: REPO_ROOT },
    ).then(
      () => ({ ok: true, output: '' }),
      (err: { stdout?: string }) => ({ ok: false, output: err.stdout ?? String(err) }),
    );
    expect(compiled.output).toBe('');
    expect(compiled.ok).toBe(true);
  });
});
