import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { assertServerVersion, MigrationError } from '../../src/db/migrate.js';

// The server's answer is the boundary here: a PostgreSQL 15 is not something the suite starts.
const serverAnswering = (v: string, text: string) =>
  ({ query: async () => ({ rows: [{ v, text }] }) }) as unknown as pg.ClientBase;

describe('PostgreSQL version check', () => {
  it('refuses a server older than 16 with a clear message', async () => {
    await expect(assertServerVersion(serverAnswering('150019', '15.19'))).rejects.toThrow(
      new MigrationError('PostgreSQL 15.19 is too old: HermesX needs PostgreSQL 16 or newer'),
    );
  });

  it('accepts 16 and newer', async () => {
    await expect(assertServerVersion(serverAnswering('160004', '16.4'))).resolves.toBeUndefined();
    await expect(assertServerVersion(serverAnswering('180000', '18.0'))).resolves.toBeUndefined();
  });
});
