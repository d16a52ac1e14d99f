// Who may do what inside a tenant: the scopes an API key carries and the roles a signed-in user
// holds, which map to the same scopes so that one check (src/http/permissions.ts) serves both.
// The names are public (API keys' `scopes`, 403 `insufficient_scope` messages, the OpenAPI
// document, docs/security.md's table).

/** Every scope, one doc comment each: what a request needs it for. */
export const SCOPES = [
  /** Read jobs, their runs' summaries, previews, skills and agent settings. */
  'jobs:read',
  /** Create, change, pause and delete jobs; write skills. */
  'jobs:write',
  /** Read runs, their results, attempts, tool calls and deliveries. */
  'runs:read',
  /** Trigger, cancel, retry and backfill runs; redeliver. */
  'runs:write',
  /** Chat with the agent (its tools need their own scopes as well). */
  'chat',
  /** List the tenant's secret names (values are never readable). */
  'secrets:read',
  /** Set and delete secrets. */
  'secrets:write',
  /** Read webhook endpoints, notification channels, MCP servers and their deliveries. */
  'integrations:read',
  /** Create, change, test and delete webhook endpoints, notification channels and MCP servers. */
  'integrations:write',
  /** Read tokens, cost and budgets. */
  'usage:read',
  /** Set the tenant's own budgets (within what the operator allows). */
  'budgets:write',
  /** Create, list and revoke the tenant's API keys; invite and remove members. */
  'access:manage',
  /** Read the audit log. */
  'audit:read',
] as const;
export type Scope = (typeof SCOPES)[number];

/** A user's role in a tenant, weakest first. */
export const ROLES = ['viewer', 'member', 'admin', 'owner'] as const;
export type Role = (typeof ROLES)[number];

const VIEWER: readonly Scope[] = [
  'jobs:read',
  'runs:read',
  'secrets:read',
  'integrations:read',
  'usage:read',
];
const MEMBER: readonly Scope[] = [...VIEWER, 'jobs:write', 'runs:write', 'chat'];
const ADMIN: readonly Scope[] = [
  ...MEMBER,
  'secrets:write',
  'integrations:write',
  'access:manage',
  'audit:read',
];
// An owner also sets the tenant's budgets.
const OWNER: readonly Scope[] = [...ADMIN, 'budgets:write'];

/** The scopes each role grants: viewer reads; member edits and runs; admin also manages access. */
export const ROLE_SCOPES: Readonly<Record<Role, readonly Scope[]>> = {
  viewer: VIEWER,
  member: MEMBER,
  admin: ADMIN,
  owner: OWNER,
};

/** Whether a grant holds the scope a request needs. */
export function grants(granted: readonly Scope[], needed: Scope): boolean {
  return granted.includes(needed);
}
