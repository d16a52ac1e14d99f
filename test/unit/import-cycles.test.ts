// No import cycles in src/: a module's dependencies can be read without coming back to it. And
// the scheduler's core (src/scheduler/) imports no adapter: PostgreSQL, Redis and HTTP reach it
// only through the ports it is given (src/main.ts wires them).
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = path.resolve(import.meta.dirname, '../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports (type-only ones included: they still tie the modules together). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found = [...text.matchAll(/from '(\.{1,2}\/[^']+)\.js'/g)].map((m) => m[1] as string);
  return found.map((spec) => path.resolve(path.dirname(file), `${spec}.ts`));
}

function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'visiting') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'visiting');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const cycle = visit(next);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of graph.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

describe('module graph', () => {
  it('has no import cycle in src/', () => {
    const graph = new Map(sourceFiles(SRC).map((file) => [file, importsOf(file)]));
    const cycle = findCycle(graph)?.map((file) => path.relative(SRC, file));
    expect(cycle ?? null).toBeNull();
  });

  it('has no cycle between folders of src/ (a file at the top counts as a folder of its own)', () => {
    const unitOf = (file: string) => path.relative(SRC, file).split(path.sep)[0] as string;
    const graph = new Map<string, string[]>();
    for (const file of sourceFiles(SRC)) {
      const from = unitOf(file);
      const deps = graph.get(from) ?? [];
      for (const dep of importsOf(file).map(unitOf)) if (dep !== from) deps.push(dep);
      graph.set(from, deps);
    }
    expect(findCycle(graph) ?? null).toBeNull();
  });

  it('keeps the adapters out of the scheduler core', () => {
    const adapters = ['db', 'redis', 'http', 'storage', 'agent'].map(
      (dir) => path.join(SRC, dir) + path.sep,
    );
    const drivers = ['pg', 'ioredis', 'fastify'];
    const files = sourceFiles(path.join(SRC, 'scheduler'));
    expect(files.length).toBeGreaterThan(10);
    const crossings = files.flatMap((file) => {
      const relative = importsOf(file).filter((dep) => adapters.some((dir) => dep.startsWith(dir)));
      const bare = [...readFileSync(file, 'utf8').matchAll(/from '([^.][^']*)'/g)]
        .map((m) => m[1] as string)
        .filter((spec) => drivers.some((d) => spec === d || spec.startsWith(`${d}/`)));
      return [...relative.map((dep) => path.relative(SRC, dep)), ...bare].map(
        (dep) => `${path.relative(SRC, file)} -> ${dep}`,
      );
    });
    expect(crossings).toEqual([]);
  });
});
