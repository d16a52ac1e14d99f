// The tools of a tenant's chat turn: those the registry (tools/index.ts) offers in chat, with the
// same bounds, secret substitution and redaction as in runs. Chat turns have no run to keep an
// audit with; their calls are counted in the metrics.
import { withTenant } from '../db/pool.js';
import type { TriggerDeps } from '../jobs/commands.js';
import type { Redactor } from '../secrets/redact.js';
import type { SecretsVault } from '../secrets/vault.js';
import type { SkillLibrary } from '../skills/library.js';
import { selectAgentSettings } from './agent-settings.js';
import { loadChatMcpOffers, type McpToolkitDeps } from './mcp-offers.js';
import type { AgentTool, ToolAccess } from './tool.js';
import type { ToolMetrics } from './tool-metrics.js';
import { auditTools } from './tools/audit.js';
import type { HttpSender } from './tools/http-request.js';
import { createTools } from './tools/index.js';
import { describeSkills } from './tools/skill.js';

export interface ChatToolDeps {
  /** The job commands behind the cronjob tool (the REST API's). */
  jobs: TriggerDeps;
  vault: SecretsVault;
  skills?: SkillLibrary | undefined;
  sendHttp?: HttpSender | undefined;
  allowPrivateNetworks: boolean;
  toolMetrics?: ToolMetrics | undefined;
  /** The tenants' MCP servers (src/mcp); absent: no MCP tools. */
  mcp?: McpToolkitDeps | undefined;
}

export interface ChatToolkit {
  tools: AgentTool[];
  /** Added to the system message (the skills listing), or null. */
  system: string | null;
  redactor: Redactor;
  /** The tenant's default model list (the admin's; empty: the server's model alone). */
  defaultModels: string[];
}

/** The tenant's tools for one turn; `access` (the caller's scopes and audit) bounds the cronjob tool. */
export async function loadChatTools(
  deps: ChatToolDeps,
  tenantId: string,
  access?: ToolAccess,
): Promise<ChatToolkit> {
  const [redactor, settings, listed] = await Promise.all([
    deps.vault.redactor(tenantId),
    withTenant(deps.jobs.pool, tenantId, (client) => selectAgentSettings(client, tenantId)),
    deps.skills ? deps.skills.list(tenantId) : Promise.resolve([]),
  ]);
  const mcp =
    deps.mcp &&
    (await loadChatMcpOffers(deps.mcp, deps.jobs.pool, tenantId, settings.http_allowed_hosts));
  const tools = createTools({
    place: 'chat',
    tenantId,
    redactor,
    vault: deps.vault,
    now: deps.jobs.now,
    sendHttp: deps.sendHttp,
    allowPrivateNetworks: deps.allowPrivateNetworks,
    httpAllowedHosts: settings.http_allowed_hosts,
    skills: deps.skills,
    listedSkills: listed,
    jobs: deps.jobs,
    access,
    mcp,
  });
  const parts = [
    deps.skills && listed.length > 0 ? describeSkills(listed) : null,
    mcp?.note ?? null,
  ].filter((part): part is string => part !== null);
  const system = parts.length > 0 ? redactor.text(parts.join('\n\n')) : null;
  return {
    tools: auditTools(tools, { redactor, metrics: deps.toolMetrics }),
    system,
    redactor,
    defaultModels: settings.default_models,
  };
}
