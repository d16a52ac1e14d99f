// The tools chat adds to cronjob for a tenant: skill (when it has skills) and http_request (when
// it has an allow-list), with the same bounds, secret substitution and redaction as in runs.
// Chat turns have no run to keep an audit with; their calls are counted in the metrics.
import { withTenant, type Pool } from '../db/pool.js';
import type { Redactor } from '../secrets/redact.js';
import type { SecretsVault } from '../secrets/vault.js';
import type { SkillLibrary } from '../skills/library.js';
import { selectAgentSettings } from './agent-settings.js';
import type { AgentTool } from './tool.js';
import type { ToolMetrics } from './tool-metrics.js';
import { auditTools } from './tools/audit.js';
import { createHttpRequestTool, type HttpSender } from './tools/http-request.js';
import { createSkillTool, describeSkills } from './tools/skill.js';

export interface ChatToolDeps {
  pool: Pool;
  vault: SecretsVault;
  skills?: SkillLibrary | undefined;
  sendHttp?: HttpSender | undefined;
  allowPrivateNetworks: boolean;
  toolMetrics?: ToolMetrics | undefined;
}

export interface ChatToolkit {
  tools: AgentTool[];
  /** Added to the system message (the skills listing), or null. */
  system: string | null;
  redactor: Redactor;
}

export async function loadChatTools(deps: ChatToolDeps, tenantId: string): Promise<ChatToolkit> {
  const [redactor, settings, listed] = await Promise.all([
    deps.vault.redactor(tenantId),
    withTenant(deps.pool, tenantId, (client) => selectAgentSettings(client, tenantId)),
    deps.skills ? deps.skills.list(tenantId) : Promise.resolve([]),
  ]);
  const tools: AgentTool[] = [];
  let system: string | null = null;
  if (deps.skills && listed.length > 0) {
    tools.push(createSkillTool(deps.skills, listed));
    system = redactor.text(describeSkills(listed));
  }
  if (deps.sendHttp && settings.http_allowed_hosts.length > 0) {
    const scope = {
      allowedHosts: settings.http_allowed_hosts,
      redactor,
      used: { calls: 0, responseBytes: 0 },
    };
    const http = {
      send: deps.sendHttp,
      vault: deps.vault,
      allowPrivateNetworks: deps.allowPrivateNetworks,
    };
    tools.push(createHttpRequestTool(http, scope));
  }
  return { tools: auditTools(tools, { redactor, metrics: deps.toolMetrics }), system, redactor };
}
