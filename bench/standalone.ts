// The workloads that bring their own PostgreSQL (bench/scale.ts, bench/history.ts), run from
// `npm run bench -- --workloads scale,history` as child processes; each prints one JSON line of
// results, which is returned (and written beside the report when --out is given).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { BenchArgs, StandaloneName } from './args.js';
import { spawnNode, type Child } from './procs.js';

function commandOf(name: StandaloneName, args: BenchArgs): { file: string; argv: string[] } {
  if (name === 'scale') {
    return {
      file: 'bench/scale.ts',
      argv: [
        ...['--jobs', String(args.scaleJobs), '--tenants', '1000', '--per-minute', '1000'],
        ...['--pods', String(args.replicas), '--observe-s', '60'],
        ...['--latency-ms', String(args.latencyMs)],
      ],
    };
  }
  return {
    file: 'bench/history.ts',
    argv: ['--rows', String(args.historyRows), '--jobs', '1000', '--days', '30', '--reads', '500'],
  };
}

/** Runs one standalone workload to its end; its result line, parsed. */
export async function runStandalone(
  name: StandaloneName,
  args: BenchArgs,
  log: (line: string) => void,
): Promise<unknown> {
  const { file, argv } = commandOf(name, args);
  log(`${name}: node --import tsx ${file} ${argv.join(' ')}`);
  let result: unknown;
  const child: Child = spawnNode(name, file, argv, process.env, (line) => {
    if (line.startsWith('{')) result = JSON.parse(line) as unknown;
    else log(`${name}: ${line}`);
  });
  await child.exited;
  const code = child.proc.exitCode;
  if (code !== 0 || result === undefined) throw new Error(`${name} workload failed (exit ${code})`);
  if (args.out) writeFileSync(path.join(args.out, `${name}.json`), JSON.stringify(result, null, 2));
  return result;
}
