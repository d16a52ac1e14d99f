import type { FastifyInstance } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  MAX_SKILL_BYTES,
  MAX_SKILLS_PER_TENANT,
  SkillError,
  type SkillLibrary,
} from '../../skills/library.js';
import { tenantOf } from '../auth.js';
import { ApiError } from '../errors.js';
import { AUTHENTICATED, BEARER, NoQuery, WITH_BODY, errorResponses } from '../responses.js';
import { NoContent } from '../schemas.js';

const tags = ['skills'];
const security = BEARER;
const timestamp = z.string().meta({ format: 'date-time', description: 'RFC 3339 timestamp (UTC)' });

const SkillSummary = z
  .object({
    name: z.string(),
    description: z.string(),
    size_bytes: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'SkillSummary' });
const SkillList = z.object({ data: z.array(SkillSummary) }).meta({ id: 'SkillList' });
const SkillDetail = SkillSummary.extend({
  content: z.string().describe('the whole SKILL.md document'),
}).meta({ id: 'Skill' });
const SkillParams = z.object({
  name: z.string().max(64).describe('lower-case letters, digits and hyphens, e.g. daily-summary'),
});
const SkillBody = z
  .union([
    z.string().describe('the SKILL.md document (Content-Type: text/markdown)'),
    z.strictObject({ content: z.string().describe('the SKILL.md document') }),
  ])
  .meta({ id: 'SkillPut' });

const EXAMPLE = `---
name: daily-summary
description: How to write the team's daily summary and where to post it.
---
# Daily summary
1. ...`;

/**
 * The tenant's skills (SKILL.md documents), kept in the object store. Without one configured the
 * routes answer 503 skills_unavailable.
 */
export function registerSkillRoutes(
  app: FastifyInstance,
  deps: { skills: SkillLibrary | undefined },
): void {
  const r = app.withTypeProvider<ZodTypeProvider>();
  // SKILL.md documents come as they are; the API otherwise takes JSON only.
  app.addContentTypeParser(
    ['text/markdown', 'text/x-markdown'],
    { parseAs: 'string' },
    (_request, body, done) => done(null, body),
  );
  const library = (): SkillLibrary => {
    if (!deps.skills) {
      throw new ApiError(
        503,
        'skills_unavailable',
        'skills need an object store, and none is configured',
      );
    }
    return deps.skills;
  };

  r.put(
    '/v1/skills/:name',
    {
      config: {
        access: 'tenant',
        scope: 'jobs:write',
        audit: { action: 'skill.put', target: 'skill' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Store a skill',
        description: `Creates or replaces a skill. The body is a SKILL.md document (YAML front matter with name and description, then Markdown), sent as text/markdown or as JSON {"content": "..."}; the front matter's name must be the path's. At most ${MAX_SKILL_BYTES / 1024} KB each and ${MAX_SKILLS_PER_TENANT} per tenant. Example:\n\n${EXAMPLE}`,
        operationId: 'putSkill',
        params: SkillParams,
        querystring: NoQuery,
        body: SkillBody,
        response: {
          200: SkillSummary,
          201: SkillSummary,
          ...errorResponses(...AUTHENTICATED, ...WITH_BODY, 409, 503),
        },
      },
    },
    async (request, reply) => {
      const text = typeof request.body === 'string' ? request.body : request.body.content;
      const { skill, created } = await translate(() =>
        library().put(tenantOf(request), request.params.name, text),
      );
      return reply.code(created ? 201 : 200).send(skill);
    },
  );

  r.get(
    '/v1/skills',
    {
      config: { access: 'tenant', scope: 'jobs:read' } as const,
      schema: {
        tags,
        security,
        summary: 'List skills',
        description: 'Name, description, size and dates of each skill, by name.',
        operationId: 'listSkills',
        querystring: NoQuery,
        response: { 200: SkillList, ...errorResponses(...AUTHENTICATED, 503) },
      },
    },
    async (request) => ({ data: await translate(() => library().list(tenantOf(request))) }),
  );

  r.get(
    '/v1/skills/:name',
    {
      config: { access: 'tenant', scope: 'jobs:read' } as const,
      schema: {
        tags,
        security,
        summary: 'Get a skill',
        description: 'The skill and its whole document.',
        operationId: 'getSkill',
        params: SkillParams,
        querystring: NoQuery,
        response: { 200: SkillDetail, ...errorResponses(...AUTHENTICATED, 404, 503) },
      },
    },
    async (request) => {
      const { name } = request.params;
      const found = await translate(() => library().get(tenantOf(request), name));
      if (!found) throw new ApiError(404, 'not_found', `no skill named ${name}`);
      return { ...found.skill, content: found.content };
    },
  );

  r.delete(
    '/v1/skills/:name',
    {
      config: {
        access: 'tenant',
        scope: 'jobs:write',
        audit: { action: 'skill.delete', target: 'skill' },
      } as const,
      schema: {
        tags,
        security,
        summary: 'Delete a skill',
        description: 'Jobs that preload it are told it is missing at their next run.',
        operationId: 'deleteSkill',
        params: SkillParams,
        querystring: NoQuery,
        response: { 204: NoContent, ...errorResponses(...AUTHENTICATED, 404, 503) },
      },
    },
    async (request, reply) => {
      const { name } = request.params;
      if (!(await translate(() => library().remove(tenantOf(request), name)))) {
        throw new ApiError(404, 'not_found', `no skill named ${name}`);
      }
      return reply.code(204).send();
    },
  );
}

async function translate<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof SkillError) throw new ApiError(err.statusCode, err.code, err.message);
    throw err;
  }
}
