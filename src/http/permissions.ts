// The one permission check: every tenant route names the scope it needs (`config.scope`,
// src/domain/scopes.ts) and this step, after authentication, refuses a principal that lacks it.
// API keys and (later) users' roles both arrive as a Principal's scopes; the admin token passes
// everything. The chat agent's tools ask `missingScope` with the same scopes.
import type { FastifyInstance } from 'fastify';
import { grants, type Scope } from '../domain/scopes.js';
import type { Access, Principal } from './auth.js';
import { ApiError } from './errors.js';

/** One route as the permission check sees it (the scope table of docs/security.md). */
export interface RouteAccess {
  method: string;
  url: string;
  access: Access;
  scope: Scope | undefined;
  hidden: boolean;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Every route with its access and scope, in registration order. */
    routeAccess: RouteAccess[];
  }
}

/** The message of a 403 insufficient_scope, the same over REST and in the agent's tools. */
export function insufficientScopeMessage(scope: Scope): string {
  return `this request needs the scope ${scope}`;
}

/** The scope a principal lacks for this need, or null when it may (the admin may everything). */
export function missingScope(principal: Principal, needed: Scope | undefined): Scope | null {
  if (!needed || principal.kind === 'admin') return null;
  return grants(principal.scopes, needed) ? null : needed;
}

/**
 * Registers the check (an onRequest step: the auth step, registered before it, has set the
 * principal) and records every route's access; a route's declared scope is also written into its
 * OpenAPI operation (`x-required-scope`, and a sentence of its description).
 */
export function registerPermissions(app: FastifyInstance): void {
  const routes: RouteAccess[] = [];
  app.decorate('routeAccess', routes);
  app.addHook('onRoute', (route) => {
    const scope = route.config?.scope;
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const schema = route.schema as Record<string, unknown> | undefined;
    for (const method of methods) {
      if (method === 'HEAD' || method === 'OPTIONS') continue;
      routes.push({
        method,
        url: route.url,
        access: route.config?.access ?? 'admin',
        scope,
        hidden: schema?.hide === true,
      });
    }
    // An extension, not `security: [{bearer: [scope]}]`: linters hold scope lists to OAuth
    // schemes. The description says it for people reading the reference.
    if (scope && schema) {
      schema['x-required-scope'] = scope;
      const description = typeof schema.description === 'string' ? `${schema.description} ` : '';
      schema.description = `${description}Needs the scope \`${scope}\`.`;
    }
  });
  app.addHook('onRequest', async (request) => {
    const principal = request.principal;
    if (!principal) return;
    const lacking = missingScope(principal, request.routeOptions.config?.scope);
    if (lacking) throw new ApiError(403, 'insufficient_scope', insufficientScopeMessage(lacking));
  });
}
