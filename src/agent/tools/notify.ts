// The notify tool, offered in scheduled runs: the agent asks for a message to the job's channels
// whose rule is `agent` (docs/channels.md). Nothing is sent from here: the call is kept in the
// run's tool-call audit (cron_run_tool_calls, its arguments redacted of secret values), and the
// SQL that records the run queues the message from it, in the same transaction (the outbox). So a
// run that fails or is never recorded sends nothing, and a retried attempt sends once.
import { z } from 'zod';
import type { AgentTool } from '../tool.js';

const Args = z.object({
  message: z.string().trim().min(1).max(4000),
  severity: z.enum(['info', 'warning', 'critical']).optional(),
});

export function createNotifyTool(): AgentTool {
  return {
    definition: {
      type: 'function',
      function: {
        name: 'notify',
        description:
          "Tell the people watching this job something worth their attention: the message goes to the job's notification channels whose rule is `agent` once the run ends successfully (the last call wins). Without a call, the final answer is sent unless it starts with [SILENT]; answer [SILENT] when there is nothing new.",
        parameters: {
          type: 'object',
          properties: {
            message: { type: 'string', description: 'Markdown, at most 4,000 characters' },
            severity: {
              type: 'string',
              enum: ['info', 'warning', 'critical'],
              description: 'default info',
            },
          },
          required: ['message'],
        },
      },
    },
    async run(raw) {
      const parsed = Args.safeParse(raw ?? {});
      if (!parsed.success) {
        return JSON.stringify({
          ok: false,
          error: {
            code: 'invalid_arguments',
            message:
              'expected {"message": "<1 to 4000 characters>", "severity": "info|warning|critical"}',
          },
        });
      }
      return JSON.stringify({
        ok: true,
        queued: 'the message is sent when this run ends successfully',
        severity: parsed.data.severity ?? 'info',
      });
    },
  };
}
