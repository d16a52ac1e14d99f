import { Counter, Histogram, type Registry } from 'prom-client';
import { TOOL_NAMES } from './tools/index.js';

/** hermesx_agent_tool_calls_total{tool,outcome} and the duration of each tool's calls. */
export interface ToolMetrics {
  observe(tool: string, outcome: ToolOutcome, durationMs: number): void;
}

export type ToolOutcome = 'ok' | 'error' | 'refused' | 'limit';

const OUTCOMES: readonly ToolOutcome[] = ['ok', 'error', 'refused', 'limit'];

export function createToolMetrics(registry: Registry): ToolMetrics {
  const calls = new Counter({
    name: 'hermesx_agent_tool_calls_total',
    help: 'Tool calls of the agent (chat and scheduled runs), by tool and outcome',
    labelNames: ['tool', 'outcome'],
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'hermesx_agent_tool_call_duration_seconds',
    help: 'Time one tool call took, by tool',
    labelNames: ['tool'],
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 5, 15],
    registers: [registry],
  });
  // One label value per registered tool, one for every MCP tool (`<server>__<tool>`, the
  // tenants' own) and one for the rest: the series stay bounded.
  for (const tool of [...TOOL_NAMES, 'mcp']) {
    for (const outcome of OUTCOMES) calls.inc({ tool, outcome }, 0);
  }
  return {
    observe(tool, outcome, durationMs) {
      // Unknown names come from the model: one label value for all of them.
      const name = TOOL_NAMES.includes(tool) ? tool : tool.includes('__') ? 'mcp' : 'unknown';
      calls.inc({ tool: name, outcome });
      duration.observe({ tool: name }, durationMs / 1000);
    },
  };
}
