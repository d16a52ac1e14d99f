import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { createToolMetrics } from '../../src/agent/tool-metrics.js';
import { AGENT_TOOLS, createTools, TOOL_NAMES } from '../../src/agent/tools/index.js';
import { createPool } from '../../src/db/pool.js';
import { createFullToolScope } from '../helpers/agent-tool-scope.js';
import { silentLogger } from '../helpers/log.js';

// Making tools never connects: the pool is only handed to the cronjob tool.
const pool = createPool('postgres://nobody@127.0.0.1:1/none', silentLogger(), { max: 1 });
const TENANT = '00000000-0000-0000-0000-000000000001';
const sideEffectsOf = (name: string) =>
  AGENT_TOOLS.find((entry) => entry.name === name)!.sideEffects;

describe('the tool registry', () => {
  it('names each tool once, as its definition does, in every place it is offered', () => {
    expect(new Set(TOOL_NAMES).size).toBe(AGENT_TOOLS.length);
    for (const place of ['chat', 'run'] as const) {
      const made = createTools(createFullToolScope(place, pool, TENANT));
      const offered = AGENT_TOOLS.filter((entry) => entry.offered.includes(place));
      expect(made.map((tool) => tool.definition.function.name)).toEqual(
        offered.map((entry) => entry.name),
      );
      for (const tool of made) {
        const entry = AGENT_TOOLS.find((row) => row.name === tool.definition.function.name)!;
        expect(tool.sideEffects).toBe(entry.sideEffects);
      }
    }
  });

  it('gives a run its own job only, and chat the tenant’s jobs', () => {
    const actionsIn = (place: 'chat' | 'run') => {
      const cronjob = createTools(createFullToolScope(place, pool, TENANT)).find(
        (tool) => tool.definition.function.name === 'cronjob',
      )!;
      const parameters = cronjob.definition.function.parameters as {
        properties: { action: { enum: string[] } };
      };
      return parameters.properties.action.enum;
    };
    expect(actionsIn('run')).toEqual(['get', 'list_runs', 'pause']);
    expect(actionsIn('chat')).toContain('create');
  });

  it('offers skill and http_request only when the tenant has what they need', () => {
    const bare = {
      ...createFullToolScope('run', pool, TENANT),
      listedSkills: [],
      httpAllowedHosts: [],
    };
    const names = createTools(bare).map((tool) => tool.definition.function.name);
    expect(names).not.toContain('skill');
    expect(names).not.toContain('http_request');
    expect(names).toContain('cronjob');
  });

  it('says which calls change something outside', () => {
    const http = sideEffectsOf('http_request');
    for (const method of ['GET', 'HEAD', 'OPTIONS', 'get'])
      expect(http({ method, url: 'https://a.example' }), method).toBe(false);
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'post'])
      expect(http({ method, url: 'https://a.example' }), method).toBe(true);
    // No method: refused before anything is sent.
    expect(http({ url: 'https://a.example' })).toBe(false);

    const cronjob = sideEffectsOf('cronjob');
    for (const action of ['list', 'get', 'list_runs', 'list_webhooks'])
      expect(cronjob({ action }), action).toBe(false);
    for (const action of [
      'create',
      'update',
      'delete',
      'enable',
      'disable',
      'run_now',
      'attach_webhook',
      'pause',
    ])
      expect(cronjob({ action }), action).toBe(true);
    // Arguments it cannot read count as a write: the safe side.
    expect(cronjob({})).toBe(true);
    expect(cronjob('list')).toBe(true);

    expect(sideEffectsOf('skill')({ name: 'daily-summary' })).toBe(false);
  });

  it('bounds the metric labels: one per registered tool, `mcp` and `unknown`', async () => {
    const registry = new Registry();
    const metrics = createToolMetrics(registry);
    metrics.observe('made_up_by_the_model', 'error', 1);
    metrics.observe('another_one', 'error', 1);
    metrics.observe('crm__lookup', 'ok', 1);
    const text = await registry.metrics();
    const tools = new Set(
      [...text.matchAll(/hermesx_agent_tool_calls_total\{tool="([^"]+)"/g)].map((m) => m[1]),
    );
    expect(tools).toEqual(new Set([...TOOL_NAMES, 'mcp', 'unknown']));
  });
});
