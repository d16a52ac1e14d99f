// The agent's tools, one row each: its name, where it is offered (chat, scheduled runs), how it is
// made for one chat turn or run, and whether a call with given arguments may change anything
// outside the run. Chat and runs assemble their tools from these rows, the metrics take their
// label values from the names, and every audited call of a run is written with the answer of
// sideEffects, which is all the retry decision in SQL reads (migration 325).
//
// Adding a tool: a file under src/agent/tools/ that makes it, and one row below.
import type { TriggerDeps, CommandDeps } from '../../jobs/commands.js';
import type { Redactor } from '../../secrets/redact.js';
import type { SecretsVault } from '../../secrets/vault.js';
import type { SkillLibrary, SkillSummary } from '../../skills/library.js';
import type { AgentTool, ToolAccess } from '../tool.js';
import { createClockTool } from './clock.js';
import { createCronjobTool } from './cronjob.js';
import { createHttpRequestTool, hasHttpSideEffects, type HttpSender } from './http-request.js';
import { createNotifyTool } from './notify.js';
import { createMcpTool, type McpToolOffer } from './mcp.js';
import type { McpSessionDeps } from '../../mcp/session.js';
import { createRunCronjobTool } from './run-cronjob.js';
import { createSkillTool } from './skill.js';

export type ToolPlace = 'chat' | 'run';

/** What a tool may be made with, for one chat turn or one run of one tenant. */
interface CommonToolScope {
  tenantId: string;
  /** The tenant's secrets, as the redactor of their values. */
  redactor: Redactor;
  vault: SecretsVault;
  now: () => Date;
  /** src/outbound's sendOutbound; absent: no http_request. */
  sendHttp?: HttpSender | undefined;
  allowPrivateNetworks: boolean;
  httpAllowedHosts: readonly string[];
  /** Absent without an object store. */
  skills?: SkillLibrary | undefined;
  listedSkills: readonly SkillSummary[];
  /** The tenant's MCP tools discovered for this turn or run (src/agent/mcp-offers.ts). */
  mcp?: { offers: readonly McpToolOffer[]; session: McpSessionDeps } | undefined;
}

export interface ChatToolScope extends CommonToolScope {
  place: 'chat';
  /** The job commands of the tenant's cronjob tool. */
  jobs: TriggerDeps;
  /** The chatting principal's scopes and audit; absent: every scope, nothing audited (tests). */
  access?: ToolAccess | undefined;
}

export interface RunToolScope extends CommonToolScope {
  place: 'run';
  jobs: CommandDeps;
  /** The job this run is an occurrence of, and the occurrence's nominal time. */
  job: { id: string; timezone: string; scheduledAt: Date };
  /** A rule in force for the job is `agent` (its own, or the tenant's defaults): notify is offered. */
  notifyAgent: boolean;
  /**
   * The Idempotency-Key of the call at this position of the attempt (ToolContext.position): the
   * same in every attempt of the occurrence (src/agent/idempotency-key.ts). http_request sends
   * it with every request with side effects; other tools may put it where their protocol
   * carries one (an MCP request's `_meta`).
   */
  idempotencyKey(position: number): string;
}

export type ToolScope = ChatToolScope | RunToolScope;

export interface ToolEntry {
  /** The name the model calls it by (its definition's), and the metrics' label value. */
  name: string;
  offered: readonly ToolPlace[];
  /** The tool for this turn or run, or null when the tenant lacks what it needs. */
  create(scope: ToolScope): AgentTool | null;
  /**
   * Whether a call with these arguments may change anything outside the run (a POST, a job
   * paused): a failed attempt with such a call is not retried unless its job allows it. Arguments
   * are the model's, unchecked: anything it cannot read counts as what the tool would do with it.
   */
  sideEffects(args: unknown): boolean;
}

const changesNothing = () => false;

/** cronjob's actions that only read; every other one (create, pause, run_now...) writes. */
const CRONJOB_READS = new Set(['list', 'get', 'list_runs', 'list_webhooks']);

export const AGENT_TOOLS: readonly ToolEntry[] = [
  {
    // A run gets its own job only: a scheduled prompt must not create or change jobs.
    name: 'cronjob',
    offered: ['chat', 'run'],
    create: (scope) =>
      scope.place === 'chat'
        ? createCronjobTool(scope.jobs, scope.access)
        : createRunCronjobTool(scope.jobs, scope.job.id),
    sideEffects: (args) => !CRONJOB_READS.has(String(fieldOf(args, 'action') ?? '')),
  },
  {
    name: 'skill',
    offered: ['chat', 'run'],
    create: (scope) =>
      scope.skills && scope.listedSkills.length > 0
        ? createSkillTool(scope.skills, scope.listedSkills)
        : null,
    sideEffects: changesNothing,
  },
  {
    name: 'http_request',
    offered: ['chat', 'run'],
    create: (scope) =>
      scope.sendHttp && scope.httpAllowedHosts.length > 0
        ? createHttpRequestTool(
            {
              send: scope.sendHttp,
              vault: scope.vault,
              allowPrivateNetworks: scope.allowPrivateNetworks,
            },
            {
              allowedHosts: scope.httpAllowedHosts,
              redactor: scope.redactor,
              used: { calls: 0, responseBytes: 0 },
              // A chat turn is no occurrence and is not retried by the server: no key.
              idempotencyKey: scope.place === 'run' ? scope.idempotencyKey : undefined,
            },
          )
        : null,
    sideEffects: hasHttpSideEffects,
  },
  {
    name: 'clock',
    offered: ['chat', 'run'],
    create: (scope) =>
      createClockTool(
        scope.place === 'run'
          ? { now: scope.now, timezone: scope.job.timezone, occurrence: scope.job.scheduledAt }
          : { now: scope.now, timezone: 'UTC' },
      ),
    sideEffects: changesNothing,
  },
  {
    // Only asks: the message is queued with the run's record (docs/channels.md), so a retried
    // attempt cannot send it twice. Offered only where an `agent` rule would send it.
    name: 'notify',
    offered: ['run'],
    create: (scope) => (scope.place === 'run' && scope.notifyAgent ? createNotifyTool() : null),
    sideEffects: changesNothing,
  },
];

export const TOOL_NAMES: readonly string[] = AGENT_TOOLS.map((entry) => entry.name);

/** The tools offered in the scope's place, each carrying its row's sideEffects. */
export function createTools(scope: ToolScope): AgentTool[] {
  const tools: AgentTool[] = [];
  for (const entry of AGENT_TOOLS) {
    if (!entry.offered.includes(scope.place)) continue;
    const tool = entry.create(scope);
    if (tool) tools.push({ ...tool, sideEffects: entry.sideEffects });
  }
  // MCP tools are the tenant's own, discovered before the scope was made: one tool per offer,
  // `<server>__<tool>`, with side effects unless the server marks the tool readOnlyHint.
  if (scope.mcp && scope.mcp.offers.length > 0) {
    const shared = {
      session: scope.mcp.session,
      allowedHosts: scope.httpAllowedHosts,
      redactor: scope.redactor,
      used: { calls: 0, responseBytes: 0 },
      idempotencyKey: scope.place === 'run' ? scope.idempotencyKey : undefined,
    };
    for (const offer of scope.mcp.offers) tools.push(createMcpTool(offer, shared));
  }
  return tools;
}

function fieldOf(args: unknown, key: string): unknown {
  return args !== null && typeof args === 'object' && !Array.isArray(args)
    ? (args as Record<string, unknown>)[key]
    : undefined;
}
