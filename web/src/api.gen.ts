// Generated from /openapi.json by `npm run api:types` (scripts/api-types.ts): do not edit.

export interface paths {
  '/metrics': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Prometheus metrics
     * @description Public (restrict it at the network edge). HTTP, scheduler, model-call and Node.js process metrics.
     */
    get: operations['getMetrics'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/live': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Liveness: the process runs
     * @description Public. For a liveness probe; checks nothing else.
     */
    get: operations['getLiveness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/ready': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Readiness: the database answers
     * @description Public. 200 while PostgreSQL answers (status degraded without Redis: scheduling pauses), 503 without it.
     */
    get: operations['getReadiness'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/health/model': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Model server: does it answer GET /models
     * @description Public. 200 when the configured model server (LLM_API_URL) answers GET /models, 503 when it does not (runs would fail with model_unreachable). Checked at most every 10 s; not part of readiness.
     */
    get: operations['getModelHealth'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List tenants
     * @description Admin token only. Deleted tenants are not listed.
     */
    get: operations['listTenants'];
    put?: never;
    /**
     * Create a tenant
     * @description Admin token only. Quotas left out take their defaults.
     */
    post: operations['createTenant'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a tenant
     * @description Admin token only.
     */
    get: operations['getTenant'];
    put?: never;
    post?: never;
    /**
     * Delete a tenant (soft)
     * @description Admin token only. Its keys stop working and its jobs stop firing.
     */
    delete: operations['deleteTenant'];
    options?: never;
    head?: never;
    /**
     * Change a tenant
     * @description Admin token only. Changes only the given fields.
     */
    patch: operations['updateTenant'];
    trace?: never;
  };
  '/v1/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List API keys (without the keys)
     * @description Admin token only. Revoked and expired keys are listed too.
     */
    get: operations['listApiKeys'];
    put?: never;
    /**
     * Create a tenant API key
     * @description Admin token only. The raw key is in this answer only; keep it.
     */
    post: operations['createApiKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke an API key
     * @description Admin token only. The key stops working at once.
     */
    delete: operations['revokeApiKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenant/api-keys': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant’s API keys (without the keys)
     * @description Needs access:manage. Revoked and expired keys are listed too. Needs the scope `access:manage`. Needs the scope `access:manage`.
     */
    get: operations['listTenantApiKeys'];
    put?: never;
    /**
     * Create one of the tenant’s API keys
     * @description Needs access:manage. The key holds the scopes asked for (default: every scope of the caller); asking for a scope the caller lacks answers 403 insufficient_scope. The raw key is in this answer only. Needs the scope `access:manage`.
     */
    post: operations['createTenantApiKey'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenant/api-keys/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Revoke one of the tenant’s API keys
     * @description Needs access:manage. The key stops working at once (the caller’s own too). Needs the scope `access:manage`.
     */
    delete: operations['revokeTenantApiKey'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/options': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /** How the dashboard may sign in */
    get: operations['getSignInOptions'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/login': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Sign in with the OpenID Connect provider
     * @description Redirects (302) to the provider with state, nonce and PKCE, kept in a signed cookie for 10 minutes.
     */
    get: operations['startSignIn'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/callback': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The provider's redirect back
     * @description Checks state, nonce and PKCE, exchanges the code, opens a NEW session (its cookie: HttpOnly, Secure, SameSite=Lax) and redirects (302) to the dashboard; a failure redirects to /sign-in?error=<code>.
     */
    get: operations['finishSignIn'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/me': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Who is signed in
     * @description The session cookie's user, its tenants and role, and the CSRF token.
     */
    get: operations['getSessionMe'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/tenant': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Choose the tenant this session acts for */
    post: operations['chooseSessionTenant'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/auth/logout': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Sign out: ends the session on the server */
    post: operations['signOut'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/members': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List the tenant's members
     * @description Needs the scope `access:manage`. Needs the scope `access:manage`.
     */
    get: operations['listMembers'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/members/{userId}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Remove a member
     * @description Ends the member's sessions on this tenant at once. The last owner stays. Needs the scope `access:manage`.
     */
    delete: operations['removeMember'];
    options?: never;
    head?: never;
    /**
     * Change a member's role
     * @description Granting owner, or changing an owner, needs an owner. The last owner stays. Needs the scope `access:manage`.
     */
    patch: operations['updateMemberRole'];
    trace?: never;
  };
  '/v1/invitations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List open invitations
     * @description Needs the scope `access:manage`. Needs the scope `access:manage`.
     */
    get: operations['listInvitations'];
    put?: never;
    /**
     * Invite someone by email
     * @description The person joins with this role at their next sign-in whose email the provider has verified. Inviting the same address again renews the invitation. Needs the scope `access:manage`.
     */
    post: operations['createInvitation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/invitations/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    post?: never;
    /**
     * Withdraw an open invitation
     * @description Needs the scope `access:manage`.
     */
    delete: operations['deleteInvitation'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants/{id}/invitations': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /** Invite someone to a tenant (the operator's way to its first owner) */
    post: operations['createTenantInvitation'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List cron jobs, newest first
     * @description One page of the tenant’s jobs; follow `next_cursor` for the next. `label=team=ops` keeps jobs with that label, `label=team` jobs with that key; repeated, all must hold. Needs the scope `jobs:read`. Needs the scope `jobs:read`.
     */
    get: operations['listCronJobs'];
    put?: never;
    /**
     * Create a cron job
     * @description Creates a job of the caller's tenant; it fires from its next occurrence on. Needs the scope `jobs:write`.
     */
    post: operations['createCronJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs/preview': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Validate a schedule and list its next fire times
     * @description Nothing is stored: a dry run of the schedule rules. Needs the scope `jobs:read`.
     */
    post: operations['previewSchedule'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a cron job
     * @description The job with its last run outcome and next fire time. Needs the scope `jobs:read`. Needs the scope `jobs:read`.
     */
    get: operations['getCronJob'];
    put?: never;
    post?: never;
    /**
     * Delete a cron job
     * @description Nothing fires afterwards, and a run in progress is stopped (recorded `failed` with `error_kind` `cancelled`). The job leaves every list; its runs stay in `GET /v1/runs` and `GET /v1/runs/{id}`, with the job’s name, until the tenant’s run retention removes them. Needs the scope `jobs:write`.
     */
    delete: operations['deleteCronJob'];
    options?: never;
    head?: never;
    /**
     * Change a cron job
     * @description Changes only the given fields; a new schedule takes effect at once. Pausing or resuming (`enabled` changed) is bounded per job: JOB_TOGGLES_PER_MINUTE (default 6), then 429 `toggle_budget` with Retry-After. Needs the scope `jobs:write`.
     */
    patch: operations['updateCronJob'];
    trace?: never;
  };
  '/v1/cron-jobs/{id}/trigger': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run a cron job once now
     * @description A pod picks the run up within moments; it is recorded like a scheduled one. Needs the scope `runs:write`.
     */
    post: operations['triggerCronJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs/{id}/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A job's runs, newest first
     * @description One page of runs, `status` only when given; follow `next_cursor` for the next. Needs the scope `runs:read`. Needs the scope `runs:read`.
     */
    get: operations['listCronJobRuns'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's runs across jobs, newest first
     * @description Filters combine (all must hold): `status`, `error_kind`, `origin`, `job_id`, `label` (repeatable, as for jobs) and the occurrence time range `from` (inclusive) to `to` (exclusive). Follow `next_cursor` for the next page. Needs the scope `runs:read`. Needs the scope `runs:read`.
     */
    get: operations['listRuns'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/cancel': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Cancel a run in flight
     * @description The pod holding the run stops it within a second (a notification every pod hears); it is recorded `failed` with `error_kind` `cancelled`. A run already finished answers 409 `run_not_active`. Needs the scope `runs:write`.
     */
    post: operations['cancelRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run, whole: its answer, the prompt as sent, the model, usage and attempts
     * @description The run detail. `result` is the whole answer (lists show its first 4,096 characters). `attempt` counts the executions of the occurrence (the earlier ones are in `previous_attempts`); `model_requests` (also `attempts`) the requests the current attempt sent to the model server, which grow, with `attempt_log`, while it retries a throttled call. `timings.start_lag_ms` is how late the first attempt started, `timings.retry_wait_ms` the time spent waiting between attempts. Needs the scope `runs:read`. Needs the scope `runs:read`.
     */
    get: operations['getRun'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs/{id}/backfill': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run the occurrences of a past range that have no run yet
     * @description Each occurrence of the job’s schedule in [`from`, `to`) without a run becomes a queued run (origin `backfill`), run once, oldest first, one at a time, fairly against other tenants. At most 100 per request (`next_from` says where to go on), 1,000 waiting per tenant (429 `backfill_quota`), the tenant’s queued runs at most `MAX_QUEUED_RUNS_PER_TENANT` (429 `queue_full`), and `BACKFILL_RUNS_PER_DAY` occurrences per tenant per UTC day, which deleting the job does not give back (429 `backfill_budget`, `Retry-After` until the day ends). Repeating a request adds nothing: an occurrence with a run is skipped. Needs the scope `runs:write`.
     */
    post: operations['backfillCronJob'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/retry': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Run a failed run’s occurrence again
     * @description A new attempt of the same run (its id, occurrence and origin stay): it is queued, due at once, and a pod takes it within a second or so. The failed attempt joins `previous_attempts`. 409 `run_not_finished` while the run is queued or in flight, `run_succeeded` for a success. Counts against the tenant’s manual runs (429 `manual_run_budget`) and its queued runs (429 `queue_full`). Needs the scope `runs:write`.
     */
    post: operations['retryRun'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The model the agent uses
     * @description OpenAI-compatible: one entry, the configured LLM_MODEL. Needs the scope `chat`. Needs the scope `chat`.
     */
    get: operations['listModels'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/models/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * One model (only the one the agent uses exists)
     * @description OpenAI-compatible; 404 for any other id. Needs the scope `chat`. Needs the scope `chat`.
     */
    get: operations['getModel'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/chat/completions': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Chat with the agent (OpenAI-compatible, stream or not)
     * @description The agent may create, change or list the tenant’s cron jobs with its cronjob tool before it answers. Needs the scope `chat`.
     */
    post: operations['createChatCompletion'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Tokens and cost of this tenant’s model calls, grouped
     * @description From the usage ledger: every model call of runs and chat turns. Days in UTC. Needs the scope `usage:read`. Needs the scope `usage:read`.
     */
    get: operations['getUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/usage/budget': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * This tenant’s monthly budget and what is left of it
     * @description Spent this UTC month per the usage ledger, the limits the admin set (null: none), what is left and when it resets. Needs the scope `usage:read`. Needs the scope `usage:read`.
     */
    get: operations['getUsageBudget'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/usage': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Tokens and cost of every tenant’s model calls, grouped
     * @description Admin token only. Like GET /v1/usage, with `tenant` also a dimension.
     */
    get: operations['getAdminUsage'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/model-prices': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Model prices set through the API (micro-dollars per million tokens)
     * @description MODEL_PRICES_FILE entries apply where the API sets none.
     */
    get: operations['listModelPrices'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/model-prices/{model}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Set a model’s price
     * @description Integers in micro-dollars per million tokens: $2.50 per 1M input tokens is 2500000. Applies on every pod within 10 s.
     */
    put: operations['putModelPrice'];
    post?: never;
    /**
     * Remove a model’s price (its calls then cost null, unless the file prices it)
     * @description Admin token only. 404 when the API set no price for the model.
     */
    delete: operations['deleteModelPrice'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/tenants/{id}/budget': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A tenant’s monthly budget and what is left of it
     * @description Admin token only. As GET /v1/usage/budget shows it to the tenant.
     */
    get: operations['getTenantBudget'];
    /**
     * Set a tenant’s budget per UTC calendar month (micro-dollars, tokens; null: none)
     * @description Admin token only. Applies to every model call within 5 s; jobs it paused stay paused until resumed or the month turns.
     */
    put: operations['putTenantBudget'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/secrets/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    /**
     * Store a secret
     * @description Creates or replaces a secret (its value and its allowed_hosts). The value is encrypted at rest (AES-256-GCM) and never returned; the agent uses it as {{secrets.NAME}} in an http_request URL or header. With allowed_hosts, http_request refuses to send it to any other host, before anything is sent. Needs the scope `secrets:write`.
     */
    put: operations['putSecret'];
    post?: never;
    /**
     * Delete a secret
     * @description Runs that still reference it get an unknown_secret error from http_request. Needs the scope `secrets:write`.
     */
    delete: operations['deleteSecret'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/secrets': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List secrets
     * @description Names, allowed hosts and dates; values cannot be read back. Needs the scope `secrets:read`. Needs the scope `secrets:read`.
     */
    get: operations['listSecrets'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/skills/{name}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a skill
     * @description The skill and its whole document. Needs the scope `jobs:read`. Needs the scope `jobs:read`.
     */
    get: operations['getSkill'];
    /**
     * Store a skill
     * @description Creates or replaces a skill. The body is a SKILL.md document (YAML front matter with name and description, then Markdown), sent as text/markdown or as JSON {"content": "..."}; the front matter's name must be the path's. At most 32 KB each and 50 per tenant. Example:
     *
     *     ---
     *     name: daily-summary
     *     description: How to write the team's daily summary and where to post it.
     *     ---
     *     # Daily summary
     *     1. ... Needs the scope `jobs:write`.
     */
    put: operations['putSkill'];
    post?: never;
    /**
     * Delete a skill
     * @description Jobs that preload it are told it is missing at their next run. Needs the scope `jobs:write`.
     */
    delete: operations['deleteSkill'];
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/skills': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List skills
     * @description Name, description, size and dates of each skill, by name. Needs the scope `jobs:read`. Needs the scope `jobs:read`.
     */
    get: operations['listSkills'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/mcp-servers': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List MCP servers
     * @description By name. Header values show their {{secrets.NAME}} templates. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listMcpServers'];
    put?: never;
    /**
     * Register an MCP server
     * @description Stores the server, then lists its tools once (`test`: the tools, or what failed; `test_budget` when the tenant has no test left this hour, OUTBOUND_TESTS_PER_HOUR). Its host must be on the tenant's allow-list (http_allowed_hosts). Jobs name it in `mcp_servers`; chat gets every server. Needs the scope `integrations:write`.
     */
    post: operations['createMcpServer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/mcp-servers/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get an MCP server
     * @description Header values show their {{secrets.NAME}} templates. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['getMcpServer'];
    put?: never;
    post?: never;
    /**
     * Remove an MCP server
     * @description Jobs that name it run without its tools (the run is told). Needs the scope `integrations:write`.
     */
    delete: operations['deleteMcpServer'];
    options?: never;
    head?: never;
    /**
     * Change an MCP server
     * @description Fields given replace the stored ones (headers as a whole). Runs claimed after the change use it. Needs the scope `integrations:write`.
     */
    patch: operations['patchMcpServer'];
    trace?: never;
  };
  '/v1/mcp-servers/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Test an MCP server
     * @description Connects now and lists its tools (200 with ok true), or names what failed (200 with ok false: dns, refused, tls, unauthorized, not_mcp, timeout...). Channel and MCP server tests share a budget per tenant: OUTBOUND_TESTS_PER_HOUR (default 60), then 429 `test_budget` with Retry-After. Needs the scope `integrations:write`.
     */
    post: operations['testMcpServer'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/agent/settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The agent's settings for this tenant
     * @description Read-only for the tenant: the admin sets the allow-list. Needs the scope `jobs:read`. Needs the scope `jobs:read`.
     */
    get: operations['getAgentSettings'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/tenants/{id}/agent-settings': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A tenant's agent settings
     * @description Admin token only.
     */
    get: operations['getTenantAgentSettings'];
    /**
     * Set a tenant's agent settings
     * @description Admin token only. http_allowed_hosts replaces the list; an empty list takes the http_request tool away. default_models, when given, replaces the tenant’s default model list.
     */
    put: operations['putTenantAgentSettings'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/tool-calls': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run's tool calls
     * @description Every tool call of the run in order: tool, arguments (secret values redacted), outcome, HTTP status, duration and bytes. Needs the scope `runs:read`. Needs the scope `runs:read`.
     */
    get: operations['listRunToolCalls'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List webhook endpoints, newest first
     * @description One page; follow `next_cursor` for the next. `job_id` filters by job. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listWebhooks'];
    put?: never;
    /**
     * Create a webhook endpoint
     * @description Runs that finish from now on are signed and sent to the URL (Standard Webhooks). The secret is in this answer only. Needs the scope `integrations:write`.
     */
    post: operations['createWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a webhook endpoint
     * @description Whether it is enabled, and why the system disabled it if it did. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['getWebhook'];
    put?: never;
    post?: never;
    /**
     * Delete a webhook endpoint and its deliveries
     * @description Nothing more is sent to it. Needs the scope `integrations:write`.
     */
    delete: operations['deleteWebhook'];
    options?: never;
    head?: never;
    /**
     * Change a webhook endpoint
     * @description Changes only the given fields; `enabled: true` re-enables a disabled one. Needs the scope `integrations:write`.
     */
    patch: operations['updateWebhook'];
    trace?: never;
  };
  '/v1/webhooks/{id}/rotate-secret': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Rotate the signing secret
     * @description A new secret (in this answer only); for 24 hours every delivery carries signatures by both the new and the previous one. Needs the scope `integrations:write`.
     */
    post: operations['rotateWebhookSecret'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhooks/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * An endpoint's deliveries, newest first, with their attempts
     * @description One page; follow `next_cursor` for the next. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listWebhookDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cron-jobs/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The webhook deliveries of a job's runs, newest first
     * @description One page; follow `next_cursor` for the next. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listCronJobDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/webhook-deliveries/{id}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a delivery again
     * @description Queues a delivered, failed or cancelled delivery for one more attempt now, with the same webhook-id (receivers dedupe on it). 409 while it is still pending or its endpoint is disabled. At most WEBHOOK_REDELIVERIES_PER_HOUR (default 100) per tenant, then 429 `redelivery_budget` with Retry-After. Needs the scope `runs:write`.
     */
    post: operations['redeliverWebhook'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/channels': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * List notification channels, newest first
     * @description Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listChannels'];
    put?: never;
    /**
     * Create a notification channel
     * @description Email, Slack, Discord, Telegram or Teams; jobs and tenant rules name it. Needs the scope `integrations:write`.
     */
    post: operations['createChannel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/channels/rules': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant's notify rules
     * @description Defaults for jobs without their own `notify`, and failure alerts. Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['getChannelRules'];
    /**
     * Replace the tenant's notify rules
     * @description At most 20; each names one of the tenant’s channels. Needs the scope `integrations:write`.
     */
    put: operations['putChannelRules'];
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/channels/{id}': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Get a notification channel
     * @description Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['getChannel'];
    put?: never;
    post?: never;
    /**
     * Delete a notification channel and its deliveries
     * @description Needs the scope `integrations:write`.
     */
    delete: operations['deleteChannel'];
    options?: never;
    head?: never;
    /**
     * Change a notification channel
     * @description `enabled: true` re-enables one the system disabled. Needs the scope `integrations:write`.
     */
    patch: operations['updateChannel'];
    trace?: never;
  };
  '/v1/channels/{id}/test': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a test message
     * @description Sent now, once; the answer says what the platform said. Channel and MCP server tests share a budget per tenant: OUTBOUND_TESTS_PER_HOUR (default 60), then 429 `test_budget` with Retry-After. Needs the scope `integrations:write`.
     */
    post: operations['testChannel'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/channels/{id}/deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A channel's deliveries, newest first
     * @description Needs the scope `integrations:read`. Needs the scope `integrations:read`.
     */
    get: operations['listChannelDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/runs/{id}/channel-deliveries': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * A run's channel deliveries
     * @description Needs the scope `runs:read`. Needs the scope `runs:read`.
     */
    get: operations['listRunChannelDeliveries'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/channel-deliveries/{id}/redeliver': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    get?: never;
    put?: never;
    /**
     * Send a channel delivery again
     * @description The same message, now; 409 while it is pending or the channel is disabled. Needs the scope `runs:write`.
     */
    post: operations['redeliverChannelDelivery'];
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audit-log': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * The tenant’s audit log, newest first
     * @description Filters combine: `actor`, `action`, `target_type`, `target_id`, `from` (inclusive) and `to` (exclusive). Follow `next_cursor` for the next page; `format=ndjson` answers every matching entry as NDJSON. Needs the scope `audit:read`. Needs the scope `audit:read`.
     */
    get: operations['listAuditLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/audit-log/export': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Export the tenant’s audit log as NDJSON
     * @description Filters combine: `actor`, `action`, `target_type`, `target_id`, `from` (inclusive) and `to` (exclusive). Follow `next_cursor` for the next page; `format=ndjson` answers every matching entry as NDJSON. Needs the scope `audit:read`. Needs the scope `audit:read`.
     */
    get: operations['exportAuditLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/admin/audit-log': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Every tenant’s audit log, newest first (operators)
     * @description Admin token only. Filters combine: `actor`, `action`, `target_type`, `target_id`, `from` (inclusive) and `to` (exclusive). Follow `next_cursor` for the next page; `format=ndjson` answers every matching entry as NDJSON. `tenant_id` keeps one tenant's entries.
     */
    get: operations['listAdminAuditLog'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
  '/v1/cluster': {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    /**
     * Live pods, runs in flight, runs and failures in the last hour, fire lag
     * @description Admin token only. What the dashboard’s cluster page shows.
     */
    get: operations['getCluster'];
    put?: never;
    post?: never;
    delete?: never;
    options?: never;
    head?: never;
    patch?: never;
    trace?: never;
  };
}
export type webhooks = Record<string, never>;
export interface components {
  schemas: {
    ChannelRuleInput: {
      /** @description a channel id */
      channel: string;
      /**
       * @description always|failed|recovered|changed|agent: for jobs without their own `notify`; failures: any job failing `failures` times in a row; system_paused: any job the system pauses
       * @enum {string}
       */
      when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent' | 'failures' | 'system_paused';
      failures?: number | null;
      /** @description the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}} */
      template?: string | null;
    };
    ChannelRulesInput: {
      rules: components['schemas']['ChannelRuleInput'][];
    };
    /**
     * @example {
     *       "error": {
     *         "code": "not_found",
     *         "message": "no cron job with id 7d0c…"
     *       }
     *     }
     */
    Error: {
      error: {
        /** @description stable, machine-readable: not_found, validation_error, ... */
        code: string;
        /** @description for people: what went wrong and what to do */
        message: string;
      };
    };
    /**
     * @example {
     *       "id": "7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f",
     *       "name": "Morning digest",
     *       "schedule": "0 9 * * 1-5",
     *       "timezone": "Europe/Paris",
     *       "prompt": "Summarise the open incidents.",
     *       "description": "Posted in #ops before the stand-up.",
     *       "enabled": true,
     *       "next_run_at": "2026-03-02T08:00:00.000Z",
     *       "last_run_at": null,
     *       "last_run_success": null,
     *       "last_run_error": null,
     *       "last_run_error_kind": null,
     *       "run_count": 0,
     *       "created_at": "2026-03-01T10:00:00.000Z",
     *       "updated_at": "2026-03-01T10:00:00.000Z",
     *       "labels": {
     *         "team": "ops"
     *       },
     *       "paused_reason": null,
     *       "paused_at": null,
     *       "paused_by": null,
     *       "pause_after_failures": 3,
     *       "consecutive_failures": 0,
     *       "ends_at": null,
     *       "max_runs": null,
     *       "max_run_tokens": null,
     *       "daily_budget_micros": null,
     *       "stopped_by": null,
     *       "timeout": "30s",
     *       "model": null,
     *       "models": [],
     *       "output_schema": null,
     *       "jitter": null,
     *       "overlap": "skip",
     *       "retry": {
     *         "max_attempts": 3,
     *         "backoff": "30s",
     *         "after_side_effects": false
     *       },
     *       "mcp_servers": [],
     *       "skills": [],
     *       "context": {
     *         "previous_result": false
     *       },
     *       "notify": [
     *         {
     *           "channel": "1c7e9a40-2b3d-4f5e-8a9b-0c1d2e3f4a5b",
     *           "when": "changed",
     *           "template": null
     *         }
     *       ]
     *     }
     */
    CronJob: {
      /** Format: uuid */
      id: string;
      name: string;
      schedule: string;
      timezone: string;
      prompt: string;
      /** @description the job’s description; null: none */
      description: string | null;
      enabled: boolean;
      next_run_at: string | null;
      last_run_at: string | null;
      last_run_success: boolean | null;
      last_run_error: string | null;
      last_run_error_kind:
        | (
            | 'timeout'
            | 'pod_lost'
            | 'shutdown'
            | 'model_throttled'
            | 'model_error'
            | 'model_unreachable'
            | 'bad_response'
            | 'agent_error'
            | 'lock_lost'
            | 'not_recorded'
            | 'result_not_stored'
            | 'tool_limit'
            | 'cancelled'
            | 'result_quota'
            | 'invalid_output'
            | 'budget_exhausted'
          )
        | null;
      run_count: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
      labels: {
        [key: string]: string;
      };
      paused_reason: string | null;
      /** @description when the job was paused; null while enabled */
      paused_at: string | null;
      paused_by: ('user' | 'system') | null;
      pause_after_failures: number | null;
      /** @description failed occurrences in a row */
      consecutive_failures: number;
      ends_at: string | null;
      max_runs: number | null;
      max_run_tokens: number | null;
      daily_budget_micros: number | null;
      /** @description the limit that stopped the job, if one did */
      stopped_by: ('max_runs' | 'pause_after_failures' | 'budget' | 'ends_at') | null;
      /** @description the job’s own timeout; null: SCHEDULER_EXEC_TIMEOUT */
      timeout: string | null;
      /** @description the job’s model; null: the default */
      model: string | null;
      /** @description primary model, then fallbacks; []: none of its own */
      models: string[];
      /** @description the JSON Schema each answer must satisfy; null: free text */
      output_schema: {
        [key: string]: unknown;
      } | null;
      /** @description the job’s jitter; null: none */
      jitter: string | null;
      /**
       * @description what an occurrence does while the previous run is in flight
       * @enum {string}
       */
      overlap: 'skip' | 'buffer_one' | 'allow_all' | 'cancel_other';
      /** @description the job’s retry policy; null: a failed attempt is the run’s outcome */
      retry: {
        max_attempts: number;
        backoff: string;
        after_side_effects: boolean;
      } | null;
      /** @description MCP servers whose tools each run is offered */
      mcp_servers: string[];
      /** @description skills each run preloads */
      skills: string[];
      context: {
        /** @description each run sees the previous successful run's result */
        previous_result: boolean;
      };
      /** @description the job's notify rules; null: the tenant's default rules apply */
      notify:
        | {
            /** Format: uuid */
            channel: string;
            /** @enum {string} */
            when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent';
            template: string | null;
          }[]
        | null;
    };
    /**
     * @example {
     *       "id": "3f6e2a1c-8b4d-4e7f-9a2b-5c6d7e8f9a0b",
     *       "cron_job_id": "7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f",
     *       "scheduled_at": "2026-03-02T08:00:00.000Z",
     *       "started_at": "2026-03-02T08:00:00.012Z",
     *       "finished_at": "2026-03-02T08:00:04.530Z",
     *       "status": "failed",
     *       "result": null,
     *       "error": "timeout: run exceeded SCHEDULER_EXEC_TIMEOUT (5m)",
     *       "error_kind": "timeout",
     *       "attempts": 1,
     *       "attempt": 1,
     *       "duration_ms": 4518,
     *       "pod_id": "hermesx-7f9c-1",
     *       "not_before": null,
     *       "created_at": "2026-03-02T08:00:00.010Z",
     *       "origin": "scheduled",
     *       "result_bytes": null,
     *       "result_complete": true,
     *       "model_requests": 1,
     *       "start_lag_ms": 12,
     *       "retry_wait_ms": 0,
     *       "prompt_tokens": 182,
     *       "cached_tokens": 0,
     *       "completion_tokens": 64,
     *       "cost_micros": 1095
     *     }
     */
    Run: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      cron_job_id: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      scheduled_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      started_at: string;
      finished_at: string | null;
      /** @enum {string} */
      status: 'queued' | 'claimed' | 'running' | 'success' | 'failed';
      /** @description the answer: in lists its first 4,096 characters (see result_complete); GET /v1/runs/{id} has the whole text */
      result: string | null;
      error: string | null;
      /** @description why a failed run failed (docs/scheduler.md); null unless status is failed */
      error_kind:
        | (
            | 'timeout'
            | 'pod_lost'
            | 'shutdown'
            | 'model_throttled'
            | 'model_error'
            | 'model_unreachable'
            | 'bad_response'
            | 'agent_error'
            | 'lock_lost'
            | 'not_recorded'
            | 'result_not_stored'
            | 'tool_limit'
            | 'cancelled'
            | 'result_quota'
            | 'invalid_output'
            | 'budget_exhausted'
          )
        | null;
      /** @description model requests made by the current attempt; grows while a running run retries */
      attempts: number;
      /** @description which attempt of the occurrence this is (1 first); the job's retry policy or POST /v1/runs/{id}/retry adds one */
      attempt: number;
      duration_ms: number | null;
      /** @description the pod running or that ran it; null while queued */
      pod_id: string | null;
      /** @description a queued run (a retry after its backoff, a backfill) starts no earlier than this */
      not_before: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * @description why it ran: the schedule, a "run now" (manual), a catch-up after an outage or a backfill
       * @enum {string}
       */
      origin: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
      /** @description size of the whole stored answer in UTF-8 bytes */
      result_bytes: number | null;
      /** @description `result` here is the whole stored answer */
      result_complete: boolean;
      /** @description requests the current attempt sent to the model server (the number `attempts` holds), named apart from `attempt` */
      model_requests: number;
      /** @description how late the occurrence started: its first attempt’s claim minus scheduled_at; the waits between attempts are not in it; null while the first attempt waits in the queue */
      start_lag_ms: number | null;
      /** @description the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt */
      retry_wait_ms: number;
      /** @description prompt tokens over the run’s model calls and attempts; null: no call recorded */
      prompt_tokens: number | null;
      /** @description of prompt_tokens, cached */
      cached_tokens: number | null;
      completion_tokens: number | null;
      /** @description cost in micro-dollars (1e-6 USD) at the operator’s prices; null: no call, or a model without a price (unknown) */
      cost_micros: number | null;
    };
    CronJobPage: {
      data: components['schemas']['CronJob'][];
      /** @description pass as `cursor` for the next page; null at the end */
      next_cursor: string | null;
    };
    RunPage: {
      data: components['schemas']['Run'][];
      /** @description pass as `cursor` for the next page; null at the end */
      next_cursor: string | null;
    };
    RunListItem: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      cron_job_id: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      scheduled_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      started_at: string;
      finished_at: string | null;
      /** @enum {string} */
      status: 'queued' | 'claimed' | 'running' | 'success' | 'failed';
      /** @description the answer: in lists its first 4,096 characters (see result_complete); GET /v1/runs/{id} has the whole text */
      result: string | null;
      error: string | null;
      /** @description why a failed run failed (docs/scheduler.md); null unless status is failed */
      error_kind:
        | (
            | 'timeout'
            | 'pod_lost'
            | 'shutdown'
            | 'model_throttled'
            | 'model_error'
            | 'model_unreachable'
            | 'bad_response'
            | 'agent_error'
            | 'lock_lost'
            | 'not_recorded'
            | 'result_not_stored'
            | 'tool_limit'
            | 'cancelled'
            | 'result_quota'
            | 'invalid_output'
            | 'budget_exhausted'
          )
        | null;
      /** @description model requests made by the current attempt; grows while a running run retries */
      attempts: number;
      /** @description which attempt of the occurrence this is (1 first); the job's retry policy or POST /v1/runs/{id}/retry adds one */
      attempt: number;
      duration_ms: number | null;
      /** @description the pod running or that ran it; null while queued */
      pod_id: string | null;
      /** @description a queued run (a retry after its backoff, a backfill) starts no earlier than this */
      not_before: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * @description why it ran: the schedule, a "run now" (manual), a catch-up after an outage or a backfill
       * @enum {string}
       */
      origin: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
      /** @description size of the whole stored answer in UTF-8 bytes */
      result_bytes: number | null;
      /** @description `result` here is the whole stored answer */
      result_complete: boolean;
      /** @description requests the current attempt sent to the model server (the number `attempts` holds), named apart from `attempt` */
      model_requests: number;
      /** @description how late the occurrence started: its first attempt’s claim minus scheduled_at; the waits between attempts are not in it; null while the first attempt waits in the queue */
      start_lag_ms: number | null;
      /** @description the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt */
      retry_wait_ms: number;
      /** @description prompt tokens over the run’s model calls and attempts; null: no call recorded */
      prompt_tokens: number | null;
      /** @description of prompt_tokens, cached */
      cached_tokens: number | null;
      completion_tokens: number | null;
      /** @description cost in micro-dollars (1e-6 USD) at the operator’s prices; null: no call, or a model without a price (unknown) */
      cost_micros: number | null;
      job_name: string;
      /** @description the job’s labels */
      labels: {
        [key: string]: string;
      };
    };
    RunListPage: {
      data: components['schemas']['RunListItem'][];
      /** @description pass as `cursor` for the next page; null at the end */
      next_cursor: string | null;
    };
    CancelAccepted: {
      /** Format: uuid */
      run_id: string;
      /** Format: uuid */
      cron_job_id: string;
      /** @constant */
      status: 'cancelling';
    };
    SchedulePreview: {
      schedule: string;
      timezone: string;
      next: string[];
    };
    TriggerAccepted: {
      /** Format: uuid */
      job_id: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      scheduled_at: string;
    };
    /**
     * @example {
     *       "id": "5b1e9c3a-2d4f-4a6b-8c9d-0e1f2a3b4c5d",
     *       "name": "acme",
     *       "max_cron_jobs": 50,
     *       "min_schedule_interval_seconds": 60,
     *       "rate_limit_rpm": 600,
     *       "max_concurrent_runs": 10,
     *       "run_retention_days": 30,
     *       "audit_retention_days": 365,
     *       "result_bytes_quota": null,
     *       "result_bytes_stored": 52428800,
     *       "result_bytes_quota_in_force": 1073741824,
     *       "created_at": "2026-03-01T09:00:00.000Z",
     *       "updated_at": "2026-03-01T09:00:00.000Z"
     *     }
     */
    Tenant: {
      /** Format: uuid */
      id: string;
      name: string;
      max_cron_jobs: number;
      min_schedule_interval_seconds: number;
      rate_limit_rpm: number;
      /** @description runs of this tenant in flight at once across all replicas; null or 0: unlimited */
      max_concurrent_runs: number | null;
      /** @description days a run stays in the history (by its scheduled time); older ones are removed */
      run_retention_days: number;
      /** @description days an audit log entry is kept; older ones are removed */
      audit_retention_days: number;
      /** @description bytes of run answers over 8 KiB the tenant's runs may keep in the object store; a longer answer past it fails its run (result_quota) with its first 4,096 characters kept. null: the server's TENANT_RESULT_BYTES_QUOTA; 0: unlimited */
      result_bytes_quota: number | null;
      /** @description bytes of the tenant's run answers in the object store now */
      result_bytes_stored: number;
      /** @description the quota of stored result bytes that applies now (its own, else the default); 0: unlimited */
      result_bytes_quota_in_force: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    TenantList: {
      data: components['schemas']['Tenant'][];
    };
    ApiKey: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      tenant_id: string;
      name: string;
      /** @description the first characters of the key, to recognise it */
      key_prefix: string;
      expires_at: string | null;
      revoked_at: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /** @description what the key may do (a key made before scopes existed holds every scope) */
      scopes: (
        | 'jobs:read'
        | 'jobs:write'
        | 'runs:read'
        | 'runs:write'
        | 'chat'
        | 'secrets:read'
        | 'secrets:write'
        | 'integrations:read'
        | 'integrations:write'
        | 'usage:read'
        | 'budgets:write'
        | 'access:manage'
        | 'audit:read'
      )[];
      /** @description when the key last authenticated, to the minute; null: never */
      last_used_at: string | null;
    };
    ApiKeyCreated: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      tenant_id: string;
      name: string;
      /** @description the first characters of the key, to recognise it */
      key_prefix: string;
      expires_at: string | null;
      revoked_at: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /** @description what the key may do (a key made before scopes existed holds every scope) */
      scopes: (
        | 'jobs:read'
        | 'jobs:write'
        | 'runs:read'
        | 'runs:write'
        | 'chat'
        | 'secrets:read'
        | 'secrets:write'
        | 'integrations:read'
        | 'integrations:write'
        | 'usage:read'
        | 'budgets:write'
        | 'access:manage'
        | 'audit:read'
      )[];
      /** @description when the key last authenticated, to the minute; null: never */
      last_used_at: string | null;
      /** @description the raw key; shown only in this response */
      key: string;
    };
    ApiKeyList: {
      data: components['schemas']['ApiKey'][];
    };
    Cluster: {
      /** @description RFC 3339 timestamp */
      generated_at: string;
      window_seconds: number;
      /** @enum {string} */
      redis: 'ok' | 'error';
      totals: {
        live_pods: number;
        /** @description runs started and not finished */
        runs_in_flight: number;
        /** @description runs created in the last hour */
        runs_last_hour: number;
        /** @description of those, how many failed */
        failures_last_hour: number;
        /** @description 99th percentile of started_at - scheduled_at over the last hour, of the first attempts of scheduled and caught-up occurrences (backfills, manual runs and retries left out) */
        fire_lag_p99_ms: number | null;
      };
      pods: {
        pod_id: string;
        /**
         * @description scheduling: in the peers registry; live: seen in recent runs, liveness key present, not scheduling; gone: seen in recent runs, no liveness key
         * @enum {string}
         */
        state: 'scheduling' | 'live' | 'gone';
        /** @description when the pod last published its liveness key */
        heartbeat_at: string | null;
        last_run_started_at: string | null;
        /** @description runs started and not finished */
        runs_in_flight: number;
        /** @description runs created in the last hour */
        runs_last_hour: number;
        /** @description of those, how many failed */
        failures_last_hour: number;
        /** @description 99th percentile of started_at - scheduled_at over the last hour, of the first attempts of scheduled and caught-up occurrences (backfills, manual runs and retries left out) */
        fire_lag_p99_ms: number | null;
      }[];
    };
    AgentSettings: {
      /** @description hosts the http_request tool may reach: exact names or *.domain; "http://" before one also allows plain http */
      http_allowed_hosts: string[];
      /** @description models of this tenant's jobs that list none of their own: after the job's model, in order (docs/agent.md) */
      default_models: string[];
      updated_at: string | null;
      /** @description the tool and its bounds on this server */
      http_request: {
        /** @description false while the list is empty */
        offered: boolean;
        calls_per_run: number;
        timeout_ms: number;
        response_bytes_shown: number;
        allow_private_networks: boolean;
      };
    };
    ToolCall: {
      seq: number;
      tool: string;
      /** @description as the model gave them, secret values redacted */
      arguments: unknown;
      /**
       * @description `started`: a call with side effects whose outcome was never recorded; `replayed`: answered from the identical call of an earlier attempt, not made again
       * @enum {string}
       */
      status: 'ok' | 'error' | 'refused' | 'limit' | 'started' | 'replayed';
      error: string | null;
      http_status: number | null;
      duration_ms: number;
      request_bytes: number;
      response_bytes: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
    };
    ToolCallList: {
      data: components['schemas']['ToolCall'][];
    };
    AuditEntry: {
      /** Format: uuid */
      id: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      at: string;
      /** @description null: an operator’s change of no tenant */
      tenant_id: string | null;
      actor: {
        /** @enum {string} */
        type: 'admin' | 'default_key' | 'key' | 'user' | 'system';
        /** @description the key’s or user’s id */
        id: string | null;
        /** @description the key’s name or the user’s email */
        name: string | null;
        /** @description system: why (e.g. pause_after_failures) */
        reason: string | null;
      };
      source_address: string | null;
      request_id: string | null;
      action: string;
      target: {
        type: string;
        id: string | null;
      };
      /** @description before and after of the changed fields; secret values are never recorded */
      change: {
        [key: string]: unknown;
      } | null;
    };
    AuditPage: {
      data: components['schemas']['AuditEntry'][];
      next_cursor: string | null;
    };
    ChatCompletion: {
      id: string;
      /** @description always chat.completion */
      object: string;
      /** @description Unix time in seconds */
      created: number;
      model: string;
      choices: ({
        index: number;
        message: {
          /** @description always assistant */
          role: string;
          content: string | null;
        } & {
          [key: string]: unknown;
        };
        finish_reason: string | null;
      } & {
        [key: string]: unknown;
      })[];
      usage?: {
        prompt_tokens: number;
        completion_tokens: number;
        total_tokens: number;
      } & {
        [key: string]: unknown;
      };
    } & {
      [key: string]: unknown;
    };
    Model: {
      id: string;
      /** @description always model */
      object: string;
      created: number;
      owned_by: string;
    };
    ModelList: {
      /** @description always list */
      object: string;
      data: components['schemas']['Model'][];
    };
    UsageReport: {
      from: string;
      to: string;
      group_by: string[];
      data: {
        day?: string;
        job_id?: string | null;
        job_name?: string | null;
        model?: string;
        origin?: string;
        tenant_id?: string;
        calls: number;
        prompt_tokens: number;
        cached_tokens: number;
        completion_tokens: number;
        /** @description micro-dollars of the priced calls */
        cost_micros: number;
        /** @description calls whose model had no price (cost unknown) */
        unpriced_calls: number;
      }[];
    };
    ModelPrice: {
      model: string;
      input: number;
      cached_input: number;
      output: number;
      updated_at: string;
    };
    UsageBudget: {
      monthly_budget_micros: number | null;
      monthly_budget_tokens: number | null;
      month_micros: {
        limit: number | null;
        spent: number;
        remaining: number | null;
        period: string;
        resets_at: string;
      };
      month_tokens: {
        limit: number | null;
        spent: number;
        remaining: number | null;
        period: string;
        resets_at: string;
      };
    };
    Liveness: {
      /** @constant */
      status: 'ok';
    };
    Readiness: {
      /** @enum {string} */
      status: 'ok' | 'degraded' | 'error';
      checks: {
        /** @enum {string} */
        database: 'ok' | 'error';
        /** @enum {string} */
        redis: 'ok' | 'error';
      };
    };
    ModelHealth: {
      /** @enum {string} */
      status: 'ok' | 'unreachable';
      /** @description LLM_MODEL, the model runs ask for */
      model: string;
      /** @description whether the server lists that model (null when it answered no list) */
      model_listed: boolean | null;
      /** Format: date-time */
      checked_at: string;
      latency_ms: number;
      /** @description why it is unreachable: connection refused, timeout, HTTP 401, … */
      error: string | null;
    };
    Member: {
      user_id: string;
      email: string | null;
      name: string | null;
      /** @enum {string} */
      role: 'viewer' | 'member' | 'admin' | 'owner';
      /** @description the user who invited (null: a key or the operator) */
      invited_by: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
    };
    /** @description Joins the tenant at the first sign-in with this verified email */
    Invitation: {
      id: string;
      email: string;
      /** @enum {string} */
      role: 'viewer' | 'member' | 'admin' | 'owner';
      invited_by: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      expires_at: string;
    };
    /** @description A tenant's remote MCP server (Streamable HTTP) */
    McpServer: {
      /** Format: uuid */
      id: string;
      /** @description the namespace: its tools are offered as <name>__<tool> */
      name: string;
      url: string;
      /** @description header values as written: {{secrets.NAME}} templates */
      headers: {
        [key: string]: string;
      };
      /** @description the only tools offered (names as the server lists them); null or absent: all */
      allowed_tools: string[] | null;
      description: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    /** @description The server's tools, or what failed */
    McpServerTest: {
      ok: boolean;
      duration_ms: number;
      tools?: {
        name: string;
        /** @description the name the model calls it by */
        offered_as: string;
        description: string;
        /** @description readOnlyHint: a call counts as having no side effects */
        read_only: boolean;
      }[];
      error?: {
        /** @description dns, refused, tls, unauthorized, not_mcp, timeout, blocked_address, too_large, connection_lost, server_error, busy, secret_unavailable, test_budget (not tested: the tenant has no test left this hour) */
        code: string;
        message: string;
      };
    };
    /** @description The server as stored, and its first test */
    McpServerCreated: {
      /** Format: uuid */
      id: string;
      /** @description the namespace: its tools are offered as <name>__<tool> */
      name: string;
      url: string;
      /** @description header values as written: {{secrets.NAME}} templates */
      headers: {
        [key: string]: string;
      };
      /** @description the only tools offered (names as the server lists them); null or absent: all */
      allowed_tools: string[] | null;
      description: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
      test: components['schemas']['McpServerTest'];
    };
    McpServerList: {
      data: components['schemas']['McpServer'][];
    };
    /** @description A stored secret: its name, hosts and dates, never its value */
    Secret: {
      name: string;
      /** @description the hosts the secret is bound to; absent when it is not bound (any host on the tenant allow-list) */
      allowed_hosts?: string[];
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    SecretList: {
      data: components['schemas']['Secret'][];
    };
    /** @description Who is signed in by this session cookie */
    SessionMe: {
      user: {
        id: string;
        email: string | null;
        name: string | null;
        platform_role: 'operator' | null;
      };
      /** @description the tenant this session acts for */
      tenant_id: string | null;
      /** @description the user's role in that tenant */
      role: ('viewer' | 'member' | 'admin' | 'owner') | null;
      /** @description what the role may do (docs/security.md) */
      scopes: (
        | 'jobs:read'
        | 'jobs:write'
        | 'runs:read'
        | 'runs:write'
        | 'chat'
        | 'secrets:read'
        | 'secrets:write'
        | 'integrations:read'
        | 'integrations:write'
        | 'usage:read'
        | 'budgets:write'
        | 'access:manage'
        | 'audit:read'
      )[];
      tenants: {
        id: string;
        name: string;
        /** @enum {string} */
        role: 'viewer' | 'member' | 'admin' | 'owner';
      }[];
      /** @description send it as x-csrf-token with every POST, PUT, PATCH, DELETE */
      csrf_token: string;
    };
    SignInOptions: {
      /** @description whether "Sign in with SSO" is offered */
      sso: boolean;
    };
    SkillSummary: {
      name: string;
      description: string;
      size_bytes: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    SkillList: {
      data: components['schemas']['SkillSummary'][];
    };
    Skill: {
      name: string;
      description: string;
      size_bytes: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
      /** @description the whole SKILL.md document */
      content: string;
    };
    /**
     * @example {
     *       "job_id": "7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f",
     *       "added": 2,
     *       "skipped": 1,
     *       "scheduled_at": [
     *         "2026-03-02T08:00:00.000Z",
     *         "2026-03-04T08:00:00.000Z"
     *       ],
     *       "next_from": null
     *     }
     */
    BackfillAnswer: {
      /** Format: uuid */
      job_id: string;
      /** @description occurrences with no run before, now queued (origin backfill) */
      added: number;
      /** @description occurrences that already had a run */
      skipped: number;
      /** @description the queued occurrences, oldest first */
      scheduled_at: string[];
      /** @description the range holds more than 100 occurrences: send this as the next request’s `from` */
      next_from: string | null;
    };
    /**
     * @example {
     *       "id": "5b1e7c2a-9d4f-4e8b-a1c3-2f6d8e0a4b7c",
     *       "url": "https://hooks.example.com/hermesx",
     *       "description": "team channel",
     *       "events": [
     *         "run.failed"
     *       ],
     *       "job_id": null,
     *       "enabled": true,
     *       "disabled_reason": null,
     *       "failing_since": null,
     *       "previous_secret_expires_at": null,
     *       "created_at": "2026-03-01T10:00:00.000Z",
     *       "updated_at": "2026-03-01T10:00:00.000Z"
     *     }
     */
    Webhook: {
      /** Format: uuid */
      id: string;
      url: string;
      description: string;
      /** @description null: every event type */
      events:
        | ('run.succeeded' | 'run.failed' | 'job.paused' | 'budget.warning' | 'channel.disabled')[]
        | null;
      /** @description null: every job's runs */
      job_id: string | null;
      enabled: boolean;
      /** @description set when the system disabled it: the receiver answered 410, or failed for 5 days */
      disabled_reason: ('gone' | 'failing') | null;
      /** @description first failed attempt since the last success */
      failing_since: string | null;
      /** @description after a rotation: until then the previous secret also signs */
      previous_secret_expires_at: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    /**
     * @example {
     *       "id": "5b1e7c2a-9d4f-4e8b-a1c3-2f6d8e0a4b7c",
     *       "url": "https://hooks.example.com/hermesx",
     *       "description": "team channel",
     *       "events": [
     *         "run.failed"
     *       ],
     *       "job_id": null,
     *       "enabled": true,
     *       "disabled_reason": null,
     *       "failing_since": null,
     *       "previous_secret_expires_at": null,
     *       "created_at": "2026-03-01T10:00:00.000Z",
     *       "updated_at": "2026-03-01T10:00:00.000Z",
     *       "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
     *     }
     */
    WebhookWithSecret: {
      /** Format: uuid */
      id: string;
      url: string;
      description: string;
      /** @description null: every event type */
      events:
        | ('run.succeeded' | 'run.failed' | 'job.paused' | 'budget.warning' | 'channel.disabled')[]
        | null;
      /** @description null: every job's runs */
      job_id: string | null;
      enabled: boolean;
      /** @description set when the system disabled it: the receiver answered 410, or failed for 5 days */
      disabled_reason: ('gone' | 'failing') | null;
      /** @description first failed attempt since the last success */
      failing_since: string | null;
      /** @description after a rotation: until then the previous secret also signs */
      previous_secret_expires_at: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
      /** @description Standard Webhooks signing secret (whsec_…): shown only in this answer */
      secret: string;
    };
    WebhookAttempt: {
      attempt: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      attempted_at: string;
      duration_ms: number;
      /** @description null: no HTTP answer */
      status_code: number | null;
      error: string | null;
      /** @enum {string} */
      outcome: 'delivered' | 'retry' | 'failed' | 'gone' | 'refused';
      next_attempt_at: string | null;
    };
    WebhookDelivery: {
      /** Format: uuid */
      id: string;
      /** @description the webhook-id header: the same on every attempt */
      webhook_id: string;
      /** Format: uuid */
      endpoint_id: string;
      /** @description null for an event of no job (channel.disabled) */
      job_id: string | null;
      /** @description the run of a run event; null for job.paused */
      run_id: string | null;
      /** @enum {string} */
      event_type:
        'run.succeeded' | 'run.failed' | 'job.paused' | 'budget.warning' | 'channel.disabled';
      /** @enum {string} */
      status: 'pending' | 'delivered' | 'failed' | 'cancelled';
      attempts: number;
      /** @description when pending: the next attempt */
      next_attempt_at: string | null;
      last_status_code: number | null;
      last_error: string | null;
      /**
       * Format: date-time
       * @description when the run was recorded (and the delivery queued)
       */
      created_at: string;
      delivered_at: string | null;
      /** @description the latest 20 attempts, oldest first */
      attempt_history: components['schemas']['WebhookAttempt'][];
    };
    WebhookPage: {
      data: components['schemas']['Webhook'][];
      /** @description pass as `cursor` for the next page; null at the end */
      next_cursor: string | null;
    };
    WebhookDeliveryPage: {
      data: components['schemas']['WebhookDelivery'][];
      /** @description pass as `cursor` for the next page; null at the end */
      next_cursor: string | null;
    };
    /**
     * @example {
     *       "id": "3f6e2a1c-8b4d-4e7f-9a2b-5c6d7e8f9a0b",
     *       "cron_job_id": "7d0c5b8e-3f2a-4c1d-9e8b-1a2b3c4d5e6f",
     *       "job_name": "Morning digest",
     *       "scheduled_at": "2026-03-02T08:00:00.000Z",
     *       "started_at": "2026-03-02T08:00:00.012Z",
     *       "finished_at": "2026-03-02T08:00:04.530Z",
     *       "status": "success",
     *       "result": "Two incidents are open: …",
     *       "error": null,
     *       "error_kind": null,
     *       "attempts": 2,
     *       "attempt": 1,
     *       "model_requests": 2,
     *       "calls": [
     *         {
     *           "model": "qwen3:30b",
     *           "prompt_tokens": 182,
     *           "cached_tokens": 0,
     *           "completion_tokens": 64,
     *           "cost_micros": 1095
     *         }
     *       ],
     *       "max_attempts": 3,
     *       "duration_ms": 4518,
     *       "pod_id": "hermesx-7f9c-1",
     *       "not_before": null,
     *       "created_at": "2026-03-02T08:00:00.010Z",
     *       "origin": "scheduled",
     *       "result_bytes": 27,
     *       "result_complete": true,
     *       "start_lag_ms": 12,
     *       "retry_wait_ms": 0,
     *       "prompt_tokens": 182,
     *       "cached_tokens": 0,
     *       "completion_tokens": 64,
     *       "cost_micros": 1095,
     *       "result_truncated": false,
     *       "output": null,
     *       "prompt_sent": [
     *         {
     *           "role": "system",
     *           "content": "You are HermesX, running the scheduled job …"
     *         },
     *         {
     *           "role": "user",
     *           "content": "Summarise the open incidents."
     *         }
     *       ],
     *       "model": "qwen3:30b",
     *       "usage": {
     *         "prompt_tokens": 182,
     *         "completion_tokens": 64
     *       },
     *       "attempt_log": [
     *         {
     *           "started_at": "2026-03-02T08:00:00.020Z",
     *           "duration_ms": 3,
     *           "outcome": "retried_throttled",
     *           "model": "qwen3:30b"
     *         },
     *         {
     *           "started_at": "2026-03-02T08:00:01.020Z",
     *           "duration_ms": 3500,
     *           "outcome": "success",
     *           "model": "qwen3:30b"
     *         }
     *       ],
     *       "previous_attempts": [],
     *       "timings": {
     *         "scheduled_at": "2026-03-02T08:00:00.000Z",
     *         "started_at": "2026-03-02T08:00:00.012Z",
     *         "model_called_at": "2026-03-02T08:00:00.018Z",
     *         "finished_at": "2026-03-02T08:00:04.530Z",
     *         "first_started_at": "2026-03-02T08:00:00.012Z",
     *         "start_lag_ms": 12,
     *         "retry_wait_ms": 0
     *       },
     *       "deliveries": []
     *     }
     */
    RunDetail: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      cron_job_id: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      scheduled_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      started_at: string;
      finished_at: string | null;
      /** @enum {string} */
      status: 'queued' | 'claimed' | 'running' | 'success' | 'failed';
      /** @description the whole answer (up to RUN_RESULT_MAX_BYTES; see result_truncated) */
      result: string | null;
      error: string | null;
      /** @description why a failed run failed (docs/scheduler.md); null unless status is failed */
      error_kind:
        | (
            | 'timeout'
            | 'pod_lost'
            | 'shutdown'
            | 'model_throttled'
            | 'model_error'
            | 'model_unreachable'
            | 'bad_response'
            | 'agent_error'
            | 'lock_lost'
            | 'not_recorded'
            | 'result_not_stored'
            | 'tool_limit'
            | 'cancelled'
            | 'result_quota'
            | 'invalid_output'
            | 'budget_exhausted'
          )
        | null;
      /** @description model requests made by the current attempt; grows while a running run retries */
      attempts: number;
      /** @description which attempt of the occurrence this is (1 first); the job's retry policy or POST /v1/runs/{id}/retry adds one */
      attempt: number;
      duration_ms: number | null;
      /** @description the pod running or that ran it; null while queued */
      pod_id: string | null;
      /** @description a queued run (a retry after its backoff, a backfill) starts no earlier than this */
      not_before: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * @description why it ran: the schedule, a "run now" (manual), a catch-up after an outage or a backfill
       * @enum {string}
       */
      origin: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
      /** @description size of the whole stored answer in UTF-8 bytes */
      result_bytes: number | null;
      /** @description `result` here is the whole stored answer */
      result_complete: boolean;
      /** @description requests the current attempt sent to the model server (throttled calls sent again and agent steps included): the number `attempts` holds, named apart from `attempt`, which counts executions of the occurrence */
      model_requests: number;
      /** @description how late the occurrence started: its first attempt’s claim minus scheduled_at; the waits between attempts are not in it; null while the first attempt waits in the queue */
      start_lag_ms: number | null;
      /** @description the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt */
      retry_wait_ms: number;
      /** @description prompt tokens over the run’s model calls and attempts; null: no call recorded */
      prompt_tokens: number | null;
      /** @description of prompt_tokens, cached */
      cached_tokens: number | null;
      completion_tokens: number | null;
      /** @description cost in micro-dollars (1e-6 USD) at the operator’s prices; null: no call, or a model without a price (unknown) */
      cost_micros: number | null;
      /** @description the job’s name now */
      job_name: string;
      /** @description the answer was longer than RUN_RESULT_MAX_BYTES and `result` is cut there */
      result_truncated: boolean;
      /** @description the parsed answer of a job with an output_schema (it validated); null otherwise (free text, or a failed run) */
      output: unknown;
      /** @description the messages of the first model request, as sent; null before it was sent */
      prompt_sent:
        | {
            role: string;
            content: string;
          }[]
        | null;
      /** @description the model that answered, as the model server named it */
      model: string | null;
      /** @description tokens over all model requests of the run, as the model server counted them */
      usage: {
        prompt_tokens: number;
        completion_tokens: number;
      } | null;
      /** @description each model call of the last attempt: its tokens and cost (null: no price) */
      calls: {
        model: string;
        prompt_tokens: number;
        cached_tokens: number;
        completion_tokens: number;
        cost_micros: number | null;
      }[];
      /** @description the attempts the job's retry policy allows now (1 without one; a retry by hand may go past it); null once the job is deleted */
      max_attempts: number | null;
      /** @description each model request of the current attempt in order; grows while it retries */
      attempt_log: {
        /**
         * Format: date-time
         * @description when this model request left the pod
         */
        started_at: string;
        /** @description null while it is in flight */
        duration_ms: number | null;
        /** @description success; answered (a step before the final answer); retried_throttled (429), retried_overloaded (503) or retried_connect (sent again); fallback_unreachable, fallback_timeout, fallback_throttled or fallback_upstream_5xx (the call went on to the next model of the job’s list); or the error_kind that ended the run. null while in flight */
        outcome: string | null;
        /** @description the model this request asked for (the job’s models, in order); null: not recorded */
        model: string | null;
      }[];
      /** @description the outcome of each earlier attempt of this occurrence (the job’s retry policy, POST /v1/runs/{id}/retry), oldest first */
      previous_attempts: {
        attempt: number;
        /** @description failed */
        status: string;
        error_kind: string | null;
        error: string | null;
        started_at: string | null;
        finished_at: string | null;
        duration_ms: number | null;
        pod_id: string | null;
        /** @description model requests this attempt made */
        model_requests: number;
      }[];
      timings: {
        /**
         * Format: date-time
         * @description the nominal time of the occurrence
         */
        scheduled_at: string;
        /**
         * Format: date-time
         * @description when a pod claimed the current attempt (while a retry waits in the queue: the previous one)
         */
        started_at: string;
        /** @description when the first model request of the current attempt left */
        model_called_at: string | null;
        finished_at: string | null;
        /**
         * Format: date-time
         * @description when a pod claimed the first attempt (started_at when this is the first)
         */
        first_started_at: string;
        /** @description first_started_at minus scheduled_at: how late the occurrence started; waits for retries are not in it */
        start_lag_ms: number;
        /** @description the time between attempts (the retry back-off, or until a retry by hand), summed over the attempts that started; 0 for a first attempt */
        retry_wait_ms: number;
      };
      /** @description the run's webhook deliveries, one per matching endpoint (at most 100) */
      deliveries: components['schemas']['WebhookDelivery'][];
    };
    /**
     * @example {
     *       "id": "1c7e9a40-2b3d-4f5e-8a9b-0c1d2e3f4a5b",
     *       "kind": "slack",
     *       "name": "ops alerts",
     *       "config": {
     *         "url": "https://hooks.slack.com/servic…"
     *       },
     *       "enabled": true,
     *       "disabled_reason": null,
     *       "failing_since": null,
     *       "created_at": "2026-03-01T10:00:00.000Z",
     *       "updated_at": "2026-03-01T10:00:00.000Z"
     *     }
     */
    Channel: {
      /** Format: uuid */
      id: string;
      /** @enum {string} */
      kind: 'email' | 'slack' | 'discord' | 'telegram' | 'teams';
      name: string;
      /** @description as given, a webhook URL shortened (it is a credential) */
      config: {
        [key: string]: unknown;
      };
      enabled: boolean;
      /** @description set when the system disabled it: every attempt failed for CHANNEL_DISABLE_AFTER */
      disabled_reason: 'failing' | null;
      failing_since: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      updated_at: string;
    };
    ChannelTestResult: {
      delivered: boolean;
      /** @enum {string} */
      outcome: 'delivered' | 'failed' | 'refused';
      /** @description HTTP status, or the SMTP reply code */
      status_code: number | null;
      /** @description the platform's answer (its first 500 characters) */
      response: string | null;
      /** @description why there was no answer */
      error: string | null;
      duration_ms: number;
    };
    ChannelRule: {
      /** @description a channel id */
      channel: string;
      /**
       * @description always|failed|recovered|changed|agent: for jobs without their own `notify`; failures: any job failing `failures` times in a row; system_paused: any job the system pauses
       * @enum {string}
       */
      when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent' | 'failures' | 'system_paused';
      failures?: number | null;
      /** @description the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}} */
      template?: string | null;
    };
    ChannelRules: {
      rules: components['schemas']['ChannelRule'][];
    };
    ChannelAttempt: {
      attempt: number;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      attempted_at: string;
      duration_ms: number;
      status_code: number | null;
      error: string | null;
      /** @enum {string} */
      outcome: 'delivered' | 'retry' | 'failed' | 'refused';
    };
    ChannelDelivery: {
      /** Format: uuid */
      id: string;
      /** Format: uuid */
      channel_id: string;
      job_id: string | null;
      /** @description null for a job paused by the system */
      run_id: string | null;
      run_status: ('success' | 'failed') | null;
      /**
       * @description the rule that queued it
       * @enum {string}
       */
      reason:
        'always' | 'failed' | 'recovered' | 'changed' | 'agent' | 'failures' | 'system_paused';
      /** @enum {string} */
      status: 'pending' | 'delivered' | 'failed' | 'cancelled';
      attempts: number;
      next_attempt_at: string | null;
      last_status_code: number | null;
      last_error: string | null;
      /** @description the platform's last answer (its start) */
      last_response: string | null;
      /**
       * Format: date-time
       * @description RFC 3339 timestamp (UTC)
       */
      created_at: string;
      delivered_at: string | null;
      /** @description the latest 20 attempts, newest first */
      history: components['schemas']['ChannelAttempt'][];
    };
    ChannelPage: {
      data: components['schemas']['Channel'][];
      /** @description pass as `cursor` for the next page */
      next_cursor: string | null;
    };
    ChannelDeliveryPage: {
      data: components['schemas']['ChannelDelivery'][];
      /** @description pass as `cursor` for the next page */
      next_cursor: string | null;
    };
    ChannelRedelivered: {
      /** Format: uuid */
      id: string;
      /** @constant */
      status: 'pending';
    };
    MemberList: {
      data: components['schemas']['Member'][];
    };
    InvitationList: {
      data: components['schemas']['Invitation'][];
    };
    CronJobCreate: {
      /** @description 1 to 200 characters once trimmed */
      name: string;
      /** @description 5- or 6-field cron expression, @hourly-style nickname, or "every 15m" */
      schedule: string;
      /** @description IANA zone such as Europe/Paris (default UTC) */
      timezone?: string;
      /** @description what the agent does at each run; at most 16 KiB */
      prompt: string;
      /** @description free text for people: what the job is for, who owns it (at most 2,000 characters) */
      description?: string | null;
      /** @description default true */
      enabled?: boolean;
      /** @description up to 16 string pairs; keys are letters, digits and . _ / - */
      labels?: {
        [key: string]: string;
      };
      /** @description why the job is paused; only with enabled: false */
      paused_reason?: string | null;
      /** @description pause the job (paused_by system) after this many failed occurrences in a row */
      pause_after_failures?: number | null;
      /** @description no occurrence after this time */
      ends_at?: string | null;
      /** @description the job disables itself once it has run this many times (every run counts) */
      max_runs?: number | null;
      /** @description tokens (prompt + completion) one run may use over all its model calls; a call that could pass it is not sent and the run fails budget_exhausted */
      max_run_tokens?: number | null;
      /** @description micro-dollars the job may spend per UTC day; spent, its runs fail budget_exhausted and the job pauses until the next UTC day */
      daily_budget_micros?: number | null;
      /** @description Go duration, 1s to SCHEDULER_EXEC_TIMEOUT: a run still going then fails `timeout` */
      timeout?: string | null;
      /** @description one of LLM_MODELS (unset: the model server's /models); null: the default */
      model?: string | null;
      /** @description the primary model, then fallbacks a call goes to when the one before is unreachable, answers 5xx, stays throttled or times out; each one of LLM_MODELS (unset: the model server's /models); null or []: the job's model, then the tenant's default_models */
      models?: string[] | null;
      /** @description a JSON Schema (draft 2020-12, at most 16384 bytes) each run's answer must satisfy; the parsed answer is the run's output; null: free text */
      output_schema?: {
        [key: string]: unknown;
      } | null;
      /** @description Go duration, 1s to 1h and shorter than the schedule’s gap: each occurrence starts at a deterministic offset in [0, jitter] after its nominal time */
      jitter?: string | null;
      /** @description when an occurrence comes while the previous run is in flight: skip (default), buffer_one (run once right after it), allow_all (run side by side), cancel_other (stop it, recorded cancelled, and run); run-now follows it too; null: skip */
      overlap?: ('skip' | 'buffer_one' | 'allow_all' | 'cancel_other') | null;
      /** @description run a failed attempt again when its kind is safe to retry (model_unreachable, model_throttled, model_error, timeout, pod_lost); null: never */
      retry?: {
        /** @description attempts in all, the first included */
        max_attempts: number;
        /** @description Go duration, 1s to 1h: the wait before the second attempt, doubled for each next one (at most 1h) */
        backoff: string;
        /** @description retry even after a tool call with side effects (a non-GET http_request, a cronjob change); default false */
        after_side_effects?: boolean;
      } | null;
      /** @description names of the tenant's MCP servers (/v1/mcp-servers) whose tools each run is offered, at most 16; empty (the default): none */
      mcp_servers?: string[];
      /** @description skills whose text each run preloads (at most 8) */
      skills?: string[];
      context?: {
        /** @description each run sees the previous successful run's result (4 KB at most) */
        previous_result?: boolean;
      };
      /** @description who hears of the job's runs and when (at most 10 rules); null: the tenant's defaults */
      notify?:
        | {
            /**
             * Format: uuid
             * @description a notification channel id (GET /v1/channels)
             */
            channel: string;
            /**
             * @description always; failed; recovered (first success after failures); changed (the answer differs from the previous success); agent (the run decides: notify tool or [SILENT])
             * @enum {string}
             */
            when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent';
            /** @description the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}} */
            template?: string | null;
          }[]
        | null;
    };
    /** @description at least one field */
    CronJobPatch: {
      name?: string;
      schedule?: string;
      timezone?: string;
      prompt?: string;
      /** @description free text for people: what the job is for, who owns it (at most 2,000 characters) */
      description?: string | null;
      enabled?: boolean;
      /** @description up to 16 string pairs; keys are letters, digits and . _ / - */
      labels?: {
        [key: string]: string;
      };
      /** @description why the job is paused; only with enabled: false */
      paused_reason?: string | null;
      /** @description pause the job (paused_by system) after this many failed occurrences in a row */
      pause_after_failures?: number | null;
      /** @description no occurrence after this time */
      ends_at?: string | null;
      /** @description the job disables itself once it has run this many times (every run counts) */
      max_runs?: number | null;
      /** @description tokens (prompt + completion) one run may use over all its model calls; a call that could pass it is not sent and the run fails budget_exhausted */
      max_run_tokens?: number | null;
      /** @description micro-dollars the job may spend per UTC day; spent, its runs fail budget_exhausted and the job pauses until the next UTC day */
      daily_budget_micros?: number | null;
      /** @description Go duration, 1s to SCHEDULER_EXEC_TIMEOUT: a run still going then fails `timeout` */
      timeout?: string | null;
      /** @description one of LLM_MODELS (unset: the model server's /models); null: the default */
      model?: string | null;
      /** @description the primary model, then fallbacks a call goes to when the one before is unreachable, answers 5xx, stays throttled or times out; each one of LLM_MODELS (unset: the model server's /models); null or []: the job's model, then the tenant's default_models */
      models?: string[] | null;
      /** @description a JSON Schema (draft 2020-12, at most 16384 bytes) each run's answer must satisfy; the parsed answer is the run's output; null: free text */
      output_schema?: {
        [key: string]: unknown;
      } | null;
      /** @description Go duration, 1s to 1h and shorter than the schedule’s gap: each occurrence starts at a deterministic offset in [0, jitter] after its nominal time */
      jitter?: string | null;
      /** @description when an occurrence comes while the previous run is in flight: skip (default), buffer_one (run once right after it), allow_all (run side by side), cancel_other (stop it, recorded cancelled, and run); run-now follows it too; null: skip */
      overlap?: ('skip' | 'buffer_one' | 'allow_all' | 'cancel_other') | null;
      /** @description run a failed attempt again when its kind is safe to retry (model_unreachable, model_throttled, model_error, timeout, pod_lost); null: never */
      retry?: {
        /** @description attempts in all, the first included */
        max_attempts: number;
        /** @description Go duration, 1s to 1h: the wait before the second attempt, doubled for each next one (at most 1h) */
        backoff: string;
        /** @description retry even after a tool call with side effects (a non-GET http_request, a cronjob change); default false */
        after_side_effects?: boolean;
      } | null;
      /** @description names of the tenant's MCP servers (/v1/mcp-servers) whose tools each run is offered, at most 16; empty (the default): none */
      mcp_servers?: string[];
      skills?: string[];
      context?: {
        previous_result?: boolean;
      };
      /** @description who hears of the job's runs and when (at most 10 rules); null: the tenant's defaults */
      notify?:
        | {
            /**
             * Format: uuid
             * @description a notification channel id (GET /v1/channels)
             */
            channel: string;
            /**
             * @description always; failed; recovered (first success after failures); changed (the answer differs from the previous success); agent (the run decides: notify tool or [SILENT])
             * @enum {string}
             */
            when: 'always' | 'failed' | 'recovered' | 'changed' | 'agent';
            /** @description the message: {{answer}} {{job_name}} {{time}} {{status}} {{link}} {{error}} */
            template?: string | null;
          }[]
        | null;
    };
    SchedulePreviewRequest: {
      schedule: string;
      timezone?: string;
      /** @description how many fire times (default 10) */
      count?: number;
      /**
       * Format: date-time
       * @description start after this time (default now)
       */
      from?: string;
    };
    TenantCreate: {
      name: string;
      /** @description default 50 */
      max_cron_jobs?: number;
      /** @description default 60 */
      min_schedule_interval_seconds?: number;
      /** @description default 600 */
      rate_limit_rpm?: number;
      /** @description default 10 */
      max_concurrent_runs?: number | null;
      /** @description default 30 */
      run_retention_days?: number;
      /** @description default 365 */
      audit_retention_days?: number;
      /** @description default null */
      result_bytes_quota?: number | null;
    };
    /** @description at least one field */
    TenantPatch: {
      name?: string;
      /** @description default 50 */
      max_cron_jobs?: number;
      /** @description default 60 */
      min_schedule_interval_seconds?: number;
      /** @description default 600 */
      rate_limit_rpm?: number;
      /** @description default 10 */
      max_concurrent_runs?: number | null;
      /** @description default 30 */
      run_retention_days?: number;
      /** @description default 365 */
      audit_retention_days?: number;
      /** @description default null */
      result_bytes_quota?: number | null;
    };
    ApiKeyCreate: {
      /** Format: uuid */
      tenant_id: string;
      name: string;
      /**
       * Format: date-time
       * @description must be in the future; omit for a key that does not expire
       */
      expires_at?: string;
      /** @description what the key may do; omit for every scope the creator holds (the admin: every scope) */
      scopes?: (
        | 'jobs:read'
        | 'jobs:write'
        | 'runs:read'
        | 'runs:write'
        | 'chat'
        | 'secrets:read'
        | 'secrets:write'
        | 'integrations:read'
        | 'integrations:write'
        | 'usage:read'
        | 'budgets:write'
        | 'access:manage'
        | 'audit:read'
      )[];
    };
    TenantApiKeyCreate: {
      name: string;
      /**
       * Format: date-time
       * @description must be in the future; omit for a key that does not expire
       */
      expires_at?: string;
      /** @description what the key may do; omit for every scope the creator holds (the admin: every scope) */
      scopes?: (
        | 'jobs:read'
        | 'jobs:write'
        | 'runs:read'
        | 'runs:write'
        | 'chat'
        | 'secrets:read'
        | 'secrets:write'
        | 'integrations:read'
        | 'integrations:write'
        | 'usage:read'
        | 'budgets:write'
        | 'access:manage'
        | 'audit:read'
      )[];
    };
    AgentSettingsPut: {
      http_allowed_hosts: string[];
      /** @description each one of LLM_MODELS (unset: the model server’s /models); absent: unchanged */
      default_models?: string[];
    };
    InvitationCreate: {
      /**
       * Format: email
       * @description the address the provider must vouch for (verified)
       */
      email: string;
      /** @enum {string} */
      role: 'viewer' | 'member' | 'admin' | 'owner';
    };
    MemberRoleUpdate: {
      /** @enum {string} */
      role: 'viewer' | 'member' | 'admin' | 'owner';
    };
    McpServerCreate: {
      /** @description 1 to 24 of a-z 0-9 _ -, unique in the tenant */
      name: string;
      /** @description the server's Streamable HTTP endpoint, on the allow-list */
      url: string;
      /** @description request headers sent to the server; a value may hold {{secrets.NAME}}, replaced by the secret at send time (e.g. "Authorization": "Bearer {{secrets.CRM_TOKEN}}"); at most 16 */
      headers?: {
        [key: string]: string;
      };
      /** @description the only tools offered (names as the server lists them); null or absent: all */
      allowed_tools?: string[] | null;
      description?: string;
    };
    McpServerPatch: {
      /** @description 1 to 24 of a-z 0-9 _ -, unique in the tenant */
      name?: string;
      /** @description the server's Streamable HTTP endpoint, on the allow-list */
      url?: string;
      /** @description request headers sent to the server; a value may hold {{secrets.NAME}}, replaced by the secret at send time (e.g. "Authorization": "Bearer {{secrets.CRM_TOKEN}}"); at most 16 */
      headers?: {
        [key: string]: string;
      };
      /** @description the only tools offered (names as the server lists them); null or absent: all */
      allowed_tools?: string[] | null;
      description?: string;
    };
    SecretPut: {
      /** @description the value (8 characters to 4 KB); never returned */
      value: string;
      /** @description the only hosts the secret may be sent to: exact names (api.example.com) or *.example.com for subdomains; absent or empty: any host on the tenant allow-list (http_allowed_hosts) */
      allowed_hosts?: string[];
    };
    ChooseTenant: {
      /** @description the tenant id (a UUID) */
      tenant_id: string;
    };
    SkillPut:
      | string
      | {
          /** @description the SKILL.md document */
          content: string;
        };
    BackfillRequest: {
      /**
       * Format: date-time
       * @description the range’s start (inclusive), within the tenant’s run retention
       */
      from: string;
      /**
       * Format: date-time
       * @description the range’s end (exclusive), not in the future
       */
      to: string;
    };
    WebhookCreate: {
      /** @description https URL (http too when WEBHOOK_ALLOW_PRIVATE_NETWORKS is true) */
      url: string;
      /** @description event types to send; null or omitted: all of them */
      events?:
        | ('run.succeeded' | 'run.failed' | 'job.paused' | 'budget.warning' | 'channel.disabled')[]
        | null;
      /** @description only this job's runs */
      job_id?: string | null;
      description?: string;
      /** @description default true */
      enabled?: boolean;
    };
    /** @description at least one field */
    WebhookPatch: {
      url?: string;
      /** @description event types to send; null or omitted: all of them */
      events?:
        | ('run.succeeded' | 'run.failed' | 'job.paused' | 'budget.warning' | 'channel.disabled')[]
        | null;
      job_id?: string | null;
      description?: string;
      /** @description true also clears disabled_reason */
      enabled?: boolean;
    };
    ChannelCreate: {
      /** @enum {string} */
      kind: 'email' | 'slack' | 'discord' | 'telegram' | 'teams';
      name: string;
      /** @description by kind: slack, discord, teams `{url}`; telegram `{bot_token: "{{secrets.NAME}}", chat_id}`; email `{to: [..], smtp?: {host, port?, security?, username?, password?: "{{secrets.NAME}}", from}}` (docs/channels.md) */
      config: {
        [key: string]: unknown;
      };
      /** @description default true */
      enabled?: boolean;
    };
    /** @description at least one field */
    ChannelPatch: {
      name?: string;
      /** @description the whole config; by kind: slack, discord, teams `{url}`; telegram `{bot_token: "{{secrets.NAME}}", chat_id}`; email `{to: [..], smtp?: {host, port?, security?, username?, password?: "{{secrets.NAME}}", from}}` (docs/channels.md) */
      config?: {
        [key: string]: unknown;
      };
      /** @description true also clears disabled_reason */
      enabled?: boolean;
    };
  };
  responses: never;
  parameters: never;
  requestBodies: never;
  headers: never;
  pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
  getMetrics: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description The metrics */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'text/plain': string;
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getLiveness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Liveness'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getReadiness: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Readiness'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not ready: the database does not answer */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Readiness'];
        };
      };
    };
  };
  getModelHealth: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ModelHealth'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The model server does not answer */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ModelHealth'];
        };
      };
    };
  };
  listTenants: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TenantList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createTenant: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TenantCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Tenant'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Tenant'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateTenant: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TenantPatch'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Tenant'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listApiKeys: {
    parameters: {
      query?: {
        /** @description only this tenant’s keys */
        tenant_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ApiKeyCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyCreated'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listTenantApiKeys: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createTenantApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['TenantApiKeyCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ApiKeyCreated'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  revokeTenantApiKey: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSignInOptions: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SignInOptions'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  startSignIn: {
    parameters: {
      query?: {
        return_to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description to the provider */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The model server failed or answered badly */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  finishSignIn: {
    parameters: {
      query?: {
        code?: string;
        state?: string;
        error?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description to the dashboard */
      302: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSessionMe: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionMe'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  chooseSessionTenant: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChooseTenant'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SessionMe'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  signOut: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listMembers: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['MemberList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  removeMember: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the user id (a UUID) */
        userId: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateMemberRole: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the user id (a UUID) */
        userId: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['MemberRoleUpdate'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Member'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listInvitations: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['InvitationList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['InvitationCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Invitation'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createTenantInvitation: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['InvitationCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Invitation'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCronJobs: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description `key=value` (that label) or `key` (has the label); repeat to require all */
        label?: string | string[];
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CronJobPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CronJobCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CronJob'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  previewSchedule: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SchedulePreviewRequest'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SchedulePreview'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CronJob'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['CronJobPatch'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CronJob'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  triggerCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['TriggerAccepted'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCronJobRuns: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description only runs in this status */
        status?: 'queued' | 'claimed' | 'running' | 'success' | 'failed';
      };
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listRuns: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description only runs in this status */
        status?: 'queued' | 'claimed' | 'running' | 'success' | 'failed';
        /** @description only failed runs of this kind */
        error_kind?:
          | 'timeout'
          | 'pod_lost'
          | 'shutdown'
          | 'model_throttled'
          | 'model_error'
          | 'model_unreachable'
          | 'bad_response'
          | 'agent_error'
          | 'lock_lost'
          | 'not_recorded'
          | 'result_not_stored'
          | 'tool_limit'
          | 'cancelled'
          | 'result_quota'
          | 'invalid_output'
          | 'budget_exhausted';
        /** @description only runs of this origin */
        origin?: 'scheduled' | 'manual' | 'catch_up' | 'backfill';
        /** @description only runs of this job */
        job_id?: string;
        /** @description `key=value` (that label) or `key` (has the label); repeat to require all */
        label?: string | string[];
        /** @description only occurrences scheduled at or after this time */
        from?: string;
        /** @description only occurrences scheduled before this time */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunListPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  cancelRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['CancelAccepted'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['RunDetail'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  backfillCronJob: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['BackfillRequest'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['BackfillAnswer'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  retryRun: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Run'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listModels: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ModelList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getModel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Model'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createChatCompletion: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          model?: string;
          messages: {
            /** @enum {string} */
            role: 'system' | 'user' | 'assistant' | 'tool' | 'developer';
            content?:
              | string
              | {
                  type: string;
                  text?: string;
                }[]
              | null;
            name?: string;
            tool_calls?: unknown[];
            tool_call_id?: string;
          }[];
          stream?: boolean;
          stream_options?: {
            include_usage?: boolean;
          } | null;
          temperature?: number;
          max_tokens?: number | null;
          max_completion_tokens?: number | null;
          /** @description json_object: the answer is a JSON object; json_schema: it validates against the schema (draft 2020-12, at most 16 KiB), after one repair turn at most, else 422 invalid_output */
          response_format?:
            | (
                | {
                    /** @enum {string} */
                    type: 'text';
                  }
                | {
                    /** @enum {string} */
                    type: 'json_object';
                  }
                | {
                    /** @enum {string} */
                    type: 'json_schema';
                    json_schema: {
                      name: string;
                      description?: string;
                      schema: {
                        [key: string]: unknown;
                      };
                      strict?: boolean | null;
                    };
                  }
              )
            | null;
        };
      };
    };
    responses: {
      /** @description The answer: JSON, or server-sent events when `stream` is true */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChatCompletion'];
          'text/event-stream': string;
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The model server failed or answered badly */
      502: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The model server did not answer in time */
      504: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getUsage: {
    parameters: {
      query?: {
        /** @description comma-separated, at most two of day, job, model, origin (admin: also tenant) */
        group_by?: string;
        /** @description inclusive; default: the start of the UTC month */
        from?: string;
        /** @description exclusive; default: now */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageReport'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getUsageBudget: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageBudget'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAdminUsage: {
    parameters: {
      query?: {
        /** @description comma-separated, at most two of day, job, model, origin (admin: also tenant) */
        group_by?: string;
        /** @description inclusive; default: the start of the UTC month */
        from?: string;
        /** @description exclusive; default: now */
        to?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageReport'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listModelPrices: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': {
            data: components['schemas']['ModelPrice'][];
          };
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putModelPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        model: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          /** @description micro-dollars per million uncached prompt tokens */
          input: number;
          /** @description micro-dollars per million cached prompt tokens */
          cached_input: number;
          /** @description micro-dollars per million completion tokens */
          output: number;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ModelPrice'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteModelPrice: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        model: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Default Response */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getTenantBudget: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageBudget'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putTenantBudget: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': {
          monthly_budget_micros: number | null;
          monthly_budget_tokens: number | null;
        };
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['UsageBudget'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description letters, digits and underscores, e.g. SLACK_TOKEN */
        name: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SecretPut'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Secret'];
        };
      };
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Secret'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description letters, digits and underscores, e.g. SLACK_TOKEN */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSecrets: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SecretList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getSkill: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description lower-case letters, digits and hyphens, e.g. daily-summary */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Skill'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putSkill: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description lower-case letters, digits and hyphens, e.g. daily-summary */
        name: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['SkillPut'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SkillSummary'];
        };
      };
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SkillSummary'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteSkill: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description lower-case letters, digits and hyphens, e.g. daily-summary */
        name: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listSkills: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['SkillList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Not available right now (the scheduler waits for Redis); retry shortly */
      503: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listMcpServers: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['McpServerList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createMcpServer: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['McpServerCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['McpServerCreated'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getMcpServer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['McpServer'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteMcpServer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  patchMcpServer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['McpServerPatch'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['McpServer'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  testMcpServer: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['McpServerTest'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getAgentSettings: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AgentSettings'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getTenantAgentSettings: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AgentSettings'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putTenantAgentSettings: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['AgentSettingsPut'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['AgentSettings'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listRunToolCalls: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ToolCallList'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listWebhooks: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description only the endpoints attached to this job */
        job_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecret'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Webhook'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['WebhookPatch'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Webhook'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  rotateWebhookSecret: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookWithSecret'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listWebhookDeliveries: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveryPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listCronJobDeliveries: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDeliveryPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  redeliverWebhook: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['WebhookDelivery'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listChannels: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  createChannel: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChannelCreate'];
      };
    };
    responses: {
      /** @description Created */
      201: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Channel'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getChannelRules: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelRules'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  putChannelRules: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChannelRulesInput'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelRules'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getChannel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Channel'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  deleteChannel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description done; no body */
      204: {
        headers: {
          [name: string]: unknown;
        };
        content?: never;
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  updateChannel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody: {
      content: {
        'application/json': components['schemas']['ChannelPatch'];
      };
    };
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Channel'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is larger than 256 KiB */
      413: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The body is not application/json */
      415: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The schedule, timezone, webhook URL, model or a limit cannot be used (error.code says which) */
      422: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  testChannel: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelTestResult'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listChannelDeliveries: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelDeliveryPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listRunChannelDeliveries: {
    parameters: {
      query?: {
        /** @description page size, 1 to 100 (default 20) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
      };
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelDeliveryPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  redeliverChannelDelivery: {
    parameters: {
      query?: never;
      header?: never;
      path: {
        /** @description the id (a UUID) */
        id: string;
      };
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Accepted */
      202: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['ChannelRedelivered'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description No such resource (for this tenant) */
      404: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Conflicts with the current state (quota reached, job disabled, Idempotency-Key reused) */
      409: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description A path parameter is longer than 100 characters */
      414: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listAuditLog: {
    parameters: {
      query?: {
        /** @description `key:<id>`, `user:<id>`, `admin`, `system`, `default_key`, or a key name / user email */
        actor?: string;
        /** @description e.g. job.update, secret.set */
        action?: string;
        /** @description e.g. job, secret, webhook, api_key */
        target_type?: string;
        target_id?: string;
        /** @description entries at or after this instant */
        from?: string;
        /** @description entries before this instant */
        to?: string;
        /** @description page size, 1 to 200 (default 50) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description ndjson: every matching entry, one JSON object a line (as /v1/audit-log/export) */
        format?: 'json' | 'ndjson';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of entries (JSON), or every matching entry with format=ndjson */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-ndjson': string;
          'application/json': components['schemas']['AuditPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  exportAuditLog: {
    parameters: {
      query?: {
        /** @description `key:<id>`, `user:<id>`, `admin`, `system`, `default_key`, or a key name / user email */
        actor?: string;
        /** @description e.g. job.update, secret.set */
        action?: string;
        /** @description e.g. job, secret, webhook, api_key */
        target_type?: string;
        target_id?: string;
        /** @description entries at or after this instant */
        from?: string;
        /** @description entries before this instant */
        to?: string;
        /** @description page size, 1 to 200 (default 50) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description ndjson: every matching entry, one JSON object a line (as /v1/audit-log/export) */
        format?: 'json' | 'ndjson';
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description Every matching entry, newest first, as NDJSON */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-ndjson': string;
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  listAdminAuditLog: {
    parameters: {
      query?: {
        /** @description `key:<id>`, `user:<id>`, `admin`, `system`, `default_key`, or a key name / user email */
        actor?: string;
        /** @description e.g. job.update, secret.set */
        action?: string;
        /** @description e.g. job, secret, webhook, api_key */
        target_type?: string;
        target_id?: string;
        /** @description entries at or after this instant */
        from?: string;
        /** @description entries before this instant */
        to?: string;
        /** @description page size, 1 to 200 (default 50) */
        limit?: number;
        /** @description `next_cursor` of the previous page; omit for the first page */
        cursor?: string;
        /** @description ndjson: every matching entry, one JSON object a line (as /v1/audit-log/export) */
        format?: 'json' | 'ndjson';
        /** @description only this tenant’s entries */
        tenant_id?: string;
      };
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description A page of entries (JSON), or every matching entry with format=ndjson */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/x-ndjson': string;
          'application/json': components['schemas']['AuditPage'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
  getCluster: {
    parameters: {
      query?: never;
      header?: never;
      path?: never;
      cookie?: never;
    };
    requestBody?: never;
    responses: {
      /** @description OK */
      200: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Cluster'];
        };
      };
      /** @description Bad request: the body, query or URL is invalid (error.code says which rule) */
      400: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Missing or invalid bearer token */
      401: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description The token cannot use this route (admin token vs tenant API key) */
      403: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Too many requests; retry after the Retry-After header */
      429: {
        headers: {
          /** @description seconds until a request may succeed */
          'Retry-After': number;
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
      /** @description Unexpected server error (details are in the log, not the answer) */
      500: {
        headers: {
          [name: string]: unknown;
        };
        content: {
          'application/json': components['schemas']['Error'];
        };
      };
    };
  };
}
