-- The schema in force after every migration (generated: npm run schema:dump; do not edit).

-- columns
api_keys.id uuid NOT NULL DEFAULT gen_random_uuid()
api_keys.tenant_id uuid NOT NULL
api_keys.name text NOT NULL
api_keys.key_hash text NOT NULL
api_keys.key_prefix text NOT NULL
api_keys.expires_at timestamp with time zone
api_keys.revoked_at timestamp with time zone
api_keys.created_at timestamp with time zone NOT NULL DEFAULT now()
api_keys.scopes text[]
api_keys.last_used_at timestamp with time zone
audit_log.id uuid NOT NULL DEFAULT gen_random_uuid()
audit_log.at timestamp with time zone NOT NULL DEFAULT clock_timestamp()
audit_log.tenant_id uuid
audit_log.actor_type text NOT NULL
audit_log.actor_id text
audit_log.actor_name text
audit_log.actor_reason text
audit_log.source_address text
audit_log.request_id text
audit_log.action text NOT NULL
audit_log.target_type text NOT NULL
audit_log.target_id text
audit_log.change jsonb
channel_deliveries.id uuid NOT NULL DEFAULT gen_random_uuid()
channel_deliveries.tenant_id uuid NOT NULL
channel_deliveries.channel_id uuid NOT NULL
channel_deliveries.cron_job_id uuid
channel_deliveries.run_id uuid
channel_deliveries.run_status text
channel_deliveries.reason text NOT NULL
channel_deliveries.payload jsonb NOT NULL
channel_deliveries.status text NOT NULL DEFAULT 'pending'::text
channel_deliveries.attempts integer NOT NULL DEFAULT 0
channel_deliveries.next_attempt_at timestamp with time zone NOT NULL DEFAULT now()
channel_deliveries.leased_by text
channel_deliveries.last_status_code integer
channel_deliveries.last_error text
channel_deliveries.last_response text
channel_deliveries.created_at timestamp with time zone NOT NULL DEFAULT now()
channel_deliveries.delivered_at timestamp with time zone
channel_deliveries.updated_at timestamp with time zone NOT NULL DEFAULT now()
channel_delivery_attempts.id bigint NOT NULL
channel_delivery_attempts.delivery_id uuid NOT NULL
channel_delivery_attempts.tenant_id uuid NOT NULL
channel_delivery_attempts.attempt integer NOT NULL
channel_delivery_attempts.attempted_at timestamp with time zone NOT NULL DEFAULT now()
channel_delivery_attempts.duration_ms integer NOT NULL
channel_delivery_attempts.status_code integer
channel_delivery_attempts.error text
channel_delivery_attempts.outcome text NOT NULL
channel_delivery_attempts.next_attempt_at timestamp with time zone
channel_delivery_attempts.pod_id text NOT NULL
cron_job_runs.id uuid NOT NULL DEFAULT gen_random_uuid()
cron_job_runs.cron_job_id uuid NOT NULL
cron_job_runs.tenant_id uuid NOT NULL
cron_job_runs.scheduled_at timestamp with time zone NOT NULL
cron_job_runs.started_at timestamp with time zone NOT NULL DEFAULT now()
cron_job_runs.finished_at timestamp with time zone
cron_job_runs.status text NOT NULL DEFAULT 'running'::text
cron_job_runs.result text
cron_job_runs.error text
cron_job_runs.duration_ms integer
cron_job_runs.pod_id text
cron_job_runs.created_at timestamp with time zone NOT NULL DEFAULT now()
cron_job_runs.error_kind text
cron_job_runs.attempts integer NOT NULL DEFAULT 0
cron_job_runs.result_object_key text
cron_job_runs.result_bytes integer
cron_job_runs.result_truncated boolean NOT NULL DEFAULT false
cron_job_runs.origin text NOT NULL DEFAULT 'scheduled'::text
cron_job_runs.model_called_at timestamp with time zone
cron_job_runs.detail jsonb
cron_job_runs.attempt integer NOT NULL DEFAULT 1
cron_job_runs.not_before timestamp with time zone
cron_job_runs.previous_attempts jsonb NOT NULL DEFAULT '[]'::jsonb
cron_job_runs.output jsonb
cron_job_runs.prompt_tokens integer
cron_job_runs.cached_tokens integer
cron_job_runs.completion_tokens integer
cron_job_runs.cost_micros bigint
cron_job_runs.cancel_requested_at timestamp with time zone
cron_job_runs_in_flight.run_id uuid NOT NULL
cron_job_runs_in_flight.cron_job_id uuid NOT NULL
cron_job_runs_in_flight.tenant_id uuid NOT NULL
cron_job_runs_in_flight.scheduled_at timestamp with time zone NOT NULL
cron_jobs.id uuid NOT NULL DEFAULT gen_random_uuid()
cron_jobs.tenant_id uuid NOT NULL
cron_jobs.name text NOT NULL
cron_jobs.schedule text NOT NULL
cron_jobs.timezone text NOT NULL DEFAULT 'UTC'::text
cron_jobs.prompt text NOT NULL
cron_jobs.enabled boolean NOT NULL DEFAULT true
cron_jobs.next_run_at timestamp with time zone
cron_jobs.last_run_at timestamp with time zone
cron_jobs.last_run_success boolean
cron_jobs.last_run_error text
cron_jobs.run_count bigint NOT NULL DEFAULT 0
cron_jobs.due_from timestamp with time zone NOT NULL DEFAULT now()
cron_jobs.created_at timestamp with time zone NOT NULL DEFAULT now()
cron_jobs.updated_at timestamp with time zone NOT NULL DEFAULT now()
cron_jobs.last_run_error_kind text
cron_jobs.last_triggered_at timestamp with time zone
cron_jobs.skills text[] NOT NULL DEFAULT '{}'::text[]
cron_jobs.context_previous_result boolean NOT NULL DEFAULT false
cron_jobs.labels jsonb NOT NULL DEFAULT '{}'::jsonb
cron_jobs.paused_reason text
cron_jobs.paused_at timestamp with time zone
cron_jobs.paused_by text
cron_jobs.stopped_by text
cron_jobs.pause_after_failures integer
cron_jobs.consecutive_failures integer NOT NULL DEFAULT 0
cron_jobs.ends_at timestamp with time zone
cron_jobs.max_runs bigint
cron_jobs.timeout_ms integer
cron_jobs.model text
cron_jobs.jitter_ms integer
cron_jobs.retry_max_attempts integer
cron_jobs.retry_backoff_ms integer
cron_jobs.retry_after_side_effects boolean NOT NULL DEFAULT false
cron_jobs.overlap text NOT NULL DEFAULT 'skip'::text
cron_jobs.deleted_at timestamp with time zone
cron_jobs.description text
cron_jobs.mcp_servers text[] DEFAULT '{}'::text[]
cron_jobs.output_schema jsonb
cron_jobs.models text[]
cron_jobs.notify_rules jsonb
cron_jobs.max_run_tokens integer
cron_jobs.daily_budget_micros bigint
cron_jobs.budget_resets_at timestamp with time zone
cron_run_tool_calls.run_id uuid NOT NULL
cron_run_tool_calls.seq integer NOT NULL
cron_run_tool_calls.tenant_id uuid NOT NULL
cron_run_tool_calls.tool text NOT NULL
cron_run_tool_calls.arguments jsonb NOT NULL
cron_run_tool_calls.status text NOT NULL
cron_run_tool_calls.error text
cron_run_tool_calls.http_status integer
cron_run_tool_calls.duration_ms integer NOT NULL
cron_run_tool_calls.request_bytes integer NOT NULL DEFAULT 0
cron_run_tool_calls.response_bytes integer NOT NULL DEFAULT 0
cron_run_tool_calls.created_at timestamp with time zone NOT NULL DEFAULT now()
cron_run_tool_calls.side_effects boolean
cron_run_tool_calls.call_position integer
cron_run_tool_calls.result text
idempotency_keys.tenant_id uuid NOT NULL
idempotency_keys.scope text NOT NULL
idempotency_keys.key text NOT NULL
idempotency_keys.request_hash text NOT NULL
idempotency_keys.status_code integer
idempotency_keys.response jsonb
idempotency_keys.created_at timestamp with time zone NOT NULL DEFAULT now()
installation.id uuid NOT NULL DEFAULT gen_random_uuid()
installation.singleton boolean NOT NULL DEFAULT true
installation.created_at timestamp with time zone NOT NULL DEFAULT now()
mcp_servers.id uuid NOT NULL DEFAULT gen_random_uuid()
mcp_servers.tenant_id uuid NOT NULL
mcp_servers.name text NOT NULL
mcp_servers.url text NOT NULL
mcp_servers.headers jsonb NOT NULL DEFAULT '{}'::jsonb
mcp_servers.allowed_tools text[]
mcp_servers.description text NOT NULL DEFAULT ''::text
mcp_servers.created_at timestamp with time zone NOT NULL DEFAULT now()
mcp_servers.updated_at timestamp with time zone NOT NULL DEFAULT now()
model_prices.model text NOT NULL
model_prices.input_micros_per_mtok bigint NOT NULL
model_prices.cached_input_micros_per_mtok bigint NOT NULL
model_prices.output_micros_per_mtok bigint NOT NULL
model_prices.updated_at timestamp with time zone NOT NULL DEFAULT now()
model_usage.id bigint NOT NULL
model_usage.tenant_id uuid NOT NULL
model_usage.cron_job_id uuid
model_usage.run_id uuid
model_usage.origin text NOT NULL
model_usage.model text NOT NULL
model_usage.prompt_tokens integer NOT NULL
model_usage.cached_tokens integer NOT NULL
model_usage.completion_tokens integer NOT NULL
model_usage.cost_micros bigint
model_usage.created_at timestamp with time zone NOT NULL DEFAULT now()
notify_channels.id uuid NOT NULL DEFAULT gen_random_uuid()
notify_channels.tenant_id uuid NOT NULL
notify_channels.kind text NOT NULL
notify_channels.name text NOT NULL
notify_channels.config jsonb NOT NULL
notify_channels.enabled boolean NOT NULL DEFAULT true
notify_channels.disabled_reason text
notify_channels.failing_since timestamp with time zone
notify_channels.created_at timestamp with time zone NOT NULL DEFAULT now()
notify_channels.updated_at timestamp with time zone NOT NULL DEFAULT now()
notify_tenant_rules.id uuid NOT NULL DEFAULT gen_random_uuid()
notify_tenant_rules.tenant_id uuid NOT NULL
notify_tenant_rules.channel_id uuid NOT NULL
notify_tenant_rules.notify_when text NOT NULL
notify_tenant_rules.failures integer
notify_tenant_rules.template text
notify_tenant_rules.position integer NOT NULL DEFAULT 0
notify_tenant_rules.created_at timestamp with time zone NOT NULL DEFAULT now()
schema_functions.name text NOT NULL
schema_functions.checksum text NOT NULL
schema_functions.applied_at timestamp with time zone NOT NULL DEFAULT now()
schema_migrations.version integer NOT NULL
schema_migrations.name text NOT NULL
schema_migrations.checksum text NOT NULL
schema_migrations.applied_at timestamp with time zone NOT NULL DEFAULT now()
tenant_agent_settings.tenant_id uuid NOT NULL
tenant_agent_settings.http_allowed_hosts text[] NOT NULL DEFAULT '{}'::text[]
tenant_agent_settings.updated_at timestamp with time zone NOT NULL DEFAULT now()
tenant_agent_settings.default_models text[] NOT NULL DEFAULT '{}'::text[]
tenant_backfill_days.tenant_id uuid NOT NULL
tenant_backfill_days.day date NOT NULL
tenant_backfill_days.occurrences integer NOT NULL
tenant_invitations.id uuid NOT NULL DEFAULT gen_random_uuid()
tenant_invitations.tenant_id uuid NOT NULL
tenant_invitations.email text NOT NULL
tenant_invitations.role text NOT NULL
tenant_invitations.invited_by uuid
tenant_invitations.created_at timestamp with time zone NOT NULL DEFAULT now()
tenant_invitations.expires_at timestamp with time zone NOT NULL
tenant_invitations.accepted_at timestamp with time zone
tenant_invitations.accepted_by uuid
tenant_members.tenant_id uuid NOT NULL
tenant_members.user_id uuid NOT NULL
tenant_members.role text NOT NULL
tenant_members.invited_by uuid
tenant_members.created_at timestamp with time zone NOT NULL DEFAULT now()
tenant_result_bytes.tenant_id uuid NOT NULL
tenant_result_bytes.runs_partition oid NOT NULL
tenant_result_bytes.bytes bigint NOT NULL
tenant_secrets.tenant_id uuid NOT NULL
tenant_secrets.name text NOT NULL
tenant_secrets.sealed_value bytea NOT NULL
tenant_secrets.created_at timestamp with time zone NOT NULL DEFAULT now()
tenant_secrets.updated_at timestamp with time zone NOT NULL DEFAULT now()
tenant_secrets.allowed_hosts text[] NOT NULL DEFAULT '{}'::text[]
tenant_skills.tenant_id uuid NOT NULL
tenant_skills.name text NOT NULL
tenant_skills.description text NOT NULL
tenant_skills.size_bytes integer NOT NULL
tenant_skills.object_key text NOT NULL
tenant_skills.created_at timestamp with time zone NOT NULL DEFAULT now()
tenant_skills.updated_at timestamp with time zone NOT NULL DEFAULT now()
tenants.id uuid NOT NULL DEFAULT gen_random_uuid()
tenants.name text NOT NULL
tenants.max_cron_jobs integer NOT NULL DEFAULT 50
tenants.min_schedule_interval_seconds integer NOT NULL DEFAULT 60
tenants.rate_limit_rpm integer NOT NULL DEFAULT 600
tenants.created_at timestamp with time zone NOT NULL DEFAULT now()
tenants.updated_at timestamp with time zone NOT NULL DEFAULT now()
tenants.deleted_at timestamp with time zone
tenants.max_concurrent_runs integer DEFAULT 10
tenants.run_retention_days integer NOT NULL DEFAULT 30
tenants.run_context_version bigint NOT NULL DEFAULT 0
tenants.result_bytes_quota bigint
tenants.monthly_budget_micros bigint
tenants.monthly_budget_tokens bigint
tenants.audit_retention_days integer NOT NULL DEFAULT 365
user_sessions.id_hash text NOT NULL
user_sessions.user_id uuid NOT NULL
user_sessions.tenant_id uuid
user_sessions.csrf_hash text NOT NULL
user_sessions.created_at timestamp with time zone NOT NULL DEFAULT now()
user_sessions.last_seen_at timestamp with time zone NOT NULL DEFAULT now()
user_sessions.idle_expires_at timestamp with time zone NOT NULL
user_sessions.absolute_expires_at timestamp with time zone NOT NULL
user_sessions.revoked_at timestamp with time zone
users.id uuid NOT NULL DEFAULT gen_random_uuid()
users.issuer text NOT NULL
users.subject text NOT NULL
users.email text
users.email_verified boolean NOT NULL DEFAULT false
users.name text
users.platform_role text
users.created_at timestamp with time zone NOT NULL DEFAULT now()
users.last_sign_in_at timestamp with time zone
webhook_deliveries.id uuid NOT NULL DEFAULT gen_random_uuid()
webhook_deliveries.tenant_id uuid NOT NULL
webhook_deliveries.endpoint_id uuid NOT NULL
webhook_deliveries.cron_job_id uuid
webhook_deliveries.run_id uuid
webhook_deliveries.event_type text NOT NULL
webhook_deliveries.status text NOT NULL DEFAULT 'pending'::text
webhook_deliveries.attempts integer NOT NULL DEFAULT 0
webhook_deliveries.next_attempt_at timestamp with time zone NOT NULL DEFAULT now()
webhook_deliveries.leased_by text
webhook_deliveries.last_status_code integer
webhook_deliveries.last_error text
webhook_deliveries.created_at timestamp with time zone NOT NULL DEFAULT now()
webhook_deliveries.delivered_at timestamp with time zone
webhook_deliveries.updated_at timestamp with time zone NOT NULL DEFAULT now()
webhook_deliveries.payload jsonb
webhook_delivery_attempts.id bigint NOT NULL
webhook_delivery_attempts.delivery_id uuid NOT NULL
webhook_delivery_attempts.tenant_id uuid NOT NULL
webhook_delivery_attempts.attempt integer NOT NULL
webhook_delivery_attempts.attempted_at timestamp with time zone NOT NULL DEFAULT now()
webhook_delivery_attempts.duration_ms integer NOT NULL
webhook_delivery_attempts.status_code integer
webhook_delivery_attempts.error text
webhook_delivery_attempts.outcome text NOT NULL
webhook_delivery_attempts.next_attempt_at timestamp with time zone
webhook_delivery_attempts.pod_id text NOT NULL
webhook_endpoints.id uuid NOT NULL DEFAULT gen_random_uuid()
webhook_endpoints.tenant_id uuid NOT NULL
webhook_endpoints.url text NOT NULL
webhook_endpoints.description text NOT NULL DEFAULT ''::text
webhook_endpoints.events text[] NOT NULL DEFAULT '{}'::text[]
webhook_endpoints.cron_job_id uuid
webhook_endpoints.enabled boolean NOT NULL DEFAULT true
webhook_endpoints.disabled_reason text
webhook_endpoints.secret text
webhook_endpoints.previous_secret text
webhook_endpoints.previous_secret_expires_at timestamp with time zone
webhook_endpoints.failing_since timestamp with time zone
webhook_endpoints.created_at timestamp with time zone NOT NULL DEFAULT now()
webhook_endpoints.updated_at timestamp with time zone NOT NULL DEFAULT now()
webhook_endpoints.secret_sealed bytea
webhook_endpoints.previous_secret_sealed bytea

-- constraints
api_keys api_keys_key_hash_key UNIQUE (key_hash)
api_keys api_keys_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
api_keys api_keys_pkey PRIMARY KEY (id)
api_keys api_keys_scopes_check CHECK (((scopes IS NULL) OR ((cardinality(scopes) >= 1) AND (cardinality(scopes) <= 64))))
api_keys api_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
audit_log audit_log_action_check CHECK (((action ~ '^[a-z_]+\.[a-z_]+$'::text) AND (length(action) <= 64)))
audit_log audit_log_actor_id_check CHECK ((length(actor_id) <= 200))
audit_log audit_log_actor_name_check CHECK ((length(actor_name) <= 320))
audit_log audit_log_actor_reason_check CHECK ((length(actor_reason) <= 200))
audit_log audit_log_actor_type_check CHECK ((actor_type = ANY (ARRAY['admin'::text, 'default_key'::text, 'key'::text, 'user'::text, 'system'::text])))
audit_log audit_log_change_check CHECK ((octet_length((change)::text) <= 65536))
audit_log audit_log_check CHECK (((actor_type = 'system'::text) = (actor_reason IS NOT NULL)))
audit_log audit_log_pkey PRIMARY KEY (id, at)
audit_log audit_log_request_id_check CHECK ((length(request_id) <= 100))
audit_log audit_log_source_address_check CHECK ((length(source_address) <= 64))
audit_log audit_log_target_id_check CHECK ((length(target_id) <= 200))
audit_log audit_log_target_type_check CHECK (((length(target_type) >= 1) AND (length(target_type) <= 64)))
channel_deliveries channel_deliveries_attempts_check CHECK ((attempts >= 0))
channel_deliveries channel_deliveries_channel_id_run_id_run_status_key UNIQUE (channel_id, run_id, run_status)
channel_deliveries channel_deliveries_channel_id_tenant_id_fkey FOREIGN KEY (channel_id, tenant_id) REFERENCES notify_channels(id, tenant_id) ON DELETE CASCADE
channel_deliveries channel_deliveries_last_error_check CHECK ((length(last_error) <= 1024))
channel_deliveries channel_deliveries_last_response_check CHECK ((length(last_response) <= 1024))
channel_deliveries channel_deliveries_payload_check CHECK ((octet_length((payload)::text) <= 65536))
channel_deliveries channel_deliveries_pkey PRIMARY KEY (id)
channel_deliveries channel_deliveries_reason_check CHECK ((reason = ANY (ARRAY['always'::text, 'failed'::text, 'recovered'::text, 'changed'::text, 'agent'::text, 'failures'::text, 'system_paused'::text])))
channel_deliveries channel_deliveries_run_status_check CHECK ((run_status = ANY (ARRAY['success'::text, 'failed'::text])))
channel_deliveries channel_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text, 'cancelled'::text])))
channel_delivery_attempts channel_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES channel_deliveries(id) ON DELETE CASCADE
channel_delivery_attempts channel_delivery_attempts_error_check CHECK ((length(error) <= 1024))
channel_delivery_attempts channel_delivery_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['delivered'::text, 'retry'::text, 'failed'::text, 'refused'::text])))
channel_delivery_attempts channel_delivery_attempts_pkey PRIMARY KEY (id)
cron_job_runs cron_job_runs_attempt_check CHECK (((attempt >= 1) AND (attempt <= 100)))
cron_job_runs cron_job_runs_attempts_check1 CHECK ((attempts >= 0))
cron_job_runs cron_job_runs_cron_job_id_scheduled_at_key UNIQUE (cron_job_id, scheduled_at)
cron_job_runs cron_job_runs_cron_job_id_tenant_id_fkey1 FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs(id, tenant_id) ON DELETE CASCADE
cron_job_runs cron_job_runs_detail_check CHECK ((octet_length((detail)::text) <= 262144))
cron_job_runs cron_job_runs_error_check1 CHECK ((length(error) <= 1024))
cron_job_runs cron_job_runs_error_kind_check CHECK ((error_kind = ANY (ARRAY['timeout'::text, 'pod_lost'::text, 'shutdown'::text, 'model_throttled'::text, 'model_error'::text, 'model_unreachable'::text, 'bad_response'::text, 'agent_error'::text, 'lock_lost'::text, 'not_recorded'::text, 'result_not_stored'::text, 'tool_limit'::text, 'cancelled'::text, 'result_quota'::text, 'invalid_output'::text, 'budget_exhausted'::text])))
cron_job_runs cron_job_runs_origin_check CHECK ((origin = ANY (ARRAY['scheduled'::text, 'manual'::text, 'catch_up'::text, 'backfill'::text])))
cron_job_runs cron_job_runs_output_check CHECK (((output IS NULL) OR (octet_length((output)::text) <= 32768)))
cron_job_runs cron_job_runs_pkey PRIMARY KEY (id, scheduled_at)
cron_job_runs cron_job_runs_previous_attempts_check CHECK ((jsonb_typeof(previous_attempts) = 'array'::text))
cron_job_runs cron_job_runs_queued_not_before CHECK (((status <> 'queued'::text) OR ((not_before IS NOT NULL) AND (pod_id IS NULL))))
cron_job_runs cron_job_runs_result_bytes_check CHECK ((result_bytes >= 0))
cron_job_runs cron_job_runs_result_inline_check CHECK ((octet_length(result) <= 8192))
cron_job_runs cron_job_runs_result_object_key_check CHECK ((length(result_object_key) <= 512))
cron_job_runs cron_job_runs_status_check CHECK ((status = ANY (ARRAY['queued'::text, 'claimed'::text, 'running'::text, 'success'::text, 'failed'::text])))
cron_job_runs_in_flight cron_job_runs_in_flight_pkey PRIMARY KEY (run_id)
cron_jobs cron_jobs_consecutive_failures_check CHECK ((consecutive_failures >= 0))
cron_jobs cron_jobs_daily_budget_micros_check CHECK ((daily_budget_micros >= 0))
cron_jobs cron_jobs_description_check CHECK ((length(description) <= 2000))
cron_jobs cron_jobs_id_tenant_id_key UNIQUE (id, tenant_id)
cron_jobs cron_jobs_jitter_ms_check CHECK (((jitter_ms >= 1000) AND (jitter_ms <= 3600000)))
cron_jobs cron_jobs_labels_check CHECK ((jsonb_typeof(labels) = 'object'::text))
cron_jobs cron_jobs_max_run_tokens_check CHECK ((max_run_tokens >= 1))
cron_jobs cron_jobs_max_runs_check CHECK ((max_runs >= 1))
cron_jobs cron_jobs_mcp_servers_check CHECK ((cardinality(mcp_servers) <= 16))
cron_jobs cron_jobs_model_check CHECK (((length(model) >= 1) AND (length(model) <= 200)))
cron_jobs cron_jobs_models_check CHECK ((cardinality(models) <= 8))
cron_jobs cron_jobs_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
cron_jobs cron_jobs_notify_rules_check CHECK (((notify_rules IS NULL) OR ((jsonb_typeof(notify_rules) = 'array'::text) AND (jsonb_array_length(notify_rules) <= 10) AND (octet_length((notify_rules)::text) <= 20000))))
cron_jobs cron_jobs_output_schema_check CHECK (((output_schema IS NULL) OR ((jsonb_typeof(output_schema) = 'object'::text) AND (octet_length((output_schema)::text) <= 16384))))
cron_jobs cron_jobs_overlap_check CHECK ((overlap = ANY (ARRAY['skip'::text, 'buffer_one'::text, 'allow_all'::text, 'cancel_other'::text])))
cron_jobs cron_jobs_pause_after_failures_check CHECK (((pause_after_failures >= 1) AND (pause_after_failures <= 1000)))
cron_jobs cron_jobs_paused_by_check CHECK ((paused_by = ANY (ARRAY['user'::text, 'system'::text])))
cron_jobs cron_jobs_paused_reason_check CHECK ((length(paused_reason) <= 500))
cron_jobs cron_jobs_pkey PRIMARY KEY (id)
cron_jobs cron_jobs_prompt_check CHECK (((length(prompt) >= 1) AND (length(prompt) <= 16384)))
cron_jobs cron_jobs_retry_backoff_ms_check CHECK (((retry_backoff_ms >= 1000) AND (retry_backoff_ms <= 3600000)))
cron_jobs cron_jobs_retry_max_attempts_check CHECK (((retry_max_attempts >= 1) AND (retry_max_attempts <= 10)))
cron_jobs cron_jobs_retry_whole CHECK (((retry_max_attempts IS NULL) = (retry_backoff_ms IS NULL)))
cron_jobs cron_jobs_schedule_check CHECK (((length(schedule) >= 1) AND (length(schedule) <= 200)))
cron_jobs cron_jobs_skills_check CHECK ((cardinality(skills) <= 8))
cron_jobs cron_jobs_stopped_by_check CHECK ((stopped_by = ANY (ARRAY['max_runs'::text, 'pause_after_failures'::text, 'budget'::text])))
cron_jobs cron_jobs_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
cron_jobs cron_jobs_timeout_ms_check CHECK ((timeout_ms >= 1000))
cron_jobs cron_jobs_timezone_check CHECK (((length(timezone) >= 1) AND (length(timezone) <= 64)))
cron_run_tool_calls cron_run_tool_calls_arguments_check CHECK ((octet_length((arguments)::text) <= 16384))
cron_run_tool_calls cron_run_tool_calls_call_position_check CHECK ((call_position >= 1))
cron_run_tool_calls cron_run_tool_calls_duration_ms_check CHECK ((duration_ms >= 0))
cron_run_tool_calls cron_run_tool_calls_error_check CHECK ((length(error) <= 1024))
cron_run_tool_calls cron_run_tool_calls_pkey PRIMARY KEY (run_id, seq)
cron_run_tool_calls cron_run_tool_calls_request_bytes_check CHECK ((request_bytes >= 0))
cron_run_tool_calls cron_run_tool_calls_response_bytes_check CHECK ((response_bytes >= 0))
cron_run_tool_calls cron_run_tool_calls_result_check CHECK ((octet_length(result) <= 65536))
cron_run_tool_calls cron_run_tool_calls_seq_check CHECK ((seq >= 1))
cron_run_tool_calls cron_run_tool_calls_status_check CHECK ((status = ANY (ARRAY['ok'::text, 'error'::text, 'refused'::text, 'limit'::text, 'started'::text, 'replayed'::text])))
cron_run_tool_calls cron_run_tool_calls_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
cron_run_tool_calls cron_run_tool_calls_tool_check CHECK ((length(tool) <= 100))
idempotency_keys idempotency_keys_pkey PRIMARY KEY (tenant_id, scope, key)
idempotency_keys idempotency_keys_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
installation installation_pkey PRIMARY KEY (id)
installation installation_singleton_check CHECK (singleton)
installation installation_singleton_key UNIQUE (singleton)
mcp_servers mcp_servers_allowed_tools_check CHECK ((cardinality(allowed_tools) <= 256))
mcp_servers mcp_servers_description_check CHECK ((length(description) <= 500))
mcp_servers mcp_servers_headers_check CHECK (((jsonb_typeof(headers) = 'object'::text) AND (octet_length((headers)::text) <= 16384)))
mcp_servers mcp_servers_name_check CHECK ((name ~ '^[a-z0-9][a-z0-9_-]{0,23}$'::text))
mcp_servers mcp_servers_pkey PRIMARY KEY (id)
mcp_servers mcp_servers_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
mcp_servers mcp_servers_tenant_id_name_key UNIQUE (tenant_id, name)
mcp_servers mcp_servers_url_check CHECK ((length(url) <= 2048))
model_prices model_prices_cached_input_micros_per_mtok_check CHECK ((cached_input_micros_per_mtok >= 0))
model_prices model_prices_input_micros_per_mtok_check CHECK ((input_micros_per_mtok >= 0))
model_prices model_prices_model_check CHECK (((length(model) >= 1) AND (length(model) <= 200)))
model_prices model_prices_output_micros_per_mtok_check CHECK ((output_micros_per_mtok >= 0))
model_prices model_prices_pkey PRIMARY KEY (model)
model_usage model_usage_cached_tokens_check CHECK ((cached_tokens >= 0))
model_usage model_usage_completion_tokens_check CHECK ((completion_tokens >= 0))
model_usage model_usage_cost_micros_check CHECK ((cost_micros >= 0))
model_usage model_usage_model_check CHECK ((length(model) <= 200))
model_usage model_usage_origin_check CHECK ((origin = ANY (ARRAY['scheduled'::text, 'manual'::text, 'catch_up'::text, 'backfill'::text, 'chat'::text])))
model_usage model_usage_pkey PRIMARY KEY (id)
model_usage model_usage_prompt_tokens_check CHECK ((prompt_tokens >= 0))
notify_channels notify_channels_config_check CHECK (((jsonb_typeof(config) = 'object'::text) AND (octet_length((config)::text) <= 8192)))
notify_channels notify_channels_disabled_reason_check CHECK ((disabled_reason = 'failing'::text))
notify_channels notify_channels_id_tenant_id_key UNIQUE (id, tenant_id)
notify_channels notify_channels_kind_check CHECK ((kind = ANY (ARRAY['email'::text, 'slack'::text, 'discord'::text, 'telegram'::text, 'teams'::text])))
notify_channels notify_channels_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
notify_channels notify_channels_pkey PRIMARY KEY (id)
notify_channels notify_channels_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
notify_tenant_rules notify_tenant_rules_channel_id_tenant_id_fkey FOREIGN KEY (channel_id, tenant_id) REFERENCES notify_channels(id, tenant_id) ON DELETE CASCADE
notify_tenant_rules notify_tenant_rules_check CHECK (((notify_when = 'failures'::text) = (failures IS NOT NULL)))
notify_tenant_rules notify_tenant_rules_failures_check CHECK (((failures >= 1) AND (failures <= 1000)))
notify_tenant_rules notify_tenant_rules_notify_when_check CHECK ((notify_when = ANY (ARRAY['always'::text, 'failed'::text, 'recovered'::text, 'changed'::text, 'agent'::text, 'failures'::text, 'system_paused'::text])))
notify_tenant_rules notify_tenant_rules_pkey PRIMARY KEY (id)
notify_tenant_rules notify_tenant_rules_template_check CHECK ((length(template) <= 4000))
notify_tenant_rules notify_tenant_rules_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
schema_functions schema_functions_pkey PRIMARY KEY (name)
schema_migrations schema_migrations_pkey PRIMARY KEY (version)
tenant_agent_settings tenant_agent_settings_default_models_check CHECK ((cardinality(default_models) <= 8))
tenant_agent_settings tenant_agent_settings_http_allowed_hosts_check CHECK ((cardinality(http_allowed_hosts) <= 100))
tenant_agent_settings tenant_agent_settings_pkey PRIMARY KEY (tenant_id)
tenant_agent_settings tenant_agent_settings_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenant_backfill_days tenant_backfill_days_occurrences_check CHECK ((occurrences >= 0))
tenant_backfill_days tenant_backfill_days_pkey PRIMARY KEY (tenant_id, day)
tenant_backfill_days tenant_backfill_days_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenant_invitations tenant_invitations_accepted_by_fkey FOREIGN KEY (accepted_by) REFERENCES users(id) ON DELETE SET NULL
tenant_invitations tenant_invitations_email_check CHECK (((email = lower(email)) AND ((length(email) >= 3) AND (length(email) <= 320))))
tenant_invitations tenant_invitations_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users(id) ON DELETE SET NULL
tenant_invitations tenant_invitations_pkey PRIMARY KEY (id)
tenant_invitations tenant_invitations_role_check CHECK ((role = ANY (ARRAY['viewer'::text, 'member'::text, 'admin'::text, 'owner'::text])))
tenant_invitations tenant_invitations_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenant_members tenant_members_invited_by_fkey FOREIGN KEY (invited_by) REFERENCES users(id) ON DELETE SET NULL
tenant_members tenant_members_pkey PRIMARY KEY (tenant_id, user_id)
tenant_members tenant_members_role_check CHECK ((role = ANY (ARRAY['viewer'::text, 'member'::text, 'admin'::text, 'owner'::text])))
tenant_members tenant_members_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenant_members tenant_members_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
tenant_result_bytes tenant_result_bytes_pkey PRIMARY KEY (tenant_id, runs_partition)
tenant_secrets tenant_secrets_allowed_hosts_check CHECK ((cardinality(allowed_hosts) <= 20))
tenant_secrets tenant_secrets_name_check CHECK ((name ~ '^[A-Za-z_][A-Za-z0-9_]{0,63}$'::text))
tenant_secrets tenant_secrets_pkey PRIMARY KEY (tenant_id, name)
tenant_secrets tenant_secrets_sealed_value_check CHECK (((length(sealed_value) >= 29) AND (length(sealed_value) <= 8192)))
tenant_secrets tenant_secrets_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenant_skills tenant_skills_description_check CHECK (((length(description) >= 1) AND (length(description) <= 1024)))
tenant_skills tenant_skills_name_check CHECK ((name ~ '^[a-z0-9][a-z0-9-]{0,63}$'::text))
tenant_skills tenant_skills_pkey PRIMARY KEY (tenant_id, name)
tenant_skills tenant_skills_size_bytes_check CHECK ((size_bytes > 0))
tenant_skills tenant_skills_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
tenants tenants_audit_retention_days_check CHECK (((audit_retention_days >= 1) AND (audit_retention_days <= 3650)))
tenants tenants_max_concurrent_runs_check CHECK ((max_concurrent_runs >= 0))
tenants tenants_max_cron_jobs_check CHECK ((max_cron_jobs >= 0))
tenants tenants_min_schedule_interval_seconds_check CHECK ((min_schedule_interval_seconds >= 0))
tenants tenants_monthly_budget_micros_check CHECK ((monthly_budget_micros >= 0))
tenants tenants_monthly_budget_tokens_check CHECK ((monthly_budget_tokens >= 0))
tenants tenants_name_check CHECK (((length(name) >= 1) AND (length(name) <= 200)))
tenants tenants_pkey PRIMARY KEY (id)
tenants tenants_rate_limit_rpm_check CHECK ((rate_limit_rpm > 0))
tenants tenants_result_bytes_quota_check CHECK ((result_bytes_quota >= 0))
tenants tenants_run_retention_days_check CHECK (((run_retention_days >= 1) AND (run_retention_days <= 3650)))
user_sessions user_sessions_check CHECK ((idle_expires_at <= absolute_expires_at))
user_sessions user_sessions_pkey PRIMARY KEY (id_hash)
user_sessions user_sessions_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
user_sessions user_sessions_user_id_fkey FOREIGN KEY (user_id) REFERENCES users(id) ON DELETE CASCADE
users users_email_check CHECK ((length(email) <= 320))
users users_issuer_check CHECK (((length(issuer) >= 1) AND (length(issuer) <= 2048)))
users users_issuer_subject_key UNIQUE (issuer, subject)
users users_name_check CHECK ((length(name) <= 200))
users users_pkey PRIMARY KEY (id)
users users_platform_role_check CHECK ((platform_role = 'operator'::text))
users users_subject_check CHECK (((length(subject) >= 1) AND (length(subject) <= 255)))
webhook_deliveries webhook_deliveries_attempts_check CHECK ((attempts >= 0))
webhook_deliveries webhook_deliveries_cron_job_id_tenant_id_fkey FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs(id, tenant_id) ON DELETE CASCADE
webhook_deliveries webhook_deliveries_endpoint_id_run_id_event_type_key UNIQUE (endpoint_id, run_id, event_type)
webhook_deliveries webhook_deliveries_endpoint_id_tenant_id_fkey FOREIGN KEY (endpoint_id, tenant_id) REFERENCES webhook_endpoints(id, tenant_id) ON DELETE CASCADE
webhook_deliveries webhook_deliveries_event_type_check CHECK ((event_type = ANY (ARRAY['run.succeeded'::text, 'run.failed'::text, 'job.paused'::text, 'budget.warning'::text, 'channel.disabled'::text])))
webhook_deliveries webhook_deliveries_last_error_check CHECK ((length(last_error) <= 1024))
webhook_deliveries webhook_deliveries_payload_check CHECK ((octet_length((payload)::text) <= 65536))
webhook_deliveries webhook_deliveries_pkey PRIMARY KEY (id)
webhook_deliveries webhook_deliveries_status_check CHECK ((status = ANY (ARRAY['pending'::text, 'delivered'::text, 'failed'::text, 'cancelled'::text])))
webhook_deliveries webhook_deliveries_subject CHECK ((((event_type = ANY (ARRAY['run.succeeded'::text, 'run.failed'::text])) = (run_id IS NOT NULL)) AND ((run_id IS NOT NULL) OR (payload IS NOT NULL))))
webhook_delivery_attempts webhook_delivery_attempts_delivery_id_fkey FOREIGN KEY (delivery_id) REFERENCES webhook_deliveries(id) ON DELETE CASCADE
webhook_delivery_attempts webhook_delivery_attempts_error_check CHECK ((length(error) <= 1024))
webhook_delivery_attempts webhook_delivery_attempts_outcome_check CHECK ((outcome = ANY (ARRAY['delivered'::text, 'retry'::text, 'failed'::text, 'gone'::text, 'refused'::text])))
webhook_delivery_attempts webhook_delivery_attempts_pkey PRIMARY KEY (id)
webhook_endpoints webhook_endpoints_cron_job_id_tenant_id_fkey FOREIGN KEY (cron_job_id, tenant_id) REFERENCES cron_jobs(id, tenant_id) ON DELETE CASCADE
webhook_endpoints webhook_endpoints_description_check CHECK ((length(description) <= 500))
webhook_endpoints webhook_endpoints_disabled_reason_check CHECK ((disabled_reason = ANY (ARRAY['gone'::text, 'failing'::text])))
webhook_endpoints webhook_endpoints_events_check CHECK ((events <@ ARRAY['run.succeeded'::text, 'run.failed'::text, 'job.paused'::text, 'budget.warning'::text, 'channel.disabled'::text]))
webhook_endpoints webhook_endpoints_id_tenant_id_key UNIQUE (id, tenant_id)
webhook_endpoints webhook_endpoints_pkey PRIMARY KEY (id)
webhook_endpoints webhook_endpoints_previous_secret_one_form CHECK (((previous_secret IS NULL) OR (previous_secret_sealed IS NULL)))
webhook_endpoints webhook_endpoints_secret_present CHECK (((secret IS NULL) <> (secret_sealed IS NULL)))
webhook_endpoints webhook_endpoints_tenant_id_fkey FOREIGN KEY (tenant_id) REFERENCES tenants(id) ON DELETE CASCADE
webhook_endpoints webhook_endpoints_url_check CHECK ((length(url) <= 2048))

-- indexes
CREATE UNIQUE INDEX api_keys_key_hash_key ON public.api_keys USING btree (key_hash)
CREATE UNIQUE INDEX api_keys_pkey ON public.api_keys USING btree (id)
CREATE INDEX api_keys_tenant_idx ON public.api_keys USING btree (tenant_id)
CREATE INDEX audit_log_at_idx ON ONLY public.audit_log USING btree (at DESC, id DESC)
CREATE UNIQUE INDEX audit_log_pkey ON ONLY public.audit_log USING btree (id, at)
CREATE INDEX audit_log_tenant_at_idx ON ONLY public.audit_log USING btree (tenant_id, at DESC, id DESC)
CREATE UNIQUE INDEX channel_deliveries_channel_id_run_id_run_status_key ON public.channel_deliveries USING btree (channel_id, run_id, run_status)
CREATE INDEX channel_deliveries_channel_idx ON public.channel_deliveries USING btree (channel_id, created_at DESC)
CREATE INDEX channel_deliveries_created_idx ON public.channel_deliveries USING btree (created_at) WHERE (status <> 'pending'::text)
CREATE INDEX channel_deliveries_due_idx ON public.channel_deliveries USING btree (tenant_id, next_attempt_at) WHERE (status = 'pending'::text)
CREATE UNIQUE INDEX channel_deliveries_pkey ON public.channel_deliveries USING btree (id)
CREATE INDEX channel_deliveries_run_idx ON public.channel_deliveries USING btree (run_id) WHERE (run_id IS NOT NULL)
CREATE INDEX channel_delivery_attempts_delivery_idx ON public.channel_delivery_attempts USING btree (delivery_id, id)
CREATE UNIQUE INDEX channel_delivery_attempts_pkey ON public.channel_delivery_attempts USING btree (id)
CREATE INDEX cron_job_runs_active_idx ON ONLY public.cron_job_runs USING btree (started_at) WHERE (status = ANY (ARRAY['claimed'::text, 'running'::text]))
CREATE INDEX cron_job_runs_created_brin ON ONLY public.cron_job_runs USING brin (created_at)
CREATE UNIQUE INDEX cron_job_runs_cron_job_id_scheduled_at_key ON ONLY public.cron_job_runs USING btree (cron_job_id, scheduled_at)
CREATE INDEX cron_job_runs_job_active_idx ON ONLY public.cron_job_runs USING btree (cron_job_id) WHERE (status = ANY (ARRAY['claimed'::text, 'running'::text]))
CREATE UNIQUE INDEX cron_job_runs_pkey ON ONLY public.cron_job_runs USING btree (id, scheduled_at)
CREATE INDEX cron_job_runs_queued_idx ON ONLY public.cron_job_runs USING btree (not_before) WHERE (status = 'queued'::text)
CREATE INDEX cron_job_runs_tenant_queued_idx ON ONLY public.cron_job_runs USING btree (tenant_id) WHERE (status = 'queued'::text)
CREATE INDEX cron_job_runs_tenant_scheduled_idx ON ONLY public.cron_job_runs USING btree (tenant_id, scheduled_at DESC, id DESC)
CREATE INDEX cron_job_runs_in_flight_job_idx ON public.cron_job_runs_in_flight USING btree (cron_job_id)
CREATE UNIQUE INDEX cron_job_runs_in_flight_pkey ON public.cron_job_runs_in_flight USING btree (run_id)
CREATE INDEX cron_job_runs_in_flight_tenant_idx ON public.cron_job_runs_in_flight USING btree (tenant_id)
CREATE INDEX cron_jobs_budget_resets ON public.cron_jobs USING btree (budget_resets_at) WHERE (budget_resets_at IS NOT NULL)
CREATE INDEX cron_jobs_budgeted ON public.cron_jobs USING btree (tenant_id) WHERE ((daily_budget_micros IS NOT NULL) OR (max_run_tokens IS NOT NULL))
CREATE INDEX cron_jobs_deleted_idx ON public.cron_jobs USING btree (deleted_at) WHERE (deleted_at IS NOT NULL)
CREATE INDEX cron_jobs_due_idx ON public.cron_jobs USING btree (next_run_at, id) WHERE (enabled AND (deleted_at IS NULL))
CREATE UNIQUE INDEX cron_jobs_id_tenant_id_key ON public.cron_jobs USING btree (id, tenant_id)
CREATE INDEX cron_jobs_labels_idx ON public.cron_jobs USING gin (labels)
CREATE INDEX cron_jobs_last_triggered_idx ON public.cron_jobs USING btree (last_triggered_at, id) WHERE (last_triggered_at IS NOT NULL)
CREATE UNIQUE INDEX cron_jobs_pkey ON public.cron_jobs USING btree (id)
CREATE INDEX cron_jobs_tenant_idx ON public.cron_jobs USING btree (tenant_id, created_at DESC) WHERE (deleted_at IS NULL)
CREATE INDEX cron_jobs_unplanned_idx ON public.cron_jobs USING btree (schedule, timezone, id) WHERE (enabled AND (next_run_at IS NULL) AND (deleted_at IS NULL))
CREATE UNIQUE INDEX cron_run_tool_calls_pkey ON public.cron_run_tool_calls USING btree (run_id, seq)
CREATE INDEX cron_run_tool_calls_tenant_idx ON public.cron_run_tool_calls USING btree (tenant_id, created_at)
CREATE INDEX idempotency_keys_created_idx ON public.idempotency_keys USING btree (tenant_id, created_at)
CREATE UNIQUE INDEX idempotency_keys_pkey ON public.idempotency_keys USING btree (tenant_id, scope, key)
CREATE UNIQUE INDEX installation_pkey ON public.installation USING btree (id)
CREATE UNIQUE INDEX installation_singleton_key ON public.installation USING btree (singleton)
CREATE UNIQUE INDEX mcp_servers_pkey ON public.mcp_servers USING btree (id)
CREATE UNIQUE INDEX mcp_servers_tenant_id_name_key ON public.mcp_servers USING btree (tenant_id, name)
CREATE UNIQUE INDEX model_prices_pkey ON public.model_prices USING btree (model)
CREATE INDEX model_usage_job_time ON public.model_usage USING btree (cron_job_id, created_at) WHERE (cron_job_id IS NOT NULL)
CREATE UNIQUE INDEX model_usage_pkey ON public.model_usage USING btree (id)
CREATE INDEX model_usage_run ON public.model_usage USING btree (run_id) WHERE (run_id IS NOT NULL)
CREATE INDEX model_usage_tenant_time ON public.model_usage USING btree (tenant_id, created_at)
CREATE UNIQUE INDEX notify_channels_id_tenant_id_key ON public.notify_channels USING btree (id, tenant_id)
CREATE UNIQUE INDEX notify_channels_pkey ON public.notify_channels USING btree (id)
CREATE INDEX notify_channels_tenant_idx ON public.notify_channels USING btree (tenant_id, created_at DESC)
CREATE INDEX notify_tenant_rules_channel_idx ON public.notify_tenant_rules USING btree (channel_id)
CREATE UNIQUE INDEX notify_tenant_rules_pkey ON public.notify_tenant_rules USING btree (id)
CREATE INDEX notify_tenant_rules_tenant_idx ON public.notify_tenant_rules USING btree (tenant_id, "position")
CREATE UNIQUE INDEX schema_functions_pkey ON public.schema_functions USING btree (name)
CREATE UNIQUE INDEX schema_migrations_pkey ON public.schema_migrations USING btree (version)
CREATE UNIQUE INDEX tenant_agent_settings_pkey ON public.tenant_agent_settings USING btree (tenant_id)
CREATE UNIQUE INDEX tenant_backfill_days_pkey ON public.tenant_backfill_days USING btree (tenant_id, day)
CREATE INDEX tenant_invitations_email_idx ON public.tenant_invitations USING btree (email) WHERE (accepted_at IS NULL)
CREATE UNIQUE INDEX tenant_invitations_open_idx ON public.tenant_invitations USING btree (tenant_id, email) WHERE (accepted_at IS NULL)
CREATE UNIQUE INDEX tenant_invitations_pkey ON public.tenant_invitations USING btree (id)
CREATE UNIQUE INDEX tenant_members_pkey ON public.tenant_members USING btree (tenant_id, user_id)
CREATE INDEX tenant_members_user_idx ON public.tenant_members USING btree (user_id)
CREATE UNIQUE INDEX tenant_result_bytes_pkey ON public.tenant_result_bytes USING btree (tenant_id, runs_partition)
CREATE UNIQUE INDEX tenant_secrets_pkey ON public.tenant_secrets USING btree (tenant_id, name)
CREATE UNIQUE INDEX tenant_skills_pkey ON public.tenant_skills USING btree (tenant_id, name)
CREATE UNIQUE INDEX tenants_pkey ON public.tenants USING btree (id)
CREATE UNIQUE INDEX user_sessions_pkey ON public.user_sessions USING btree (id_hash)
CREATE INDEX user_sessions_tenant_idx ON public.user_sessions USING btree (tenant_id, user_id)
CREATE INDEX user_sessions_user_idx ON public.user_sessions USING btree (user_id, created_at)
CREATE UNIQUE INDEX users_issuer_subject_key ON public.users USING btree (issuer, subject)
CREATE UNIQUE INDEX users_pkey ON public.users USING btree (id)
CREATE INDEX webhook_deliveries_created_idx ON public.webhook_deliveries USING btree (created_at) WHERE (status <> 'pending'::text)
CREATE INDEX webhook_deliveries_due_idx ON public.webhook_deliveries USING btree (tenant_id, next_attempt_at) WHERE (status = 'pending'::text)
CREATE UNIQUE INDEX webhook_deliveries_endpoint_id_run_id_event_type_key ON public.webhook_deliveries USING btree (endpoint_id, run_id, event_type)
CREATE INDEX webhook_deliveries_endpoint_idx ON public.webhook_deliveries USING btree (endpoint_id, created_at DESC)
CREATE INDEX webhook_deliveries_job_idx ON public.webhook_deliveries USING btree (cron_job_id, created_at DESC)
CREATE UNIQUE INDEX webhook_deliveries_pkey ON public.webhook_deliveries USING btree (id)
CREATE INDEX webhook_deliveries_run_idx ON public.webhook_deliveries USING btree (run_id)
CREATE INDEX webhook_delivery_attempts_delivery_idx ON public.webhook_delivery_attempts USING btree (delivery_id, id)
CREATE UNIQUE INDEX webhook_delivery_attempts_pkey ON public.webhook_delivery_attempts USING btree (id)
CREATE UNIQUE INDEX webhook_endpoints_id_tenant_id_key ON public.webhook_endpoints USING btree (id, tenant_id)
CREATE INDEX webhook_endpoints_job_idx ON public.webhook_endpoints USING btree (cron_job_id) WHERE (cron_job_id IS NOT NULL)
CREATE UNIQUE INDEX webhook_endpoints_pkey ON public.webhook_endpoints USING btree (id)
CREATE INDEX webhook_endpoints_plain_idx ON public.webhook_endpoints USING btree (id) WHERE ((secret IS NOT NULL) OR (previous_secret IS NOT NULL))
CREATE INDEX webhook_endpoints_tenant_idx ON public.webhook_endpoints USING btree (tenant_id, created_at DESC)

-- storage parameters
cron_jobs fillfactor=70 autovacuum_vacuum_cost_delay=0

-- row-level security
api_keys rls=true force=true
audit_log rls=true force=true
channel_deliveries rls=true force=true
channel_delivery_attempts rls=true force=true
cron_job_runs rls=true force=true
cron_job_runs_in_flight rls=true force=true
cron_jobs rls=true force=true
cron_run_tool_calls rls=true force=true
idempotency_keys rls=true force=true
installation rls=true force=true
mcp_servers rls=true force=true
model_prices rls=true force=true
model_usage rls=true force=true
notify_channels rls=true force=true
notify_tenant_rules rls=true force=true
schema_functions rls=false force=false
schema_migrations rls=false force=false
tenant_agent_settings rls=true force=true
tenant_backfill_days rls=true force=true
tenant_invitations rls=true force=true
tenant_members rls=true force=true
tenant_result_bytes rls=true force=true
tenant_secrets rls=true force=true
tenant_skills rls=true force=true
tenants rls=true force=true
user_sessions rls=true force=true
users rls=true force=true
webhook_deliveries rls=true force=true
webhook_delivery_attempts rls=true force=true
webhook_endpoints rls=true force=true

-- partitions
audit_log audit_log_default DEFAULT rls=false force=false policies=0 app=
cron_job_runs cron_job_runs_before_YYYYMMDD FOR VALUES FROM (MINVALUE) TO ('YYYY-MM-DD') rls=true force=true policies=5 app=DELETE,INSERT,SELECT,UPDATE
cron_job_runs cron_job_runs_default DEFAULT rls=true force=true policies=5 app=DELETE,INSERT,SELECT,UPDATE
cron_job_runs cron_job_runs_pYYYYMMDD FOR VALUES FROM ('YYYY-MM-DD') TO ('YYYY-MM-DD') rls=true force=true policies=5 app=DELETE,INSERT,SELECT,UPDATE

-- policies
api_keys api_keys_delete DELETE TO hermesx_app USING (app_is_admin())
api_keys api_keys_insert INSERT TO hermesx_app WITH CHECK (app_is_admin())
api_keys api_keys_owner ALL TO <owner> USING (true) WITH CHECK (true)
api_keys api_keys_select SELECT TO hermesx_app USING ((app_is_admin() OR (tenant_id = app_current_tenant())))
api_keys api_keys_tenant_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
api_keys api_keys_tenant_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
api_keys api_keys_update UPDATE TO hermesx_app USING (app_is_admin()) WITH CHECK (app_is_admin())
audit_log audit_log_insert INSERT TO hermesx_app WITH CHECK ((app_is_admin() OR (tenant_id = app_current_tenant())))
audit_log audit_log_owner ALL TO <owner> USING (true) WITH CHECK (true)
audit_log audit_log_select SELECT TO hermesx_app USING ((app_is_admin() OR (tenant_id = app_current_tenant())))
channel_deliveries channel_deliveries_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
channel_deliveries channel_deliveries_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
channel_deliveries channel_deliveries_owner ALL TO <owner> USING (true) WITH CHECK (true)
channel_deliveries channel_deliveries_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
channel_deliveries channel_deliveries_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
channel_delivery_attempts channel_delivery_attempts_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
channel_delivery_attempts channel_delivery_attempts_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
channel_delivery_attempts channel_delivery_attempts_owner ALL TO <owner> USING (true) WITH CHECK (true)
channel_delivery_attempts channel_delivery_attempts_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
channel_delivery_attempts channel_delivery_attempts_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
cron_job_runs cron_job_runs_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
cron_job_runs cron_job_runs_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
cron_job_runs cron_job_runs_owner ALL TO <owner> USING (true) WITH CHECK (true)
cron_job_runs cron_job_runs_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
cron_job_runs cron_job_runs_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
cron_job_runs_in_flight cron_job_runs_in_flight_owner ALL TO <owner> USING (true) WITH CHECK (true)
cron_jobs cron_jobs_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
cron_jobs cron_jobs_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
cron_jobs cron_jobs_owner ALL TO <owner> USING (true) WITH CHECK (true)
cron_jobs cron_jobs_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
cron_jobs cron_jobs_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
cron_run_tool_calls cron_run_tool_calls_owner ALL TO <owner> USING (true) WITH CHECK (true)
cron_run_tool_calls cron_run_tool_calls_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
idempotency_keys idempotency_keys_owner ALL TO <owner> USING (true) WITH CHECK (true)
idempotency_keys idempotency_keys_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
installation installation_owner ALL TO <owner> USING (true) WITH CHECK (true)
mcp_servers mcp_servers_owner ALL TO <owner> USING (true) WITH CHECK (true)
mcp_servers mcp_servers_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
model_prices model_prices_delete DELETE TO hermesx_app USING (app_is_admin())
model_prices model_prices_insert INSERT TO hermesx_app WITH CHECK (app_is_admin())
model_prices model_prices_owner ALL TO <owner> USING (true) WITH CHECK (true)
model_prices model_prices_select SELECT TO hermesx_app USING (true)
model_prices model_prices_update UPDATE TO hermesx_app USING (app_is_admin()) WITH CHECK (app_is_admin())
model_usage model_usage_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
model_usage model_usage_owner ALL TO <owner> USING (true) WITH CHECK (true)
model_usage model_usage_select SELECT TO hermesx_app USING ((app_is_admin() OR (tenant_id = app_current_tenant())))
notify_channels notify_channels_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
notify_channels notify_channels_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
notify_channels notify_channels_owner ALL TO <owner> USING (true) WITH CHECK (true)
notify_channels notify_channels_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
notify_channels notify_channels_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
notify_tenant_rules notify_tenant_rules_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
notify_tenant_rules notify_tenant_rules_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
notify_tenant_rules notify_tenant_rules_owner ALL TO <owner> USING (true) WITH CHECK (true)
notify_tenant_rules notify_tenant_rules_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
notify_tenant_rules notify_tenant_rules_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenant_agent_settings tenant_agent_settings_delete DELETE TO hermesx_app USING (app_is_admin())
tenant_agent_settings tenant_agent_settings_insert INSERT TO hermesx_app WITH CHECK (app_is_admin())
tenant_agent_settings tenant_agent_settings_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_agent_settings tenant_agent_settings_select SELECT TO hermesx_app USING ((app_is_admin() OR (tenant_id = app_current_tenant())))
tenant_agent_settings tenant_agent_settings_update UPDATE TO hermesx_app USING (app_is_admin()) WITH CHECK (app_is_admin())
tenant_backfill_days tenant_backfill_days_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_backfill_days tenant_backfill_days_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenant_invitations tenant_invitations_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_invitations tenant_invitations_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenant_members tenant_members_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_members tenant_members_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenant_result_bytes tenant_result_bytes_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_secrets tenant_secrets_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_secrets tenant_secrets_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenant_skills tenant_skills_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenant_skills tenant_skills_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
tenants tenants_delete DELETE TO hermesx_app USING (app_is_admin())
tenants tenants_insert INSERT TO hermesx_app WITH CHECK (app_is_admin())
tenants tenants_owner ALL TO <owner> USING (true) WITH CHECK (true)
tenants tenants_select SELECT TO hermesx_app USING ((app_is_admin() OR (id = app_current_tenant())))
tenants tenants_update UPDATE TO hermesx_app USING (app_is_admin()) WITH CHECK (app_is_admin())
user_sessions user_sessions_owner ALL TO <owner> USING (true) WITH CHECK (true)
user_sessions user_sessions_tenant ALL TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
users users_owner ALL TO <owner> USING (true) WITH CHECK (true)
users users_tenant SELECT TO hermesx_app USING ((app_is_admin() OR (EXISTS ( SELECT 1
   FROM tenant_members m
  WHERE ((m.user_id = users.id) AND (m.tenant_id = app_current_tenant()))))))
webhook_deliveries webhook_deliveries_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_deliveries webhook_deliveries_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
webhook_deliveries webhook_deliveries_owner ALL TO <owner> USING (true) WITH CHECK (true)
webhook_deliveries webhook_deliveries_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_deliveries webhook_deliveries_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
webhook_delivery_attempts webhook_delivery_attempts_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_delivery_attempts webhook_delivery_attempts_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
webhook_delivery_attempts webhook_delivery_attempts_owner ALL TO <owner> USING (true) WITH CHECK (true)
webhook_delivery_attempts webhook_delivery_attempts_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_delivery_attempts webhook_delivery_attempts_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))
webhook_endpoints webhook_endpoints_delete DELETE TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_endpoints webhook_endpoints_insert INSERT TO hermesx_app WITH CHECK ((tenant_id = app_current_tenant()))
webhook_endpoints webhook_endpoints_owner ALL TO <owner> USING (true) WITH CHECK (true)
webhook_endpoints webhook_endpoints_select SELECT TO hermesx_app USING ((tenant_id = app_current_tenant()))
webhook_endpoints webhook_endpoints_update UPDATE TO hermesx_app USING ((tenant_id = app_current_tenant())) WITH CHECK ((tenant_id = app_current_tenant()))

-- triggers
CREATE TRIGGER cron_job_runs_channels_on_insert AFTER INSERT ON public.cron_job_runs FOR EACH ROW WHEN ((new.status = ANY (ARRAY['success'::text, 'failed'::text]))) EXECUTE FUNCTION channel_enqueue_run_trigger()
CREATE TRIGGER cron_job_runs_in_flight_delete AFTER DELETE ON public.cron_job_runs REFERENCING OLD TABLE AS old_runs FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_removed()
CREATE TRIGGER cron_job_runs_in_flight_insert AFTER INSERT ON public.cron_job_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_added()
CREATE TRIGGER cron_job_runs_in_flight_truncate AFTER TRUNCATE ON public.cron_job_runs FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_cleared()
CREATE TRIGGER cron_job_runs_in_flight_update AFTER UPDATE ON public.cron_job_runs REFERENCING NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION cron_job_runs_in_flight_changed()
CREATE TRIGGER cron_job_runs_outbox_on_finish AFTER UPDATE ON public.cron_job_runs REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs FOR EACH STATEMENT EXECUTE FUNCTION outbox_enqueue_finished_runs()
CREATE TRIGGER cron_job_runs_retry_attempt BEFORE UPDATE OF status ON public.cron_job_runs FOR EACH ROW WHEN (((new.status = 'failed'::text) AND (old.status = ANY (ARRAY['claimed'::text, 'running'::text])))) EXECUTE FUNCTION cron_job_runs_retry_attempt()
CREATE TRIGGER cron_job_runs_webhooks_on_insert AFTER INSERT ON public.cron_job_runs FOR EACH ROW WHEN ((new.status = ANY (ARRAY['success'::text, 'failed'::text]))) EXECUTE FUNCTION webhook_enqueue_run_trigger()
CREATE TRIGGER tenant_result_bytes_delete AFTER DELETE ON public.cron_job_runs FOR EACH ROW WHEN ((old.result_object_key IS NOT NULL)) EXECUTE FUNCTION tenant_result_bytes_count()
CREATE TRIGGER tenant_result_bytes_insert AFTER INSERT ON public.cron_job_runs FOR EACH ROW WHEN ((new.result_object_key IS NOT NULL)) EXECUTE FUNCTION tenant_result_bytes_count()
CREATE TRIGGER tenant_result_bytes_truncate AFTER TRUNCATE ON public.cron_job_runs FOR EACH STATEMENT EXECUTE FUNCTION tenant_result_bytes_cleared()
CREATE TRIGGER tenant_result_bytes_update AFTER UPDATE ON public.cron_job_runs FOR EACH ROW WHEN ((((old.result_object_key IS NOT NULL) OR (new.result_object_key IS NOT NULL)) AND ((old.result_object_key IS DISTINCT FROM new.result_object_key) OR (old.result_bytes IS DISTINCT FROM new.result_bytes)))) EXECUTE FUNCTION tenant_result_bytes_count()
CREATE TRIGGER cron_jobs_apply_run_limits BEFORE UPDATE OF run_count ON public.cron_jobs FOR EACH ROW WHEN (((new.run_count > old.run_count) AND (NOT ((new.last_run_success IS TRUE) AND (old.consecutive_failures = 0) AND (new.max_runs IS NULL))))) EXECUTE FUNCTION cron_jobs_apply_run_limits()
CREATE TRIGGER cron_jobs_audit_system_pause AFTER UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((old.enabled AND (NOT new.enabled) AND (new.paused_by = 'system'::text))) EXECUTE FUNCTION audit_log_job_paused_by_system()
CREATE TRIGGER cron_jobs_channels_on_pause AFTER UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((old.enabled AND (NOT new.enabled) AND (new.paused_by = 'system'::text))) EXECUTE FUNCTION channel_enqueue_job_paused_trigger()
CREATE TRIGGER cron_jobs_notify_changed AFTER UPDATE ON public.cron_jobs FOR EACH ROW WHEN (((((((((((old.tenant_id IS DISTINCT FROM new.tenant_id) OR (old.name IS DISTINCT FROM new.name)) OR (old.schedule IS DISTINCT FROM new.schedule)) OR (old.timezone IS DISTINCT FROM new.timezone)) OR (old.prompt IS DISTINCT FROM new.prompt)) OR (old.enabled IS DISTINCT FROM new.enabled)) OR (old.ends_at IS DISTINCT FROM new.ends_at)) OR (old.jitter_ms IS DISTINCT FROM new.jitter_ms)) OR (old.overlap IS DISTINCT FROM new.overlap)) OR (old.deleted_at IS DISTINCT FROM new.deleted_at))) EXECUTE FUNCTION cron_jobs_notify()
CREATE TRIGGER cron_jobs_notify_deleted_rows AFTER DELETE ON public.cron_jobs REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION cron_jobs_notify_rows()
CREATE TRIGGER cron_jobs_notify_inserted AFTER INSERT ON public.cron_jobs REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION cron_jobs_notify_rows()
CREATE TRIGGER cron_jobs_track_controls BEFORE UPDATE ON public.cron_jobs FOR EACH ROW WHEN (((((((((new.labels IS DISTINCT FROM old.labels) OR (new.pause_after_failures IS DISTINCT FROM old.pause_after_failures)) OR (new.ends_at IS DISTINCT FROM old.ends_at)) OR (new.max_runs IS DISTINCT FROM old.max_runs)) OR (new.timeout_ms IS DISTINCT FROM old.timeout_ms)) OR (new.model IS DISTINCT FROM old.model)) OR (new.jitter_ms IS DISTINCT FROM old.jitter_ms)) OR (new.overlap IS DISTINCT FROM old.overlap))) EXECUTE FUNCTION cron_jobs_track_controls()
CREATE TRIGGER cron_jobs_track_definition BEFORE UPDATE ON public.cron_jobs FOR EACH ROW WHEN (((((((new.tenant_id IS DISTINCT FROM old.tenant_id) OR (new.name IS DISTINCT FROM old.name)) OR (new.schedule IS DISTINCT FROM old.schedule)) OR (new.timezone IS DISTINCT FROM old.timezone)) OR (new.prompt IS DISTINCT FROM old.prompt)) OR (new.enabled IS DISTINCT FROM old.enabled))) EXECUTE FUNCTION cron_jobs_track_definition()
CREATE TRIGGER cron_jobs_track_description BEFORE UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((new.description IS DISTINCT FROM old.description)) EXECUTE FUNCTION cron_jobs_touch()
CREATE TRIGGER cron_jobs_track_mcp_servers BEFORE UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((new.mcp_servers IS DISTINCT FROM old.mcp_servers)) EXECUTE FUNCTION cron_jobs_touch()
CREATE TRIGGER cron_jobs_track_retry BEFORE UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((((new.retry_max_attempts IS DISTINCT FROM old.retry_max_attempts) OR (new.retry_backoff_ms IS DISTINCT FROM old.retry_backoff_ms)) OR (new.retry_after_side_effects IS DISTINCT FROM old.retry_after_side_effects))) EXECUTE FUNCTION cron_jobs_track_retry()
CREATE TRIGGER cron_jobs_webhooks_on_pause AFTER UPDATE ON public.cron_jobs FOR EACH ROW WHEN ((old.enabled AND (NOT new.enabled) AND (new.paused_by IS NOT NULL))) EXECUTE FUNCTION webhook_enqueue_job_paused_trigger()
CREATE TRIGGER mcp_servers_bump_run_context AFTER INSERT OR DELETE OR UPDATE ON public.mcp_servers FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context()
CREATE TRIGGER tenant_agent_settings_bump_run_context AFTER INSERT OR DELETE OR UPDATE ON public.tenant_agent_settings FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context()
CREATE TRIGGER tenant_secrets_bump_run_context AFTER INSERT OR DELETE OR UPDATE ON public.tenant_secrets FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context()
CREATE TRIGGER tenant_skills_bump_run_context AFTER INSERT OR DELETE OR UPDATE ON public.tenant_skills FOR EACH ROW EXECUTE FUNCTION tenants_bump_run_context()
CREATE TRIGGER tenants_notify_jobs AFTER UPDATE ON public.tenants FOR EACH ROW WHEN ((old.deleted_at IS DISTINCT FROM new.deleted_at)) EXECUTE FUNCTION tenants_notify_jobs()
CREATE TRIGGER webhook_endpoints_audit_system_disable AFTER UPDATE ON public.webhook_endpoints FOR EACH ROW WHEN (((old.disabled_reason IS NULL) AND (new.disabled_reason IS NOT NULL))) EXECUTE FUNCTION audit_log_webhook_disabled_by_system()

-- function grants
admin_cluster_runs(p_since timestamp with time zone) SECURITY DEFINER execute: hermesx_app
app_current_tenant() INVOKER execute: hermesx_app +PUBLIC
app_is_admin() INVOKER execute: hermesx_app +PUBLIC
audit_log_job_paused_by_system() SECURITY DEFINER execute:
audit_log_maintain(p_months_ahead integer, p_delete_limit integer, p_now timestamp with time zone) SECURITY DEFINER execute: hermesx_app
audit_log_webhook_disabled_by_system() SECURITY DEFINER execute:
auth_find_api_key(p_key_hash text) SECURITY DEFINER execute: hermesx_app
auth_session_choose_tenant(p_session_hash text, p_tenant_id uuid) SECURITY DEFINER execute: hermesx_app
auth_session_find(p_session_hash text, p_idle interval) SECURITY DEFINER execute: hermesx_app
auth_session_revoke(p_session_hash text) SECURITY DEFINER execute: hermesx_app
auth_sign_in(p_issuer text, p_subject text, p_email text, p_email_verified boolean, p_name text, p_session_hash text, p_csrf_hash text, p_idle interval, p_absolute interval, p_max_sessions integer) SECURITY DEFINER execute: hermesx_app
auth_touch_api_key(p_key_id uuid) SECURITY DEFINER execute: hermesx_app
auth_user_tenants(p_user_id uuid) SECURITY DEFINER execute: hermesx_app
channel_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer, p_lease_seconds integer) SECURITY DEFINER execute: hermesx_app
channel_enqueue_alert(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb) SECURITY DEFINER execute: hermesx_app
channel_enqueue_job_paused_trigger() INVOKER execute:
channel_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid, p_scheduled_at timestamp with time zone) SECURITY DEFINER execute: hermesx_app
channel_enqueue_run_trigger() INVOKER execute:
channel_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text, p_status_code integer, p_error text, p_response text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_disable_after_seconds integer) SECURITY DEFINER execute: hermesx_app
channel_normalized_answer(p_text text) SECURITY DEFINER execute: hermesx_app
channel_plain_urls(p_after uuid, p_limit integer) SECURITY DEFINER execute: hermesx_app
channel_prune_deliveries(p_older_than_seconds integer, p_limit integer) SECURITY DEFINER execute: hermesx_app
channel_seal_url(p_id uuid, p_url text, p_sealed text, p_shown text) SECURITY DEFINER execute: hermesx_app
cron_job_runs_add_partition(p_name text, p_bounds text) INVOKER execute:
cron_job_runs_in_flight_added() SECURITY DEFINER execute:
cron_job_runs_in_flight_changed() SECURITY DEFINER execute:
cron_job_runs_in_flight_cleared() SECURITY DEFINER execute:
cron_job_runs_in_flight_removed() SECURITY DEFINER execute:
cron_job_runs_retry_attempt() INVOKER execute:
cron_jobs_apply_run_limits() INVOKER execute:
cron_jobs_notify() INVOKER execute:
cron_jobs_notify_rows() INVOKER execute:
cron_jobs_touch() INVOKER execute:
cron_jobs_track_controls() INVOKER execute:
cron_jobs_track_definition() INVOKER execute:
cron_jobs_track_retry() INVOKER execute:
idempotency_sweep(window_ms bigint, batch integer) SECURITY DEFINER execute: hermesx_app
outbox_enqueue_finished_runs() INVOKER execute:
scheduler_active_runs() SECURITY DEFINER execute: hermesx_app
scheduler_adopt(p_run_ids uuid[], p_from_pods text[], p_pod_id text) SECURITY DEFINER execute: hermesx_app
scheduler_advance(p_ids uuid[], p_past_ats timestamp with time zone[], p_next_run_ats timestamp with time zone[]) SECURITY DEFINER execute: hermesx_app
scheduler_cancel_older(p_job_id uuid, p_scheduled_at timestamp with time zone) SECURITY DEFINER execute: hermesx_app
scheduler_cancels_requested(p_run_ids uuid[]) SECURITY DEFINER execute: hermesx_app
scheduler_claim(p_job_ids uuid[], p_scheduled_ats timestamp with time zone[], p_next_run_ats timestamp with time zone[], p_pod_id text, p_origins text[]) SECURITY DEFINER execute: hermesx_app
scheduler_claim_waiting(p_job_id uuid, p_scheduled_at timestamp with time zone, p_next_run_at timestamp with time zone, p_pod_id text) SECURITY DEFINER execute: hermesx_app
scheduler_cleanup_stale_runs(lock_ttl_seconds integer) SECURITY DEFINER execute: hermesx_app
scheduler_due_jobs(p_until timestamp with time zone, p_after_at timestamp with time zone, p_after_id uuid, p_limit integer) SECURITY DEFINER execute: hermesx_app
scheduler_fail(p_run_ids uuid[], p_error text, p_error_kind text) SECURITY DEFINER execute: hermesx_app
scheduler_finish(p_run_ids uuid[], p_success boolean[], p_results text[], p_errors text[], p_error_kinds text[], p_attempts integer[], p_pod_id text, p_details jsonb[], p_scheduled_ats timestamp with time zone[]) SECURITY DEFINER execute: hermesx_app
scheduler_installation_id() SECURITY DEFINER execute: hermesx_app
scheduler_load_schedules(p_ids uuid[]) SECURITY DEFINER execute: hermesx_app
scheduler_mark_sent(p_run_ids uuid[], p_pod_id text, p_origins text[], p_scheduled_ats timestamp with time zone[]) SECURITY DEFINER execute: hermesx_app
scheduler_missed_triggers(p_since timestamp with time zone, p_after_at timestamp with time zone, p_after_id uuid, p_limit integer) SECURITY DEFINER execute: hermesx_app
scheduler_plan_set(p_ids uuid[], p_next_run_ats timestamp with time zone[]) SECURITY DEFINER execute: hermesx_app
scheduler_plan_take(p_ids uuid[], p_limit integer, p_since timestamp with time zone, p_after_schedule text, p_after_timezone text, p_after_id uuid) SECURITY DEFINER execute: hermesx_app
scheduler_requeue(p_run_ids uuid[], p_pod_id text, p_delay_ms integer) SECURITY DEFINER execute: hermesx_app
scheduler_run_progress(p_run_id uuid, p_pod_id text, p_attempts integer, p_attempt_log jsonb) SECURITY DEFINER execute: hermesx_app
scheduler_runs_maintain(p_days_ahead integer, p_delete_limit integer, p_now timestamp with time zone) SECURITY DEFINER execute: hermesx_app
scheduler_start_waiting(p_run_id uuid, p_scheduled_at timestamp with time zone, p_pod_id text) SECURITY DEFINER execute: hermesx_app
scheduler_take_queued(p_pod_id text, p_limit integer) SECURITY DEFINER execute: hermesx_app
scheduler_unsend(p_run_ids uuid[], p_pod_id text) SECURITY DEFINER execute: hermesx_app
storage_recorded_runs(p_tenant_id uuid, p_run_ids uuid[]) SECURITY DEFINER execute: hermesx_app
storage_result_usage(p_tenant_ids uuid[], p_default_quota bigint) SECURITY DEFINER execute: hermesx_app
storage_tenant_ids(p_after uuid, p_limit integer) SECURITY DEFINER execute: hermesx_app
tenant_result_bytes_cleared() SECURITY DEFINER execute:
tenant_result_bytes_count() SECURITY DEFINER execute:
tenants_bump_run_context() SECURITY DEFINER execute:
tenants_notify_jobs() SECURITY DEFINER execute:
usage_resume_budget_jobs(p_now timestamp with time zone, p_limit integer) SECURITY DEFINER execute: hermesx_app
webhook_cancel_delivery(p_delivery_id uuid, p_pod_id text, p_reason text) SECURITY DEFINER execute: hermesx_app
webhook_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer, p_lease_seconds integer) SECURITY DEFINER execute: hermesx_app
webhook_enqueue_budget_warning(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb) SECURITY DEFINER execute: hermesx_app
webhook_enqueue_job_paused(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb) SECURITY DEFINER execute: hermesx_app
webhook_enqueue_job_paused_trigger() INVOKER execute:
webhook_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid, p_status text) SECURITY DEFINER execute: hermesx_app
webhook_enqueue_run_trigger() INVOKER execute:
webhook_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text, p_status_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_disable_after_seconds integer) SECURITY DEFINER execute: hermesx_app
webhook_plain_secrets(p_after uuid, p_limit integer) SECURITY DEFINER execute: hermesx_app
webhook_prune_deliveries(p_older_than_seconds integer, p_limit integer) SECURITY DEFINER execute: hermesx_app
webhook_queue_stats() SECURITY DEFINER execute: hermesx_app
webhook_run_event_data(p_run_id uuid, p_tenant_id uuid) SECURITY DEFINER execute: hermesx_app
webhook_seal_secret(p_id uuid, p_secret text, p_previous_secret text, p_sealed bytea, p_previous_sealed bytea) SECURITY DEFINER execute: hermesx_app

-- functions
CREATE OR REPLACE FUNCTION public.admin_cluster_runs(p_since timestamp with time zone)
 RETURNS TABLE(pod_id text, in_flight integer, runs integer, failures integer, fire_lag_p99_ms double precision, last_started_at timestamp with time zone)
 LANGUAGE plpgsql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
BEGIN
  IF NOT app_is_admin() THEN
    RAISE EXCEPTION 'admin_cluster_runs needs an admin transaction' USING ERRCODE = '42501';
  END IF;
  RETURN QUERY
    WITH recent AS (
      SELECT r.pod_id, r.status, r.scheduled_at, r.started_at,
             r.origin IN ('scheduled', 'catch_up') AND r.attempt = 1 AS fired
        FROM cron_job_runs r WHERE r.created_at >= p_since
    ), flying AS (
      SELECT r.pod_id FROM cron_job_runs r WHERE r.status = 'running'
      UNION ALL
      SELECT r.pod_id FROM cron_job_runs r
       WHERE r.status = 'claimed' AND r.created_at >= p_since - interval '1 day'
    ), rows_of AS (
      SELECT x.pod_id, x.status, x.scheduled_at, x.started_at, x.fired, 0 AS live FROM recent x
      UNION ALL
      SELECT f.pod_id, NULL, NULL, NULL, false, 1 FROM flying f
    )
    SELECT CASE WHEN GROUPING(o.pod_id) = 1 THEN NULL ELSE o.pod_id END,
           sum(o.live)::integer,
           count(*) FILTER (WHERE o.live = 0 AND o.status <> 'claimed')::integer,
           count(*) FILTER (WHERE o.live = 0 AND o.status = 'failed')::integer,
           percentile_cont(0.99) WITHIN GROUP (
             ORDER BY extract(epoch FROM o.started_at - o.scheduled_at) * 1000)
             FILTER (WHERE o.live = 0 AND o.fired AND o.started_at IS NOT NULL),
           max(o.started_at)
      FROM rows_of o
     GROUP BY GROUPING SETS ((o.pod_id), ())
     ORDER BY 1 NULLS FIRST;
END
$function$
CREATE OR REPLACE FUNCTION public.app_current_tenant()
 RETURNS uuid
 LANGUAGE sql
 STABLE
AS $function$ SELECT NULLIF(current_setting('app.current_tenant', true), '')::uuid $function$
CREATE OR REPLACE FUNCTION public.app_is_admin()
 RETURNS boolean
 LANGUAGE sql
 STABLE
AS $function$ SELECT coalesce(current_setting('app.admin', true), '') = 'on' $function$
CREATE OR REPLACE FUNCTION public.audit_log_job_paused_by_system()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
BEGIN
  INSERT INTO audit_log (tenant_id, actor_type, actor_reason, action, target_type, target_id,
                         change)
  VALUES (NEW.tenant_id, 'system', coalesce(NEW.stopped_by, 'paused by the system'), 'job.pause',
          'job', NEW.id::text,
          jsonb_build_object(
            'before', jsonb_build_object('enabled', true),
            'after', jsonb_build_object('enabled', false, 'paused_reason', NEW.paused_reason,
                                        'stopped_by', NEW.stopped_by,
                                        'consecutive_failures', NEW.consecutive_failures,
                                        'run_count', NEW.run_count)));
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.audit_log_maintain(p_months_ahead integer, p_delete_limit integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(created integer, dropped integer, deleted integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_month date := date_trunc('month', v_now AT TIME ZONE 'UTC')::date;
    v_day date;
    v_name text;
    v_longest integer;
    v_part record;
    v_from timestamptz;
    v_to timestamptz;
  BEGIN
    created := 0;
    dropped := 0;
    deleted := 0;
    IF NOT pg_try_advisory_xact_lock(hashtextextended('hermesx:audit-maintenance', 0)) THEN
      RETURN NEXT;
      RETURN;
    END IF;

    FOR i IN 0 .. greatest(p_months_ahead, 0) LOOP
      v_day := (v_month + make_interval(months => i))::date;
      v_name := 'audit_log_p' || to_char(v_day, 'YYYYMM');
      CONTINUE WHEN to_regclass('public.' || v_name) IS NOT NULL;
      v_from := v_day::timestamp AT TIME ZONE 'UTC';
      v_to := (v_day + interval '1 month')::timestamp AT TIME ZONE 'UTC';
      -- Entries already in the default partition for that month (written before this round made
      -- the month) move into it: the new table is filled, they leave the default, then it is
      -- attached, all in this transaction.
      EXECUTE format('CREATE TABLE public.%I (LIKE public.audit_log INCLUDING DEFAULTS '
                     'INCLUDING CONSTRAINTS)', v_name);
      EXECUTE format('WITH moved AS (DELETE FROM public.audit_log_default '
                     'WHERE at >= %L AND at < %L RETURNING *) '
                     'INSERT INTO public.%I SELECT * FROM moved', v_from, v_to, v_name);
      EXECUTE format('ALTER TABLE public.audit_log ATTACH PARTITION public.%I '
                     'FOR VALUES FROM (%L) TO (%L)', v_name, v_from, v_to);
      created := created + 1;
    END LOOP;

    SELECT greatest(coalesce(max(t.audit_retention_days), 365), 365) INTO v_longest
      FROM tenants t;
    FOR v_part IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'public.audit_log'::regclass AND c.relname ~ '^audit_log_p[0-9]{6}$'
    LOOP
      -- The month's end is past the longest retention: every entry in it is.
      IF ((to_date(right(v_part.relname, 6), 'YYYYMM') + interval '1 month')::timestamp
            AT TIME ZONE 'UTC') <= v_now - make_interval(days => v_longest) THEN
        EXECUTE format('DROP TABLE public.%I', v_part.relname);
        dropped := dropped + 1;
      END IF;
    END LOOP;

    WITH doomed AS (
      SELECT a.id, a.at
        FROM tenants t
        CROSS JOIN LATERAL (
          SELECT x.id, x.at FROM audit_log x
           WHERE x.tenant_id = t.id
             AND x.at < v_now - make_interval(days => t.audit_retention_days)
           LIMIT p_delete_limit) a
       WHERE t.audit_retention_days < v_longest
       LIMIT p_delete_limit
    ), gone AS (
      DELETE FROM audit_log x USING doomed d
       WHERE x.id = d.id AND x.at = d.at
      RETURNING 1
    )
    SELECT count(*)::integer INTO deleted FROM gone;
    RETURN NEXT;
  END
  $function$
CREATE OR REPLACE FUNCTION public.audit_log_webhook_disabled_by_system()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
BEGIN
  INSERT INTO audit_log (tenant_id, actor_type, actor_reason, action, target_type, target_id,
                         change)
  VALUES (NEW.tenant_id, 'system', 'endpoint ' || NEW.disabled_reason, 'webhook.disable',
          'webhook', NEW.id::text,
          jsonb_build_object('before', jsonb_build_object('disabled_reason', NULL),
                             'after', jsonb_build_object('disabled_reason', NEW.disabled_reason)));
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.auth_find_api_key(p_key_hash text)
 RETURNS TABLE(key_id uuid, tenant_id uuid, name text, scopes text[])
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT k.id, k.tenant_id, k.name, k.scopes
    FROM api_keys k JOIN tenants t ON t.id = k.tenant_id
    WHERE k.key_hash = p_key_hash
      AND k.revoked_at IS NULL
      AND (k.expires_at IS NULL OR k.expires_at > now())
      AND t.deleted_at IS NULL
  $function$
CREATE OR REPLACE FUNCTION public.auth_session_choose_tenant(p_session_hash text, p_tenant_id uuid)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH chosen AS (
      UPDATE user_sessions s SET tenant_id = p_tenant_id
        FROM users u, tenants t
       WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
         AND s.idle_expires_at > now() AND s.absolute_expires_at > now()
         AND u.id = s.user_id AND t.id = p_tenant_id AND t.deleted_at IS NULL
         AND (u.platform_role = 'operator' OR EXISTS (
               SELECT 1 FROM tenant_members m
                WHERE m.tenant_id = p_tenant_id AND m.user_id = s.user_id))
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM chosen);
  $function$
CREATE OR REPLACE FUNCTION public.auth_session_find(p_session_hash text, p_idle interval)
 RETURNS TABLE(user_id uuid, email text, name text, platform_role text, tenant_id uuid, role text, csrf_hash text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
BEGIN
  UPDATE user_sessions s
     SET last_seen_at = now(), idle_expires_at = least(now() + p_idle, s.absolute_expires_at)
   WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
     AND s.idle_expires_at > now() AND s.absolute_expires_at > now()
     AND s.last_seen_at < now() - interval '1 minute';
  RETURN QUERY
    SELECT u.id, u.email, u.name, u.platform_role, s.tenant_id, m.role, s.csrf_hash
      FROM user_sessions s
      JOIN users u ON u.id = s.user_id
      LEFT JOIN tenant_members m ON m.tenant_id = s.tenant_id AND m.user_id = s.user_id
     WHERE s.id_hash = p_session_hash AND s.revoked_at IS NULL
       AND s.idle_expires_at > now() AND s.absolute_expires_at > now();
END
$function$
CREATE OR REPLACE FUNCTION public.auth_session_revoke(p_session_hash text)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH revoked AS (
      UPDATE user_sessions SET revoked_at = now()
       WHERE id_hash = p_session_hash AND revoked_at IS NULL
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM revoked);
  $function$
CREATE OR REPLACE FUNCTION public.auth_sign_in(p_issuer text, p_subject text, p_email text, p_email_verified boolean, p_name text, p_session_hash text, p_csrf_hash text, p_idle interval, p_absolute interval, p_max_sessions integer)
 RETURNS TABLE(user_id uuid, tenant_id uuid, joined integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
DECLARE
  v_user uuid;
  v_tenant uuid;
  v_joined integer := 0;
BEGIN
  INSERT INTO users AS u (issuer, subject, email, email_verified, name, last_sign_in_at)
  VALUES (p_issuer, p_subject, lower(p_email), p_email_verified, p_name, now())
  ON CONFLICT (issuer, subject) DO UPDATE
    SET email = EXCLUDED.email, email_verified = EXCLUDED.email_verified,
        name = EXCLUDED.name, last_sign_in_at = now()
  RETURNING u.id INTO v_user;

  IF p_email_verified AND p_email IS NOT NULL THEN
    WITH accepted AS (
      UPDATE tenant_invitations i
         SET accepted_at = now(), accepted_by = v_user
       WHERE i.email = lower(p_email) AND i.accepted_at IS NULL AND i.expires_at > now()
         AND EXISTS (SELECT 1 FROM tenants t WHERE t.id = i.tenant_id AND t.deleted_at IS NULL)
      RETURNING i.tenant_id, i.role, i.invited_by
    ), added AS (
      INSERT INTO tenant_members (tenant_id, user_id, role, invited_by)
      SELECT a.tenant_id, v_user, a.role, a.invited_by FROM accepted a
      ON CONFLICT ON CONSTRAINT tenant_members_pkey DO NOTHING
      RETURNING 1
    )
    SELECT count(*) INTO v_joined FROM added;
  END IF;

  SELECT m.tenant_id INTO v_tenant
    FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
   WHERE m.user_id = v_user AND t.deleted_at IS NULL
   ORDER BY m.created_at, m.tenant_id
   LIMIT 1;

  DELETE FROM user_sessions s
   WHERE s.user_id = v_user
     AND (s.revoked_at IS NOT NULL OR s.idle_expires_at <= now() OR s.absolute_expires_at <= now());

  INSERT INTO user_sessions (id_hash, user_id, tenant_id, csrf_hash, idle_expires_at,
                             absolute_expires_at)
  VALUES (p_session_hash, v_user, v_tenant, p_csrf_hash,
          now() + least(p_idle, p_absolute), now() + p_absolute);

  UPDATE user_sessions s SET revoked_at = now()
   WHERE s.user_id = v_user AND s.revoked_at IS NULL
     AND s.id_hash IN (
       SELECT o.id_hash FROM user_sessions o
        WHERE o.user_id = v_user AND o.revoked_at IS NULL
        ORDER BY o.created_at DESC, o.id_hash
        OFFSET p_max_sessions);

  RETURN QUERY SELECT v_user, v_tenant, v_joined;
END
$function$
CREATE OR REPLACE FUNCTION public.auth_touch_api_key(p_key_id uuid)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE api_keys SET last_used_at = now()
     WHERE id = p_key_id
       AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
  $function$
CREATE OR REPLACE FUNCTION public.auth_user_tenants(p_user_id uuid)
 RETURNS TABLE(tenant_id uuid, name text, role text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT t.id, t.name, m.role
      FROM tenant_members m JOIN tenants t ON t.id = m.tenant_id
     WHERE m.user_id = p_user_id AND t.deleted_at IS NULL
     ORDER BY m.created_at, t.id;
  $function$
CREATE OR REPLACE FUNCTION public.channel_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer, p_lease_seconds integer)
 RETURNS TABLE(delivery_id uuid, tenant_id uuid, channel_id uuid, kind text, config jsonb, attempts integer, created_at timestamp with time zone, run_id uuid, payload jsonb)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH RECURSIVE due_tenants AS (
      (SELECT d.tenant_id FROM channel_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.tenant_id FROM channel_deliveries d
               WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                 AND d.tenant_id > t.tenant_id
               ORDER BY d.tenant_id LIMIT 1)
        FROM due_tenants t WHERE t.tenant_id IS NOT NULL
    ), picked AS (
      SELECT c.id, c.tenant_id,
             row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS rank
        FROM due_tenants t
        CROSS JOIN LATERAL (
          SELECT d.id, d.tenant_id, d.next_attempt_at FROM channel_deliveries d
           WHERE d.tenant_id = t.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(0, p_per_tenant - (
             SELECT count(*) FROM channel_deliveries l
              WHERE l.tenant_id = t.tenant_id AND l.status = 'pending'
                AND l.leased_by IS NOT NULL AND l.next_attempt_at > now()))
           FOR UPDATE SKIP LOCKED) c
       WHERE t.tenant_id IS NOT NULL
    ), chosen AS (
      SELECT p.id FROM picked p ORDER BY p.rank, random() LIMIT p_limit
    ), leased AS (
      UPDATE channel_deliveries d
         SET leased_by = p_pod_id,
             next_attempt_at = now() + make_interval(secs => p_lease_seconds),
             updated_at = now()
        FROM chosen
       WHERE d.id = chosen.id
      RETURNING d.*
    )
    SELECT l.id, l.tenant_id, l.channel_id, c.kind, c.config, l.attempts, l.created_at,
           l.run_id, l.payload
      FROM leased l
      JOIN notify_channels c ON c.id = l.channel_id;
  END
  $function$
CREATE OR REPLACE FUNCTION public.channel_enqueue_alert(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    INSERT INTO channel_deliveries (tenant_id, channel_id, cron_job_id, run_id, run_status,
                                    reason, payload)
    SELECT DISTINCT ON (c.id) c.tenant_id, c.id, p_cron_job_id, NULL, NULL, 'system_paused',
           p_payload || jsonb_build_object('reason', 'system_paused', 'template', r.template)
      FROM notify_tenant_rules r
      JOIN notify_channels c ON c.id = r.channel_id AND c.tenant_id = r.tenant_id
     WHERE r.tenant_id = p_tenant_id AND r.notify_when = 'system_paused' AND c.enabled
     ORDER BY c.id, r.position
  $function$
CREATE OR REPLACE FUNCTION public.channel_enqueue_job_paused_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM channel_enqueue_alert(NEW.tenant_id, NEW.id, jsonb_build_object(
    'subject', 'job_paused',
    'job_id', NEW.id,
    'job_name', NEW.name,
    'status', 'paused',
    'paused_at', to_char(coalesce(NEW.paused_at, now()) AT TIME ZONE 'UTC',
                         'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
    'paused_reason', NEW.paused_reason,
    'stopped_by', NEW.stopped_by,
    'consecutive_failures', NEW.consecutive_failures));
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.channel_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid, p_scheduled_at timestamp with time zone)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_job record;
    v_run record;
    v_rule record;
    v_send boolean;
    v_previous text;
    v_previous_answer text;
    v_notify jsonb;
    v_payload jsonb;
  BEGIN
    -- Most tenants have no channel: they read nothing more.
    IF NOT EXISTS (SELECT 1 FROM notify_channels c
                    WHERE c.tenant_id = p_tenant_id AND c.enabled) THEN
      RETURN;
    END IF;
    SELECT j.name, j.notify_rules, j.consecutive_failures INTO v_job
      FROM cron_jobs j WHERE j.id = p_cron_job_id;
    SELECT r.id, r.status, r.result, r.error, r.error_kind, r.scheduled_at, r.finished_at,
           r.started_at, r.duration_ms, r.origin
      INTO v_run
      FROM cron_job_runs r
     WHERE r.id = p_run_id AND r.scheduled_at = p_scheduled_at AND r.tenant_id = p_tenant_id;
    IF NOT FOUND OR v_run.status NOT IN ('success', 'failed') THEN
      RETURN;
    END IF;
    FOR v_rule IN
      SELECT (x.rule->>'channel')::uuid AS channel_id, x.rule->>'when' AS notify_when,
             x.rule->>'template' AS template, x.n AS position
        FROM jsonb_array_elements(coalesce(v_job.notify_rules, '[]'::jsonb))
             WITH ORDINALITY AS x (rule, n)
      UNION ALL
      SELECT t.channel_id, t.notify_when, t.template, 1000 + t.position
        FROM notify_tenant_rules t
       WHERE t.tenant_id = p_tenant_id AND v_job.notify_rules IS NULL
         AND t.notify_when IN ('always', 'failed', 'recovered', 'changed', 'agent')
      UNION ALL
      SELECT t.channel_id, t.notify_when, t.template, 2000 + t.position
        FROM notify_tenant_rules t
       WHERE t.tenant_id = p_tenant_id AND t.notify_when = 'failures'
         AND v_run.status = 'failed' AND t.failures = v_job.consecutive_failures
      ORDER BY 4
    LOOP
      v_send := false;
      v_notify := NULL;
      CASE v_rule.notify_when
        WHEN 'always', 'failures' THEN
          v_send := true;
        WHEN 'failed' THEN
          v_send := v_run.status = 'failed';
        WHEN 'recovered' THEN
          IF v_run.status = 'success' THEN
            SELECT r.status INTO v_previous FROM cron_job_runs r
             WHERE r.cron_job_id = p_cron_job_id AND r.scheduled_at < v_run.scheduled_at
               AND r.status IN ('success', 'failed')
             ORDER BY r.scheduled_at DESC LIMIT 1;
            v_send := v_previous = 'failed';
          END IF;
        WHEN 'changed' THEN
          IF v_run.status = 'success' THEN
            SELECT r.result INTO v_previous_answer FROM cron_job_runs r
             WHERE r.cron_job_id = p_cron_job_id AND r.scheduled_at < v_run.scheduled_at
               AND r.status = 'success'
             ORDER BY r.scheduled_at DESC LIMIT 1;
            v_send := FOUND AND channel_normalized_answer(v_previous_answer)
                                <> channel_normalized_answer(v_run.result);
          END IF;
        WHEN 'agent' THEN
          IF v_run.status = 'success' THEN
            SELECT c.arguments INTO v_notify FROM cron_run_tool_calls c
             WHERE c.run_id = p_run_id AND c.tool = 'notify' AND c.status = 'ok'
             ORDER BY c.seq DESC LIMIT 1;
            v_send := v_notify IS NOT NULL
                      OR left(btrim(coalesce(v_run.result, ''), E' \t\r\n'), 8) <> '[SILENT]';
          END IF;
        ELSE
          v_send := false;
      END CASE;
      CONTINUE WHEN NOT v_send;
      v_payload := jsonb_build_object(
        'subject', 'run',
        'reason', v_rule.notify_when,
        'template', v_rule.template,
        'job_id', p_cron_job_id,
        'job_name', coalesce(v_job.name, ''),
        'run_id', p_run_id,
        'status', v_run.status,
        'answer', left(v_run.result, 16384),
        'error', v_run.error,
        'error_kind', v_run.error_kind,
        'origin', v_run.origin,
        'duration_ms', v_run.duration_ms,
        'consecutive_failures', v_job.consecutive_failures,
        'scheduled_at', to_char(v_run.scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'finished_at', to_char(coalesce(v_run.finished_at, now()) AT TIME ZONE 'UTC',
                               'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
        'message', left(v_notify->>'message', 4000),
        'severity', v_notify->>'severity');
      INSERT INTO channel_deliveries (tenant_id, channel_id, cron_job_id, run_id, run_status,
                                      reason, payload)
      SELECT c.tenant_id, c.id, p_cron_job_id, p_run_id, v_run.status, v_rule.notify_when,
             v_payload
        FROM notify_channels c
       WHERE c.id = v_rule.channel_id AND c.tenant_id = p_tenant_id AND c.enabled
      ON CONFLICT (channel_id, run_id, run_status) DO NOTHING;
    END LOOP;
  END
  $function$
CREATE OR REPLACE FUNCTION public.channel_enqueue_run_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM channel_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.scheduled_at);
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.channel_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text, p_status_code integer, p_error text, p_response text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_disable_after_seconds integer)
 RETURNS TABLE(status text, disabled boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  #variable_conflict use_column
  DECLARE
    v_delivery channel_deliveries%ROWTYPE;
    v_channel notify_channels%ROWTYPE;
    v_status text;
  BEGIN
    SELECT * INTO v_delivery FROM channel_deliveries d WHERE d.id = p_delivery_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    INSERT INTO channel_delivery_attempts (delivery_id, tenant_id, attempt, duration_ms,
                                           status_code, error, outcome, next_attempt_at, pod_id)
    VALUES (p_delivery_id, v_delivery.tenant_id, v_delivery.attempts + 1, p_duration_ms,
            p_status_code, left(p_error, 1024), p_outcome,
            CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at END, p_pod_id);
    IF v_delivery.status <> 'pending' OR v_delivery.leased_by IS DISTINCT FROM p_pod_id THEN
      RETURN QUERY SELECT v_delivery.status, false;
      RETURN;
    END IF;
    v_status := CASE p_outcome WHEN 'delivered' THEN 'delivered' WHEN 'retry' THEN 'pending'
                ELSE 'failed' END;
    UPDATE channel_deliveries d
       SET status = v_status,
           attempts = d.attempts + 1,
           leased_by = NULL,
           next_attempt_at = CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at
                                  ELSE d.next_attempt_at END,
           last_status_code = p_status_code,
           last_error = left(p_error, 1024),
           last_response = left(p_response, 1024),
           delivered_at = CASE WHEN p_outcome = 'delivered' THEN now() END,
           updated_at = now()
     WHERE d.id = p_delivery_id;
    IF p_outcome = 'delivered' THEN
      UPDATE notify_channels c SET failing_since = NULL
       WHERE c.id = v_delivery.channel_id AND c.failing_since IS NOT NULL;
      RETURN QUERY SELECT v_status, false;
      RETURN;
    END IF;
    UPDATE notify_channels c SET failing_since = coalesce(c.failing_since, now())
     WHERE c.id = v_delivery.channel_id
    RETURNING * INTO v_channel;
    IF v_channel.enabled
       AND v_channel.failing_since < now() - make_interval(secs => p_disable_after_seconds) THEN
      UPDATE notify_channels c
         SET enabled = false, disabled_reason = 'failing', updated_at = now()
       WHERE c.id = v_channel.id;
      UPDATE channel_deliveries d
         SET status = 'cancelled', leased_by = NULL, updated_at = now(),
             last_error = 'channel disabled (failing)'
       WHERE d.channel_id = v_channel.id AND d.status = 'pending';
      INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                      payload)
      SELECT e.tenant_id, e.id, NULL, NULL, 'channel.disabled', jsonb_build_object(
               'channel_id', v_channel.id,
               'channel_name', v_channel.name,
               'kind', v_channel.kind,
               'disabled_reason', 'failing',
               'failing_since', to_char(v_channel.failing_since AT TIME ZONE 'UTC',
                                        'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'disabled_at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
               'last_error', left(p_error, 1024))
        FROM webhook_endpoints e
       WHERE e.tenant_id = v_channel.tenant_id AND e.enabled AND e.cron_job_id IS NULL
         AND (cardinality(e.events) = 0 OR 'channel.disabled' = ANY (e.events));
      RETURN QUERY SELECT (SELECT d.status FROM channel_deliveries d WHERE d.id = p_delivery_id),
                          true;
      RETURN;
    END IF;
    RETURN QUERY SELECT v_status, false;
  END
  $function$
CREATE OR REPLACE FUNCTION public.channel_normalized_answer(p_text text)
 RETURNS text
 LANGUAGE sql
 IMMUTABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT btrim(regexp_replace(coalesce(p_text, ''), '\s+', ' ', 'g'))
  $function$
CREATE OR REPLACE FUNCTION public.channel_plain_urls(p_after uuid, p_limit integer)
 RETURNS TABLE(id uuid, tenant_id uuid, kind text, url text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT c.id, c.tenant_id, c.kind, c.config->>'url'
      FROM notify_channels c
     WHERE c.kind IN ('slack', 'discord', 'teams')
       AND jsonb_typeof(c.config->'url') = 'string'
       AND (p_after IS NULL OR c.id > p_after)
     ORDER BY c.id
     LIMIT p_limit;
  $function$
CREATE OR REPLACE FUNCTION public.channel_prune_deliveries(p_older_than_seconds integer, p_limit integer)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH gone AS (
      DELETE FROM channel_deliveries d
       WHERE d.id IN (SELECT o.id FROM channel_deliveries o
                       WHERE o.status <> 'pending'
                         AND o.created_at < now() - make_interval(secs => p_older_than_seconds)
                       ORDER BY o.created_at LIMIT p_limit)
      RETURNING 1)
    SELECT count(*)::integer FROM gone
  $function$
CREATE OR REPLACE FUNCTION public.channel_seal_url(p_id uuid, p_url text, p_sealed text, p_shown text)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH sealed AS (
      UPDATE notify_channels c
         SET config = (c.config - 'url')
                      || jsonb_build_object('url_sealed', p_sealed, 'url_shown', p_shown)
       WHERE c.id = p_id
         AND c.config->>'url' = p_url
      RETURNING 1
    )
    SELECT count(*) > 0 FROM sealed;
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_add_partition(p_name text, p_bounds text)
 RETURNS void
 LANGUAGE plpgsql
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    policy record;
  BEGIN
    EXECUTE format('CREATE TABLE public.%I PARTITION OF public.cron_job_runs %s', p_name, p_bounds);
    EXECUTE format('ALTER TABLE public.%I ENABLE ROW LEVEL SECURITY', p_name);
    EXECUTE format('ALTER TABLE public.%I FORCE ROW LEVEL SECURITY', p_name);
    EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON public.%I TO hermesx_app', p_name);
    FOR policy IN
      SELECT p.polname, p.polcmd, p.polpermissive,
             pg_get_expr(p.polqual, p.polrelid) AS qual,
             pg_get_expr(p.polwithcheck, p.polrelid) AS withcheck,
             ARRAY(SELECT CASE WHEN r = 0 THEN 'public' ELSE quote_ident(r::regrole::text) END
                     FROM unnest(p.polroles) AS r) AS roles
        FROM pg_policy p WHERE p.polrelid = 'public.cron_job_runs'::regclass
    LOOP
      EXECUTE format('CREATE POLICY %I ON public.%I AS %s FOR %s TO %s%s%s',
        policy.polname, p_name,
        CASE WHEN policy.polpermissive THEN 'PERMISSIVE' ELSE 'RESTRICTIVE' END,
        CASE policy.polcmd WHEN 'r' THEN 'SELECT' WHEN 'a' THEN 'INSERT' WHEN 'w' THEN 'UPDATE'
                           WHEN 'd' THEN 'DELETE' ELSE 'ALL' END,
        array_to_string(policy.roles, ', '),
        CASE WHEN policy.qual IS NULL THEN '' ELSE format(' USING (%s)', policy.qual) END,
        CASE WHEN policy.withcheck IS NULL THEN '' ELSE format(' WITH CHECK (%s)', policy.withcheck) END);
    END LOOP;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_in_flight_added()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_in_flight_changed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f
     USING new_runs n
     WHERE f.run_id = n.id AND n.status NOT IN ('claimed', 'running');
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT n.id, n.cron_job_id, n.tenant_id, n.scheduled_at
      FROM new_runs n
     WHERE n.status IN ('claimed', 'running')
    ON CONFLICT (run_id) DO NOTHING;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_in_flight_cleared()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    DELETE FROM cron_job_runs_in_flight;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_in_flight_removed()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    DELETE FROM cron_job_runs_in_flight f USING old_runs o WHERE f.run_id = o.id;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_job_runs_retry_attempt()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    job record;
  BEGIN
    IF NEW.error_kind IS NULL OR NEW.error_kind NOT IN (
         'model_unreachable', 'model_throttled', 'model_error', 'timeout', 'pod_lost') THEN
      RETURN NEW;
    END IF;
    SELECT j.enabled, j.retry_max_attempts, j.retry_backoff_ms, j.retry_after_side_effects
      INTO job FROM cron_jobs j WHERE j.id = NEW.cron_job_id;
    IF NOT FOUND OR NOT job.enabled OR job.retry_max_attempts IS NULL
       OR OLD.attempt >= job.retry_max_attempts THEN
      RETURN NEW;
    END IF;
    IF NOT job.retry_after_side_effects AND EXISTS (
         SELECT 1 FROM cron_run_tool_calls c
          WHERE c.run_id = NEW.id AND c.side_effects IS NOT FALSE) THEN
      RETURN NEW;
    END IF;
    NEW.previous_attempts := OLD.previous_attempts || jsonb_build_array(jsonb_build_object(
      'attempt', OLD.attempt,
      'status', 'failed',
      'error_kind', NEW.error_kind,
      'error', NEW.error,
      'started_at', OLD.started_at,
      'finished_at', now(),
      'duration_ms', greatest(0, (extract(epoch FROM now() - OLD.started_at) * 1000))::integer,
      'pod_id', OLD.pod_id,
      'model_requests', NEW.attempts));
    NEW.status := 'queued';
    NEW.attempt := OLD.attempt + 1;
    NEW.not_before := now() + least(
      make_interval(secs => job.retry_backoff_ms / 1000.0 * (2 ^ (OLD.attempt - 1))),
      interval '1 hour');
    NEW.pod_id := NULL;
    NEW.finished_at := NULL;
    NEW.duration_ms := NULL;
    NEW.error := NULL;
    NEW.error_kind := NULL;
    NEW.result := NULL;
    NEW.result_object_key := NULL;
    NEW.result_bytes := NULL;
    NEW.result_truncated := false;
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_apply_run_limits()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF NEW.run_count <= OLD.run_count THEN
      RETURN NEW;
    END IF;
    NEW.consecutive_failures := CASE WHEN NEW.last_run_success THEN 0
                                     ELSE OLD.consecutive_failures + 1 END;
    IF NOT NEW.enabled THEN
      RETURN NEW;
    END IF;
    IF NEW.max_runs IS NOT NULL AND NEW.run_count >= NEW.max_runs THEN
      NEW.stopped_by := 'max_runs';
      NEW.paused_reason := format('max_runs reached: %s runs', NEW.run_count);
    ELSIF NEW.pause_after_failures IS NOT NULL
          AND NEW.consecutive_failures >= NEW.pause_after_failures THEN
      NEW.stopped_by := 'pause_after_failures';
      NEW.paused_reason := left(format('%s consecutive failed runs; last error: %s',
                                       NEW.consecutive_failures, NEW.last_run_error), 500);
    ELSE
      RETURN NEW;
    END IF;
    NEW.enabled := false;
    NEW.paused_at := now();
    NEW.paused_by := 'system';
    NEW.next_run_at := NULL;
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_notify()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    row_id uuid := CASE WHEN TG_OP = 'DELETE' THEN OLD.id ELSE NEW.id END;
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', row_id::text);
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_notify_rows()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF (SELECT count(*) FROM (SELECT 1 FROM changed LIMIT 1001) AS c) > 1000 THEN
      PERFORM pg_notify('hermesx_cron_jobs', '*');
    ELSE
      PERFORM pg_notify('hermesx_cron_jobs', c.id::text) FROM changed c;
    END IF;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_touch()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    NEW.updated_at := now();
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_track_controls()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF (NEW.labels, NEW.pause_after_failures, NEW.ends_at, NEW.max_runs, NEW.timeout_ms, NEW.model,
        NEW.jitter_ms, NEW.overlap)
       IS DISTINCT FROM
       (OLD.labels, OLD.pause_after_failures, OLD.ends_at, OLD.max_runs, OLD.timeout_ms, OLD.model,
        OLD.jitter_ms, OLD.overlap) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_track_definition()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF (NEW.schedule, NEW.timezone) IS DISTINCT FROM (OLD.schedule, OLD.timezone)
       OR (NEW.enabled AND NOT OLD.enabled) THEN
      NEW.due_from := now();
      IF NEW.next_run_at IS NOT DISTINCT FROM OLD.next_run_at THEN
        NEW.next_run_at := NULL;
      END IF;
    END IF;
    IF (NEW.tenant_id, NEW.name, NEW.schedule, NEW.timezone, NEW.prompt, NEW.enabled)
       IS DISTINCT FROM (OLD.tenant_id, OLD.name, OLD.schedule, OLD.timezone, OLD.prompt, OLD.enabled) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.cron_jobs_track_retry()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  BEGIN
    IF (NEW.retry_max_attempts, NEW.retry_backoff_ms, NEW.retry_after_side_effects)
       IS DISTINCT FROM
       (OLD.retry_max_attempts, OLD.retry_backoff_ms, OLD.retry_after_side_effects) THEN
      NEW.updated_at := now();
    END IF;
    RETURN NEW;
  END
  $function$
CREATE OR REPLACE FUNCTION public.idempotency_sweep(window_ms bigint, batch integer)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH gone AS (
      DELETE FROM idempotency_keys
       WHERE ctid = ANY (ARRAY(
         SELECT ctid FROM idempotency_keys
          WHERE created_at < now() - make_interval(secs => window_ms / 1000.0)
          LIMIT batch))
      RETURNING 1)
    SELECT count(*)::integer FROM gone
  $function$
CREATE OR REPLACE FUNCTION public.outbox_enqueue_finished_runs()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
  DECLARE
    v_run record;
  BEGIN
    FOR v_run IN
      SELECT n.tenant_id, n.cron_job_id, n.id, n.status, n.scheduled_at
        FROM new_runs n
        JOIN old_runs o ON o.id = n.id AND o.scheduled_at = n.scheduled_at
       WHERE n.status IN ('success', 'failed') AND o.status NOT IN ('success', 'failed')
         AND (EXISTS (SELECT 1 FROM webhook_endpoints e
                       WHERE e.tenant_id = n.tenant_id AND e.enabled)
              OR EXISTS (SELECT 1 FROM notify_channels c
                          WHERE c.tenant_id = n.tenant_id AND c.enabled))
         AND NOT (o.status = 'queued'
                  AND EXISTS (SELECT 1 FROM cron_jobs j
                               WHERE j.id = n.cron_job_id AND j.deleted_at IS NOT NULL))
       ORDER BY n.scheduled_at, n.id
    LOOP
      PERFORM webhook_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id, v_run.status);
      PERFORM channel_enqueue_run(v_run.tenant_id, v_run.cron_job_id, v_run.id,
                                  v_run.scheduled_at);
    END LOOP;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_active_runs()
 RETURNS TABLE(run_id uuid, cron_job_id uuid, pod_id text, status text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT id, cron_job_id, pod_id, status FROM cron_job_runs
     WHERE status IN ('claimed', 'running')
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_adopt(p_run_ids uuid[], p_from_pods text[], p_pod_id text)
 RETURNS TABLE(run_id uuid, cron_job_id uuid, tenant_id uuid, scheduled_at timestamp with time zone, name text, prompt text, timeout_ms integer, model text, attempt integer)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH adopted AS (
      UPDATE cron_job_runs r SET pod_id = p_pod_id
        FROM unnest(p_run_ids, p_from_pods) AS i (run_id, from_pod)
       WHERE r.id = i.run_id AND r.pod_id = i.from_pod AND r.status = 'claimed'
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.scheduled_at, r.attempt
    )
    SELECT a.id, a.cron_job_id, a.tenant_id, a.scheduled_at, j.name, j.prompt, j.timeout_ms, j.model,
           a.attempt
      FROM adopted a JOIN cron_jobs j ON j.id = a.cron_job_id
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_advance(p_ids uuid[], p_past_ats timestamp with time zone[], p_next_run_ats timestamp with time zone[])
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE cron_jobs j SET next_run_at = i.next_run_at
      FROM unnest(p_ids, p_past_ats, p_next_run_ats) AS i (id, past_at, next_run_at)
     WHERE j.id = i.id AND j.next_run_at <= i.past_at AND i.next_run_at > j.next_run_at
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_cancel_older(p_job_id uuid, p_scheduled_at timestamp with time zone)
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_run uuid;
  BEGIN
    FOR v_run IN
      SELECT r.id FROM cron_job_runs r
       WHERE r.cron_job_id = p_job_id AND r.status IN ('claimed', 'running')
         AND r.scheduled_at < p_scheduled_at
    LOOP
      PERFORM pg_notify('hermesx_run_cancels', p_job_id::text || '|' || v_run::text || '|overlap');
      RETURN NEXT v_run;
    END LOOP;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_cancels_requested(p_run_ids uuid[])
 RETURNS TABLE(run_id uuid, cron_job_id uuid)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT r.id, r.cron_job_id FROM cron_job_runs r
     WHERE r.id = ANY (p_run_ids) AND r.cancel_requested_at IS NOT NULL
       AND r.status IN ('claimed', 'running')
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_claim(p_job_ids uuid[], p_scheduled_ats timestamp with time zone[], p_next_run_ats timestamp with time zone[], p_pod_id text, p_origins text[] DEFAULT NULL::text[])
 RETURNS TABLE(cron_job_id uuid, scheduled_at timestamp with time zone, run_id uuid, name text, prompt text, refused text, timeout_ms integer, model text, skills text[], previous_result boolean, context_version bigint, output_schema jsonb, models text[], notify_agent boolean, monthly_budget_micros bigint, monthly_budget_tokens bigint, daily_budget_micros bigint, max_run_tokens integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_seqscan TO 'off'
AS $function$
  #variable_conflict use_column
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || t.id::text, 0))
       FROM tenants t
      WHERE t.max_concurrent_runs > 0
        AND t.id IN (SELECT j.tenant_id FROM cron_jobs j WHERE j.id IN (SELECT unnest(p_job_ids)))
      ORDER BY t.id;
    RETURN QUERY
    WITH input AS (
      SELECT c.job_id, c.scheduled_at, c.next_run_at, c.origin, c.ord
        FROM unnest(p_job_ids, p_scheduled_ats, p_next_run_ats,
                    coalesce(p_origins, array_fill(NULL::text, ARRAY[cardinality(p_job_ids)])))
             WITH ORDINALITY AS c (job_id, scheduled_at, next_run_at, origin, ord)
    ), job AS MATERIALIZED (
      -- The batch's jobs by primary key first: after a bulk import the statistics say "a few
      -- jobs", and the planner then read every job of every tenant to join them with the batch.
      -- (enabled and deleted_at are tested after: here they would make the due index, whose
      -- predicate they are, look like the cheaper way to find the ids.)
      SELECT j.id, j.tenant_id, j.overlap, j.name, j.prompt, j.timeout_ms, j.model, j.skills,
             j.context_previous_result, j.enabled AND j.deleted_at IS NULL AS live,
             j.output_schema, j.models, j.notify_rules, j.daily_budget_micros, j.max_run_tokens
        FROM cron_jobs j
       WHERE j.id = ANY (p_job_ids)
    ), candidate AS (
      SELECT i.job_id, i.scheduled_at, i.origin, j.tenant_id, t.max_concurrent_runs AS cap,
             row_number() OVER (PARTITION BY j.tenant_id ORDER BY i.ord) AS rank_in_tenant
        FROM input i
        JOIN job j ON j.id = i.job_id
        JOIN tenants t ON t.id = j.tenant_id
       WHERE j.live AND t.deleted_at IS NULL
         -- overlap 'allow_all': occurrences of the job run side by side (each once, by the key).
         AND (j.overlap = 'allow_all'
              OR NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight x
                              WHERE x.cron_job_id = i.job_id))
    ), room AS (
      SELECT c.*, CASE WHEN coalesce(c.cap, 0) = 0 THEN true
                       ELSE c.rank_in_tenant <= c.cap - (
                         SELECT count(*) FROM cron_job_runs_in_flight a
                          WHERE a.tenant_id = c.tenant_id)
                  END AS admitted
        FROM candidate c
    ), claimed AS (
      INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id,
                                      origin, model_called_at, attempts)
      SELECT m.job_id, m.tenant_id, m.scheduled_at,
             CASE WHEN m.origin IS NULL THEN 'claimed' ELSE 'running' END, p_pod_id,
             coalesce(m.origin, 'scheduled'),
             CASE WHEN m.origin IS NULL THEN NULL ELSE now() END,
             CASE WHEN m.origin IS NULL THEN 0 ELSE 1 END
        FROM room m WHERE m.admitted
      ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
      RETURNING r.cron_job_id, r.scheduled_at, r.id, r.tenant_id
    ), moved AS (
      -- Each claimed occurrence's next occurrence, found by its place in the input arrays.
      -- Not by a join with `input` or `candidate`: planned for the few rows the statistics
      -- promise, such a join compared every claimed row with every input row, which cost a batch
      -- of 500 more than inserting its runs (bench/record-cost.ts --batch 500). A job is in a
      -- batch once but for catch-ups of 'allow_all' jobs: its first place is checked against the
      -- occurrence, and the others searched only if it is not that one.
      SELECT c.cron_job_id, c.scheduled_at,
             CASE WHEN p_scheduled_ats[f.k] = c.scheduled_at THEN p_next_run_ats[f.k]
                  ELSE (SELECT p_next_run_ats[k]
                          FROM unnest(array_positions(p_job_ids, c.cron_job_id)) AS k
                         WHERE p_scheduled_ats[k] = c.scheduled_at
                         LIMIT 1)
             END AS next_run_at
        FROM claimed c
        CROSS JOIN LATERAL (SELECT array_position(p_job_ids, c.cron_job_id) AS k) f
    ), advanced AS (
      -- Per job, the latest occurrence claimed with a next one decides (several occurrences of
      -- one job in a batch would otherwise each offer the row a value, and one would win at
      -- random).
      UPDATE cron_jobs j SET next_run_at = v.next_run_at
        FROM (SELECT m.cron_job_id, max(m.scheduled_at) AS scheduled_at,
                     max(m.next_run_at) AS next_run_at
                FROM moved m
               WHERE m.next_run_at IS NOT NULL
               GROUP BY m.cron_job_id) v
       WHERE j.id = v.cron_job_id
         AND j.next_run_at <= v.scheduled_at AND v.next_run_at > j.next_run_at
    )
    SELECT c.cron_job_id, c.scheduled_at, c.id, j.name, j.prompt, NULL::text, j.timeout_ms, j.model,
           j.skills, j.context_previous_result, tn.run_context_version, j.output_schema, j.models,
           CASE WHEN j.notify_rules IS NULL
                THEN EXISTS (SELECT 1 FROM notify_tenant_rules t
                              WHERE t.tenant_id = j.tenant_id AND t.notify_when = 'agent')
                ELSE EXISTS (SELECT 1 FROM jsonb_array_elements(j.notify_rules) r
                              WHERE r->>'when' = 'agent')
           END,
           tn.monthly_budget_micros, tn.monthly_budget_tokens, j.daily_budget_micros, j.max_run_tokens
      FROM claimed c
      JOIN job j ON j.id = c.cron_job_id
      JOIN tenants tn ON tn.id = c.tenant_id
    UNION ALL
    SELECT m.job_id, m.scheduled_at, NULL::uuid, NULL::text, NULL::text, 'capped', NULL, NULL,
           NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL
      FROM room m WHERE NOT m.admitted;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_claim_waiting(p_job_id uuid, p_scheduled_at timestamp with time zone, p_next_run_at timestamp with time zone, p_pod_id text)
 RETURNS TABLE(run_id uuid, name text, prompt text, refused text, timeout_ms integer, model text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
AS $function$
  #variable_conflict use_column
  DECLARE
    v_job cron_jobs%ROWTYPE;
    v_cap integer;
    v_id uuid;
  BEGIN
    SELECT j.* INTO v_job FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.id = p_job_id AND j.enabled AND j.deleted_at IS NULL AND t.deleted_at IS NULL
       AND j.overlap IN ('buffer_one', 'cancel_other');
    IF NOT FOUND THEN
      RETURN;
    END IF;
    SELECT t.max_concurrent_runs INTO v_cap FROM tenants t WHERE t.id = v_job.tenant_id;
    IF coalesce(v_cap, 0) > 0 THEN
      PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || v_job.tenant_id::text, 0));
    END IF;
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:overlap:' || p_job_id::text, 0));
    IF (SELECT count(*) FROM cron_job_runs_in_flight x
         WHERE x.cron_job_id = p_job_id AND x.scheduled_at <> p_scheduled_at) >= 2 THEN
      RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::text, 'overlap'::text, NULL::integer,
                          NULL::text;
      RETURN;
    END IF;
    IF coalesce(v_cap, 0) > 0 AND (SELECT count(*) FROM cron_job_runs_in_flight a
                                    WHERE a.tenant_id = v_job.tenant_id) >= v_cap THEN
      RETURN QUERY SELECT NULL::uuid, NULL::text, NULL::text, 'capped'::text, NULL::integer,
                          NULL::text;
      RETURN;
    END IF;
    INSERT INTO cron_job_runs AS r (cron_job_id, tenant_id, scheduled_at, status, pod_id)
    VALUES (p_job_id, v_job.tenant_id, p_scheduled_at, 'claimed', p_pod_id)
    ON CONFLICT ON CONSTRAINT cron_job_runs_cron_job_id_scheduled_at_key DO NOTHING
    RETURNING r.id INTO v_id;
    IF v_id IS NULL THEN
      RETURN;
    END IF;
    IF p_next_run_at IS NOT NULL THEN
      UPDATE cron_jobs j SET next_run_at = p_next_run_at
       WHERE j.id = p_job_id AND j.next_run_at <= p_scheduled_at AND p_next_run_at > j.next_run_at;
    END IF;
    RETURN QUERY SELECT v_id, v_job.name, v_job.prompt, NULL::text, v_job.timeout_ms, v_job.model;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_cleanup_stale_runs(lock_ttl_seconds integer)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT count(*)::integer FROM scheduler_fail(
      ARRAY(SELECT id FROM cron_job_runs
             WHERE status IN ('claimed', 'running')
               AND started_at < now() - make_interval(secs => lock_ttl_seconds)),
      'pod crash or lock TTL exceeded', 'lock_lost')
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_due_jobs(p_until timestamp with time zone, p_after_at timestamp with time zone, p_after_id uuid, p_limit integer)
 RETURNS TABLE(id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamp with time zone, updated_at timestamp with time zone, next_run_at timestamp with time zone, ends_at timestamp with time zone, jitter_ms integer, overlap text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
           j.ends_at, j.jitter_ms, j.overlap
      FROM cron_jobs j
     WHERE j.enabled AND j.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = j.tenant_id AND t.deleted_at IS NOT NULL)
       AND j.next_run_at <= p_until
       AND (j.next_run_at, j.id) > (coalesce(p_after_at, '-infinity'),
                                    coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
     ORDER BY j.next_run_at, j.id
     LIMIT p_limit
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_fail(p_run_ids uuid[], p_error text, p_error_kind text)
 RETURNS TABLE(run_id uuid, cron_job_id uuid, requeued boolean)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH failed AS (
      UPDATE cron_job_runs r
         SET status = 'failed',
             error = left(p_error, 1024),
             error_kind = p_error_kind,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer
       WHERE r.id IN (SELECT unnest(p_run_ids)) AND r.status IN ('claimed', 'running')
      RETURNING r.id, r.cron_job_id, r.started_at, r.status
    ), latest AS (
      SELECT DISTINCT ON (f.cron_job_id) f.cron_job_id, f.started_at
        FROM failed f WHERE f.status = 'failed' ORDER BY f.cron_job_id, f.started_at DESC
    ), jobs AS (
      UPDATE cron_jobs j
         SET last_run_at = l.started_at,
             last_run_success = false,
             last_run_error = left(p_error, 1024),
             last_run_error_kind = p_error_kind,
             run_count = j.run_count + 1
        FROM latest l
       WHERE j.id = l.cron_job_id
    )
    SELECT f.id, f.cron_job_id, f.status = 'queued' FROM failed f
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_finish(p_run_ids uuid[], p_success boolean[], p_results text[], p_errors text[], p_error_kinds text[], p_attempts integer[], p_pod_id text, p_details jsonb[] DEFAULT NULL::jsonb[], p_scheduled_ats timestamp with time zone[] DEFAULT NULL::timestamp with time zone[])
 RETURNS TABLE(run_id uuid, requeued boolean)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_bitmapscan TO 'off'
 SET enable_seqscan TO 'off'
AS $function$
  #variable_conflict use_column
  DECLARE
    -- Plain values, so the generic plan prunes partitions when it starts; unknown: all of them.
    v_from timestamptz := '-infinity';
    v_to timestamptz := 'infinity';
  BEGIN
    IF p_scheduled_ats IS NOT NULL AND array_position(p_scheduled_ats, NULL) IS NULL THEN
      SELECT min(s), max(s) INTO v_from, v_to FROM unnest(p_scheduled_ats) AS s;
    END IF;
    RETURN QUERY
    WITH input AS (
      SELECT * FROM unnest(p_run_ids, p_success, p_results, p_errors, p_error_kinds, p_attempts,
                           p_details)
               AS i (run_id, success, result, error, error_kind, attempts, d)
    ), target AS MATERIALIZED (
      SELECT i.*, t.scheduled_at AS run_at
        FROM input i
        CROSS JOIN LATERAL (
          SELECT r.scheduled_at FROM cron_job_runs r
           WHERE r.id = i.run_id AND r.scheduled_at BETWEEN v_from AND v_to
             AND coalesce(r.status IN ('claimed', 'running'), false) AND r.pod_id = p_pod_id
           LIMIT 1) t
    ), run AS (
      UPDATE cron_job_runs r
         SET status = CASE WHEN i.success THEN 'success' ELSE 'failed' END,
             result = i.result,
             result_object_key = i.d->>'result_object_key',
             result_bytes = (i.d->>'result_bytes')::integer,
             result_truncated = coalesce((i.d->>'result_truncated')::boolean, false),
             detail = coalesce(i.d->'detail', r.detail),
             output = CASE WHEN i.success THEN i.d->'output' END,
             error = left(i.error, 1024),
             error_kind = CASE WHEN i.success THEN NULL ELSE i.error_kind END,
             attempts = i.attempts,
             finished_at = now(),
             duration_ms = greatest(0, (extract(epoch FROM now() - r.started_at) * 1000))::integer,
             prompt_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.prompt_tokens, 0)
                               + (i.d->'usage'->>'prompt_tokens')::integer ELSE r.prompt_tokens END,
             cached_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.cached_tokens, 0)
                               + (i.d->'usage'->>'cached_tokens')::integer ELSE r.cached_tokens END,
             completion_tokens = CASE WHEN i.d ? 'usage' THEN coalesce(r.completion_tokens, 0)
                               + (i.d->'usage'->>'completion_tokens')::integer
                               ELSE r.completion_tokens END,
             cost_micros = CASE WHEN NOT i.d ? 'usage' THEN r.cost_micros
                                WHEN r.prompt_tokens IS NOT NULL AND r.cost_micros IS NULL THEN NULL
                                ELSE coalesce(r.cost_micros, 0)
                                     + (i.d->'usage'->>'cost_micros')::bigint END
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at
         AND coalesce(r.status IN ('claimed', 'running'), false) AND r.pod_id = p_pod_id
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.origin, r.started_at, r.status, i.success,
                i.error, r.error_kind, i.d
    ), ledger AS (
      INSERT INTO model_usage (tenant_id, cron_job_id, run_id, origin, model, prompt_tokens,
                               cached_tokens, completion_tokens, cost_micros)
      SELECT run.tenant_id, run.cron_job_id, run.id, coalesce(run.origin, 'scheduled'),
             left(c->>'model', 200), (c->>'prompt_tokens')::integer,
             (c->>'cached_tokens')::integer, (c->>'completion_tokens')::integer,
             (c->>'cost_micros')::bigint
        FROM run, jsonb_array_elements(coalesce(run.d->'usage_calls', '[]')) AS c
    ), job AS (
      UPDATE cron_jobs j
         SET last_run_at = run.started_at,
             last_run_success = run.success,
             last_run_error = left(run.error, 1024),
             last_run_error_kind = run.error_kind,
             budget_resets_at = CASE WHEN run.paused_by_budget
                                     THEN (run.d->>'budget_resets_at')::timestamptz
                                     ELSE j.budget_resets_at END,
             enabled = j.enabled AND NOT run.paused_by_budget,
             paused_at = CASE WHEN run.paused_by_budget AND j.enabled THEN now() ELSE j.paused_at END,
             paused_by = CASE WHEN run.paused_by_budget AND j.enabled THEN 'system' ELSE j.paused_by END,
             stopped_by = CASE WHEN run.paused_by_budget AND j.enabled THEN 'budget'
                               ELSE j.stopped_by END,
             paused_reason = CASE WHEN run.paused_by_budget AND j.enabled
                                  THEN left(run.error, 500) ELSE j.paused_reason END,
             next_run_at = CASE WHEN run.paused_by_budget AND j.enabled THEN NULL
                                ELSE j.next_run_at END,
             run_count = j.run_count + 1
        FROM (SELECT run.*, (run.error_kind = 'budget_exhausted'
                             AND run.d->>'budget_resets_at' IS NOT NULL) AS paused_by_budget
                FROM run) AS run
       WHERE j.id = run.cron_job_id AND run.status <> 'queued'
    )
    SELECT run.id, run.status = 'queued' FROM run;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_installation_id()
 RETURNS uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$ SELECT id FROM installation $function$
CREATE OR REPLACE FUNCTION public.scheduler_load_schedules(p_ids uuid[] DEFAULT NULL::uuid[])
 RETURNS TABLE(id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamp with time zone, updated_at timestamp with time zone, next_run_at timestamp with time zone, ends_at timestamp with time zone, jitter_ms integer, overlap text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at,
           nullif(j.next_run_at, 'infinity'), j.ends_at, j.jitter_ms, j.overlap
      FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
     WHERE j.enabled AND j.deleted_at IS NULL AND t.deleted_at IS NULL
       -- IN (SELECT unnest()) is a hashed semi-join; = ANY (p_ids) would compare each row with
       -- every id, quadratic for the thousands of ids a bulk insert notifies.
       AND (p_ids IS NULL OR j.id IN (SELECT unnest(p_ids)))
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_mark_sent(p_run_ids uuid[], p_pod_id text, p_origins text[] DEFAULT NULL::text[], p_scheduled_ats timestamp with time zone[] DEFAULT NULL::timestamp with time zone[])
 RETURNS SETOF uuid
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET plan_cache_mode TO 'force_generic_plan'
 SET enable_bitmapscan TO 'off'
 SET enable_seqscan TO 'off'
AS $function$
  DECLARE
    -- Plain values, so the generic plan prunes partitions when it starts; unknown: all of them.
    v_from timestamptz := '-infinity';
    v_to timestamptz := 'infinity';
  BEGIN
    IF p_scheduled_ats IS NOT NULL AND array_position(p_scheduled_ats, NULL) IS NULL THEN
      SELECT min(s), max(s) INTO v_from, v_to FROM unnest(p_scheduled_ats) AS s;
    END IF;
    RETURN QUERY
    WITH target AS MATERIALIZED (
      SELECT i.run_id, i.origin, t.scheduled_at AS run_at, t.deleted
        FROM unnest(p_run_ids, p_origins) AS i (run_id, origin)
        CROSS JOIN LATERAL (
          SELECT r.scheduled_at,
                 EXISTS (SELECT 1 FROM cron_jobs j
                          WHERE j.id = r.cron_job_id AND j.deleted_at IS NOT NULL) AS deleted
            FROM cron_job_runs r
           WHERE r.id = i.run_id AND r.scheduled_at BETWEEN v_from AND v_to
             AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
           LIMIT 1) t
    ), sent AS (
      UPDATE cron_job_runs r
         SET status = 'running', model_called_at = now(), attempts = greatest(r.attempts, 1),
             origin = coalesce(i.origin, r.origin)
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at AND NOT i.deleted
         AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
      RETURNING r.id
    ), stopped AS (
      UPDATE cron_job_runs r
         SET status = 'failed', error_kind = 'cancelled', error = 'cancelled: the job was deleted',
             finished_at = now(), duration_ms = 0
        FROM target i
       WHERE r.id = i.run_id AND r.scheduled_at = i.run_at AND i.deleted
         AND coalesce(r.status = 'claimed', false) AND r.pod_id = p_pod_id
      RETURNING r.id
    )
    SELECT s.id FROM sent s;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_missed_triggers(p_since timestamp with time zone, p_after_at timestamp with time zone, p_after_id uuid, p_limit integer)
 RETURNS TABLE(id uuid, last_triggered_at timestamp with time zone)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT j.id, j.last_triggered_at
      FROM cron_jobs j
     WHERE j.last_triggered_at >= p_since
       AND (j.last_triggered_at, j.id) > (coalesce(p_after_at, '-infinity'),
                                          coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
       AND j.enabled AND j.deleted_at IS NULL
       AND NOT EXISTS (SELECT 1 FROM tenants t WHERE t.id = j.tenant_id AND t.deleted_at IS NOT NULL)
       AND NOT EXISTS (SELECT 1 FROM cron_job_runs r
                        WHERE r.cron_job_id = j.id AND r.scheduled_at = j.last_triggered_at)
     ORDER BY j.last_triggered_at, j.id
     LIMIT p_limit
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_plan_set(p_ids uuid[], p_next_run_ats timestamp with time zone[])
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE cron_jobs j SET next_run_at = i.next_run_at
      FROM unnest(p_ids, p_next_run_ats) AS i (id, next_run_at)
     WHERE j.id = i.id AND j.next_run_at IS NULL
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_plan_take(p_ids uuid[], p_limit integer, p_since timestamp with time zone, p_after_schedule text, p_after_timezone text, p_after_id uuid)
 RETURNS TABLE(id uuid, tenant_id uuid, schedule text, timezone text, due_from timestamp with time zone, updated_at timestamp with time zone, next_run_at timestamp with time zone, last_scheduled_at timestamp with time zone, ends_at timestamp with time zone, jitter_ms integer, overlap text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    IF p_ids IS NULL THEN
      RETURN QUERY
        SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
               (SELECT max(r.scheduled_at) FROM cron_job_runs r
                 WHERE r.cron_job_id = j.id AND r.scheduled_at >= p_since),
               j.ends_at, j.jitter_ms, j.overlap
          FROM cron_jobs j
         WHERE j.enabled AND j.next_run_at IS NULL AND j.deleted_at IS NULL
           AND (j.schedule, j.timezone, j.id) > (coalesce(p_after_schedule, ''),
                                                 coalesce(p_after_timezone, ''),
                                                 coalesce(p_after_id, '00000000-0000-0000-0000-000000000000'))
           AND (SELECT t.deleted_at IS NULL FROM tenants t WHERE t.id = j.tenant_id)
         ORDER BY j.schedule, j.timezone, j.id
         LIMIT p_limit
           FOR UPDATE OF j SKIP LOCKED;
    ELSE
      RETURN QUERY
        SELECT j.id, j.tenant_id, j.schedule, j.timezone, j.due_from, j.updated_at, j.next_run_at,
               (SELECT max(r.scheduled_at) FROM cron_job_runs r
                 WHERE r.cron_job_id = j.id AND r.scheduled_at >= p_since),
               j.ends_at, j.jitter_ms, j.overlap
          FROM cron_jobs j
         WHERE j.id = ANY (p_ids) AND j.enabled AND j.next_run_at IS NULL AND j.deleted_at IS NULL
           AND (SELECT t.deleted_at IS NULL FROM tenants t WHERE t.id = j.tenant_id)
         ORDER BY j.schedule, j.timezone, j.id
         LIMIT p_limit
           FOR UPDATE OF j SKIP LOCKED;
    END IF;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_requeue(p_run_ids uuid[], p_pod_id text, p_delay_ms integer)
 RETURNS SETOF uuid
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE cron_job_runs r
       SET status = 'queued', pod_id = NULL,
           not_before = now() + make_interval(secs => greatest(p_delay_ms, 0) / 1000.0)
     WHERE r.id IN (SELECT unnest(p_run_ids)) AND r.status = 'claimed' AND r.pod_id = p_pod_id
    RETURNING r.id
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_run_progress(p_run_id uuid, p_pod_id text, p_attempts integer, p_attempt_log jsonb)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH moved AS (
      UPDATE cron_job_runs r
         SET attempts = greatest(r.attempts, p_attempts),
             detail = jsonb_set(coalesce(r.detail, '{}'::jsonb), '{attempt_log}', p_attempt_log)
       WHERE r.id = p_run_id AND r.status = 'running' AND r.pod_id = p_pod_id
      RETURNING r.id
    )
    SELECT EXISTS (SELECT 1 FROM moved)
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_runs_maintain(p_days_ahead integer, p_delete_limit integer, p_now timestamp with time zone DEFAULT NULL::timestamp with time zone)
 RETURNS TABLE(created integer, dropped integer, deleted integer, purged_tenant_ids uuid[], purged_job_ids uuid[])
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_now timestamptz := coalesce(p_now, now());
    v_today date := (v_now AT TIME ZONE 'UTC')::date;
    v_longest integer;
    v_day date;
    v_name text;
    v_upper date;
    v_part record;
  BEGIN
    created := 0;
    dropped := 0;
    deleted := 0;
    purged_tenant_ids := '{}';
    purged_job_ids := '{}';
    IF NOT pg_try_advisory_xact_lock(hashtextextended('hermesx:runs-maintenance', 0)) THEN
      RETURN NEXT;
      RETURN;
    END IF;

    FOR v_day IN SELECT generate_series(v_today, v_today + p_days_ahead, interval '1 day')::date
    LOOP
      v_name := 'cron_job_runs_p' || to_char(v_day, 'YYYYMMDD');
      CONTINUE WHEN to_regclass('public.' || v_name) IS NOT NULL;
      BEGIN
        PERFORM cron_job_runs_add_partition(v_name,
          format('FOR VALUES FROM (%L) TO (%L)', v_day::timestamp AT TIME ZONE 'UTC',
                 (v_day + 1)::timestamp AT TIME ZONE 'UTC'));
        created := created + 1;
      EXCEPTION WHEN invalid_object_definition OR check_violation THEN
        -- The day is inside an older partition, or the default partition already holds rows
        -- of it: they stay where they are.
        RAISE WARNING 'cron_job_runs: no partition for %: %', v_day, SQLERRM;
      END;
    END LOOP;

    SELECT greatest(coalesce(max(t.run_retention_days), 30), 1) INTO v_longest FROM tenants t;
    FOR v_part IN
      SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
       WHERE i.inhparent = 'public.cron_job_runs'::regclass AND c.relkind = 'r'
    LOOP
      v_upper := CASE
        WHEN v_part.relname ~ '^cron_job_runs_p[0-9]{8}$'
          THEN to_date(right(v_part.relname, 8), 'YYYYMMDD') + 1
        WHEN v_part.relname ~ '^cron_job_runs_before_[0-9]{8}$'
          THEN to_date(right(v_part.relname, 8), 'YYYYMMDD')
      END;
      IF v_upper IS NOT NULL AND v_upper <= v_today - v_longest THEN
        EXECUTE format('DROP TABLE public.%I', v_part.relname);
        dropped := dropped + 1;
      END IF;
    END LOOP;

    WITH doomed AS (
      SELECT r.id, r.scheduled_at
        FROM tenants t
        CROSS JOIN LATERAL (
          SELECT x.id, x.scheduled_at FROM cron_job_runs x
           WHERE x.tenant_id = t.id
             AND x.scheduled_at < v_now - make_interval(days => t.run_retention_days)
             AND x.status IN ('success', 'failed')
           LIMIT p_delete_limit) r
       WHERE t.run_retention_days < v_longest
       LIMIT p_delete_limit
    ), gone AS (
      DELETE FROM cron_job_runs x USING doomed d
       WHERE x.id = d.id AND x.scheduled_at = d.scheduled_at
      RETURNING 1
    )
    SELECT count(*)::integer INTO deleted FROM gone;

    DELETE FROM cron_run_tool_calls c
     WHERE (c.run_id, c.seq) IN (
       SELECT o.run_id, o.seq FROM cron_run_tool_calls o
        WHERE o.created_at < v_now - interval '1 hour'
          AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.id = o.run_id)
        LIMIT p_delete_limit);

    DELETE FROM cron_job_runs_in_flight f
     WHERE NOT EXISTS (SELECT 1 FROM cron_job_runs r
                        WHERE r.id = f.run_id AND r.scheduled_at = f.scheduled_at
                          AND r.status IN ('claimed', 'running'));
    -- Locked, so a run settling meanwhile is either seen settled (and left out) or settles after
    -- this commits (and its trigger removes the row); one being written now is its writer's.
    WITH live AS (
      SELECT r.id, r.cron_job_id, r.tenant_id, r.scheduled_at FROM cron_job_runs r
       WHERE r.status IN ('claimed', 'running')
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight f WHERE f.run_id = r.id)
       FOR SHARE OF r SKIP LOCKED
    )
    INSERT INTO cron_job_runs_in_flight (run_id, cron_job_id, tenant_id, scheduled_at)
    SELECT l.id, l.cron_job_id, l.tenant_id, l.scheduled_at FROM live l
    ON CONFLICT (run_id) DO NOTHING;

    WITH purged AS (
      DELETE FROM cron_jobs j
       WHERE j.id IN (
         SELECT d.id FROM cron_jobs d
          WHERE d.deleted_at < v_now - interval '1 hour'
            AND NOT EXISTS (SELECT 1 FROM cron_job_runs r WHERE r.cron_job_id = d.id)
          ORDER BY d.deleted_at
          LIMIT p_delete_limit)
      RETURNING j.tenant_id, j.id
    )
    SELECT coalesce(array_agg(p.tenant_id), '{}'), coalesce(array_agg(p.id), '{}')
      INTO purged_tenant_ids, purged_job_ids FROM purged p;
    RETURN NEXT;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_start_waiting(p_run_id uuid, p_scheduled_at timestamp with time zone, p_pod_id text)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH started AS (
      UPDATE cron_job_runs r SET started_at = now()
       WHERE r.id = p_run_id AND r.scheduled_at = p_scheduled_at AND r.pod_id = p_pod_id
         AND r.status = 'claimed'
      RETURNING 1
    )
    SELECT EXISTS (SELECT 1 FROM started)
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_take_queued(p_pod_id text, p_limit integer)
 RETURNS TABLE(run_id uuid, cron_job_id uuid, tenant_id uuid, scheduled_at timestamp with time zone, name text, prompt text, timeout_ms integer, model text, attempt integer)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
 SET enable_seqscan TO 'off'
AS $function$
  #variable_conflict use_column
  BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('hermesx:tenant-cap:' || t.id::text, 0))
       FROM tenants t
      WHERE t.max_concurrent_runs > 0
        AND t.id IN (SELECT q.tenant_id FROM cron_job_runs q
                      WHERE q.status = 'queued' AND q.not_before <= now())
      ORDER BY t.id;
    RETURN QUERY
    WITH due AS MATERIALIZED (
      -- The due queued runs first, through the queued index: there are few, and the planner must
      -- not start from the jobs (after a bulk import its statistics say there are a few jobs,
      -- and it then probed every partition for every job).
      SELECT q.id, q.scheduled_at, q.cron_job_id, q.tenant_id, q.not_before
        FROM cron_job_runs q
       WHERE q.status = 'queued' AND q.not_before <= now()
    ), heads AS (
      -- The oldest due queued run of each job that may run now.
      SELECT DISTINCT ON (q.cron_job_id) q.id, q.scheduled_at, q.cron_job_id, q.tenant_id,
             q.not_before
        FROM due q
       WHERE EXISTS (SELECT 1 FROM cron_jobs j JOIN tenants t ON t.id = j.tenant_id
                      WHERE j.id = q.cron_job_id AND j.enabled AND j.deleted_at IS NULL
                        AND t.deleted_at IS NULL)
         AND NOT EXISTS (SELECT 1 FROM cron_job_runs_in_flight x
                          WHERE x.cron_job_id = q.cron_job_id)
       ORDER BY q.cron_job_id, q.not_before, q.id
    ), ranked AS (
      SELECT h.*, tn.max_concurrent_runs AS cap,
             row_number() OVER (PARTITION BY h.tenant_id ORDER BY h.not_before, h.id) AS rank_in_tenant
        FROM heads h JOIN tenants tn ON tn.id = h.tenant_id
    ), admitted AS (
      -- Round-robin over tenants (each one's oldest first), within each capped tenant's room.
      SELECT k.id, k.scheduled_at FROM ranked k
       WHERE coalesce(k.cap, 0) = 0
          OR k.rank_in_tenant <= k.cap - (SELECT count(*) FROM cron_job_runs_in_flight a
                                           WHERE a.tenant_id = k.tenant_id)
       ORDER BY k.rank_in_tenant, k.not_before, k.id
       LIMIT p_limit
    ), locked AS (
      SELECT q.id, q.scheduled_at FROM cron_job_runs q JOIN admitted m
          ON q.id = m.id AND q.scheduled_at = m.scheduled_at
       WHERE q.status = 'queued'
       FOR UPDATE OF q SKIP LOCKED
    ), taken AS (
      UPDATE cron_job_runs r
         SET status = 'claimed', pod_id = p_pod_id, started_at = now(), not_before = NULL,
             attempts = 0, model_called_at = NULL
        FROM locked m
       WHERE r.id = m.id AND r.scheduled_at = m.scheduled_at
      RETURNING r.id, r.cron_job_id, r.tenant_id, r.scheduled_at, r.attempt
    )
    SELECT k.id, k.cron_job_id, k.tenant_id, k.scheduled_at, j.name, j.prompt, j.timeout_ms, j.model,
           k.attempt
      FROM taken k JOIN cron_jobs j ON j.id = k.cron_job_id;
  END
  $function$
CREATE OR REPLACE FUNCTION public.scheduler_unsend(p_run_ids uuid[], p_pod_id text)
 RETURNS SETOF uuid
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE cron_job_runs r
       SET status = 'claimed', model_called_at = NULL, attempts = 0
     WHERE r.id = ANY (p_run_ids) AND r.status = 'running' AND r.pod_id = p_pod_id
    RETURNING r.id
  $function$
CREATE OR REPLACE FUNCTION public.storage_recorded_runs(p_tenant_id uuid, p_run_ids uuid[])
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT r.id FROM cron_job_runs r
     WHERE r.tenant_id = p_tenant_id AND r.id = ANY (p_run_ids);
  $function$
CREATE OR REPLACE FUNCTION public.storage_result_usage(p_tenant_ids uuid[], p_default_quota bigint)
 RETURNS TABLE(tenant_id uuid, used_bytes bigint, quota_bytes bigint)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH gone AS (
      DELETE FROM tenant_result_bytes u
       WHERE u.tenant_id = ANY (p_tenant_ids)
         AND NOT EXISTS (SELECT 1 FROM pg_inherits i
                          WHERE i.inhrelid = u.runs_partition
                            AND i.inhparent = 'public.cron_job_runs'::regclass)
    )
    SELECT t.id,
           coalesce((SELECT sum(u.bytes) FROM tenant_result_bytes u
                      JOIN pg_inherits i ON i.inhrelid = u.runs_partition
                                        AND i.inhparent = 'public.cron_job_runs'::regclass
                     WHERE u.tenant_id = t.id), 0)::bigint,
           coalesce(t.result_bytes_quota, p_default_quota)
      FROM tenants t
     WHERE t.id = ANY (p_tenant_ids);
  $function$
CREATE OR REPLACE FUNCTION public.storage_tenant_ids(p_after uuid, p_limit integer)
 RETURNS SETOF uuid
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT t.id FROM tenants t
     WHERE p_after IS NULL OR t.id > p_after
     ORDER BY t.id
     LIMIT p_limit;
  $function$
CREATE OR REPLACE FUNCTION public.tenant_result_bytes_cleared()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    DELETE FROM tenant_result_bytes;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.tenant_result_bytes_count()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_tenant_id uuid;
    v_bytes bigint := 0;
  BEGIN
    IF TG_OP IN ('UPDATE', 'DELETE') AND OLD.result_object_key IS NOT NULL THEN
      v_tenant_id := OLD.tenant_id;
      v_bytes := v_bytes - coalesce(OLD.result_bytes, 0);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') AND NEW.result_object_key IS NOT NULL THEN
      v_tenant_id := NEW.tenant_id;
      v_bytes := v_bytes + coalesce(NEW.result_bytes, 0);
    END IF;
    IF v_bytes <> 0 THEN
      INSERT INTO tenant_result_bytes AS t (tenant_id, runs_partition, bytes)
      VALUES (v_tenant_id, TG_RELID, v_bytes)
      ON CONFLICT (tenant_id, runs_partition) DO UPDATE SET bytes = t.bytes + EXCLUDED.bytes;
    END IF;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.tenants_bump_run_context()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    UPDATE tenants SET run_context_version = run_context_version + 1
     WHERE id = CASE WHEN TG_OP = 'DELETE' THEN OLD.tenant_id ELSE NEW.tenant_id END;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.tenants_notify_jobs()
 RETURNS trigger
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  BEGIN
    PERFORM pg_notify('hermesx_cron_jobs', j.id::text) FROM cron_jobs j WHERE j.tenant_id = NEW.id;
    RETURN NULL;
  END
  $function$
CREATE OR REPLACE FUNCTION public.usage_resume_budget_jobs(p_now timestamp with time zone, p_limit integer)
 RETURNS TABLE(cron_job_id uuid, tenant_id uuid)
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE cron_jobs j
       SET enabled = true, paused_at = NULL, paused_by = NULL, stopped_by = NULL,
           paused_reason = NULL, budget_resets_at = NULL, consecutive_failures = 0
     WHERE j.id IN (SELECT c.id FROM cron_jobs c
                     WHERE c.budget_resets_at <= p_now AND NOT c.enabled
                       AND c.stopped_by = 'budget'
                     ORDER BY c.budget_resets_at
                     LIMIT p_limit
                       FOR UPDATE SKIP LOCKED)
    RETURNING j.id, j.tenant_id
  $function$
CREATE OR REPLACE FUNCTION public.webhook_cancel_delivery(p_delivery_id uuid, p_pod_id text, p_reason text)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    UPDATE webhook_deliveries
       SET status = 'cancelled', leased_by = NULL, last_error = left(p_reason, 1024),
           updated_at = now()
     WHERE id = p_delivery_id AND status = 'pending' AND leased_by = p_pod_id
  $function$
CREATE OR REPLACE FUNCTION public.webhook_claim_deliveries(p_pod_id text, p_limit integer, p_per_tenant integer, p_lease_seconds integer)
 RETURNS TABLE(delivery_id uuid, tenant_id uuid, endpoint_id uuid, url text, secret text, secret_sealed bytea, previous_secret text, previous_secret_sealed bytea, event_type text, attempts integer, created_at timestamp with time zone, cron_job_id uuid, run_id uuid, payload jsonb)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  #variable_conflict use_column
  BEGIN
    RETURN QUERY
    WITH RECURSIVE due_tenants AS (
      (SELECT d.tenant_id FROM webhook_deliveries d
        WHERE d.status = 'pending' AND d.next_attempt_at <= now()
        ORDER BY d.tenant_id LIMIT 1)
      UNION ALL
      SELECT (SELECT d.tenant_id FROM webhook_deliveries d
               WHERE d.status = 'pending' AND d.next_attempt_at <= now()
                 AND d.tenant_id > t.tenant_id
               ORDER BY d.tenant_id LIMIT 1)
        FROM due_tenants t WHERE t.tenant_id IS NOT NULL
    ), picked AS (
      SELECT c.id, c.tenant_id,
             row_number() OVER (PARTITION BY c.tenant_id ORDER BY c.next_attempt_at, c.id) AS rank
        FROM due_tenants t
        CROSS JOIN LATERAL (
          SELECT d.id, d.tenant_id, d.next_attempt_at FROM webhook_deliveries d
           WHERE d.tenant_id = t.tenant_id AND d.status = 'pending' AND d.next_attempt_at <= now()
           ORDER BY d.next_attempt_at, d.id
           LIMIT greatest(0, p_per_tenant - (
             SELECT count(*) FROM webhook_deliveries l
              WHERE l.tenant_id = t.tenant_id AND l.status = 'pending'
                AND l.leased_by IS NOT NULL AND l.next_attempt_at > now()))
           FOR UPDATE SKIP LOCKED) c
       WHERE t.tenant_id IS NOT NULL
    ), chosen AS (
      SELECT p.id FROM picked p ORDER BY p.rank, random() LIMIT p_limit
    ), leased AS (
      UPDATE webhook_deliveries d
         SET leased_by = p_pod_id,
             -- Queued without its data while an upgrade was applying its migrations: frozen now.
             payload = coalesce(d.payload, CASE WHEN d.run_id IS NOT NULL
                                           THEN webhook_run_event_data(d.run_id, d.tenant_id) END),
             next_attempt_at = now() + make_interval(secs => p_lease_seconds),
             updated_at = now()
        FROM chosen
       WHERE d.id = chosen.id
      RETURNING d.*
    )
    SELECT l.id, l.tenant_id, l.endpoint_id, e.url, e.secret, e.secret_sealed,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret END,
           CASE WHEN e.previous_secret_expires_at > now() THEN e.previous_secret_sealed END,
           l.event_type, l.attempts, l.created_at, l.cron_job_id, l.run_id, l.payload
      FROM leased l
      JOIN webhook_endpoints e ON e.id = l.endpoint_id;
  END
  $function$
CREATE OR REPLACE FUNCTION public.webhook_enqueue_budget_warning(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH queued AS (
      INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                      payload)
      SELECT e.tenant_id, e.id, p_cron_job_id, NULL, 'budget.warning', p_payload
        FROM webhook_endpoints e
       WHERE e.tenant_id = p_tenant_id
         AND e.enabled
         AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
         AND (cardinality(e.events) = 0 OR 'budget.warning' = ANY (e.events))
      RETURNING 1
    )
    SELECT count(*)::integer FROM queued
  $function$
CREATE OR REPLACE FUNCTION public.webhook_enqueue_job_paused(p_tenant_id uuid, p_cron_job_id uuid, p_payload jsonb)
 RETURNS void
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                    payload)
    SELECT e.tenant_id, e.id, p_cron_job_id, NULL, 'job.paused', p_payload
      FROM webhook_endpoints e
     WHERE e.tenant_id = p_tenant_id
       AND e.enabled
       AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
       AND (cardinality(e.events) = 0 OR 'job.paused' = ANY (e.events))
  $function$
CREATE OR REPLACE FUNCTION public.webhook_enqueue_job_paused_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM webhook_enqueue_job_paused(NEW.tenant_id, NEW.id, jsonb_build_object(
    'job_id', NEW.id,
    'job_name', NEW.name,
    'paused_at', NEW.paused_at,
    'paused_by', NEW.paused_by,
    'paused_reason', NEW.paused_reason,
    'stopped_by', NEW.stopped_by,
    'consecutive_failures', NEW.consecutive_failures,
    'run_count', NEW.run_count,
    'labels', NEW.labels));
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.webhook_enqueue_run(p_tenant_id uuid, p_cron_job_id uuid, p_run_id uuid, p_status text)
 RETURNS void
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  DECLARE
    v_event text := CASE p_status WHEN 'success' THEN 'run.succeeded' ELSE 'run.failed' END;
  BEGIN
    -- Most runs have no endpoint: they read nothing more.
    IF NOT EXISTS (
         SELECT 1 FROM webhook_endpoints e
          WHERE e.tenant_id = p_tenant_id
            AND e.enabled
            AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
            AND (cardinality(e.events) = 0 OR v_event = ANY (e.events))) THEN
      RETURN;
    END IF;
    INSERT INTO webhook_deliveries (tenant_id, endpoint_id, cron_job_id, run_id, event_type,
                                    payload)
    SELECT e.tenant_id, e.id, p_cron_job_id, p_run_id, v_event, d.data
      FROM webhook_endpoints e,
           (SELECT webhook_run_event_data(p_run_id, p_tenant_id) AS data) d
     WHERE e.tenant_id = p_tenant_id
       AND e.enabled
       AND (e.cron_job_id IS NULL OR e.cron_job_id = p_cron_job_id)
       AND (cardinality(e.events) = 0 OR v_event = ANY (e.events))
    ON CONFLICT (endpoint_id, run_id, event_type) DO NOTHING;
  END
  $function$
CREATE OR REPLACE FUNCTION public.webhook_enqueue_run_trigger()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
BEGIN
  PERFORM webhook_enqueue_run(NEW.tenant_id, NEW.cron_job_id, NEW.id, NEW.status);
  RETURN NULL;
END
$function$
CREATE OR REPLACE FUNCTION public.webhook_finish_delivery(p_delivery_id uuid, p_pod_id text, p_outcome text, p_status_code integer, p_error text, p_duration_ms integer, p_next_attempt_at timestamp with time zone, p_disable_after_seconds integer)
 RETURNS TABLE(status text, disabled_reason text)
 LANGUAGE plpgsql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
  #variable_conflict use_column
  DECLARE
    v_delivery webhook_deliveries%ROWTYPE;
    v_failing_since timestamptz;
    v_reason text;
    v_status text;
  BEGIN
    SELECT * INTO v_delivery FROM webhook_deliveries d WHERE d.id = p_delivery_id FOR UPDATE;
    IF NOT FOUND THEN
      RETURN;
    END IF;
    INSERT INTO webhook_delivery_attempts (delivery_id, tenant_id, attempt, duration_ms,
                                           status_code, error, outcome, next_attempt_at, pod_id)
    VALUES (p_delivery_id, v_delivery.tenant_id, v_delivery.attempts + 1, p_duration_ms,
            p_status_code, left(p_error, 1024), p_outcome,
            CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at END, p_pod_id);
    IF v_delivery.status <> 'pending' OR v_delivery.leased_by IS DISTINCT FROM p_pod_id THEN
      RETURN QUERY SELECT v_delivery.status, NULL::text;
      RETURN;
    END IF;
    v_status := CASE p_outcome WHEN 'delivered' THEN 'delivered' WHEN 'retry' THEN 'pending'
                ELSE 'failed' END;
    UPDATE webhook_deliveries d
       SET status = v_status,
           attempts = d.attempts + 1,
           leased_by = NULL,
           next_attempt_at = CASE WHEN p_outcome = 'retry' THEN p_next_attempt_at
                                  ELSE d.next_attempt_at END,
           last_status_code = p_status_code,
           last_error = left(p_error, 1024),
           delivered_at = CASE WHEN p_outcome = 'delivered' THEN now() END,
           updated_at = now()
     WHERE d.id = p_delivery_id;
    IF p_outcome = 'delivered' THEN
      UPDATE webhook_endpoints e SET failing_since = NULL
       WHERE e.id = v_delivery.endpoint_id AND e.failing_since IS NOT NULL;
      RETURN QUERY SELECT v_status, NULL::text;
      RETURN;
    END IF;
    UPDATE webhook_endpoints e SET failing_since = coalesce(e.failing_since, now())
     WHERE e.id = v_delivery.endpoint_id
    RETURNING e.failing_since INTO v_failing_since;
    IF p_outcome = 'gone' THEN
      v_reason := 'gone';
    ELSIF v_failing_since < now() - make_interval(secs => p_disable_after_seconds) THEN
      v_reason := 'failing';
    END IF;
    IF v_reason IS NOT NULL THEN
      UPDATE webhook_endpoints e
         SET enabled = false, disabled_reason = v_reason, updated_at = now()
       WHERE e.id = v_delivery.endpoint_id AND e.enabled;
      UPDATE webhook_deliveries d
         SET status = 'cancelled', leased_by = NULL, updated_at = now(),
             last_error = 'endpoint disabled (' || v_reason || ')'
       WHERE d.endpoint_id = v_delivery.endpoint_id AND d.status = 'pending';
    END IF;
    RETURN QUERY SELECT (SELECT d.status FROM webhook_deliveries d WHERE d.id = p_delivery_id),
                        v_reason;
  END
  $function$
CREATE OR REPLACE FUNCTION public.webhook_plain_secrets(p_after uuid, p_limit integer)
 RETURNS TABLE(id uuid, tenant_id uuid, secret text, secret_sealed bytea, previous_secret text)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT e.id, e.tenant_id, e.secret, e.secret_sealed, e.previous_secret
      FROM webhook_endpoints e
     WHERE (e.secret IS NOT NULL OR e.previous_secret IS NOT NULL)
       AND (p_after IS NULL OR e.id > p_after)
     ORDER BY e.id
     LIMIT p_limit;
  $function$
CREATE OR REPLACE FUNCTION public.webhook_prune_deliveries(p_older_than_seconds integer, p_limit integer)
 RETURNS integer
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH old AS (
      SELECT id FROM webhook_deliveries
       WHERE status <> 'pending'
         AND created_at < now() - make_interval(secs => p_older_than_seconds)
       ORDER BY created_at
       LIMIT p_limit
    ), gone AS (
      DELETE FROM webhook_deliveries d USING old WHERE d.id = old.id RETURNING 1
    )
    SELECT count(*)::integer FROM gone
  $function$
CREATE OR REPLACE FUNCTION public.webhook_queue_stats()
 RETURNS TABLE(pending bigint, oldest_pending_seconds double precision)
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT count(*), coalesce(extract(epoch FROM now() - min(created_at)), 0)::double precision
      FROM webhook_deliveries WHERE status = 'pending'
  $function$
CREATE OR REPLACE FUNCTION public.webhook_run_event_data(p_run_id uuid, p_tenant_id uuid)
 RETURNS jsonb
 LANGUAGE sql
 STABLE SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    SELECT jsonb_build_object(
             'id', r.id,
             'cron_job_id', r.cron_job_id,
             'scheduled_at', to_char(r.scheduled_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'started_at', to_char(r.started_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'finished_at', to_char(r.finished_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'status', r.status,
             'result', left(r.result, 4096),
             'error', r.error,
             'error_kind', r.error_kind,
             'attempts', r.attempts,
             'attempt', r.attempt,
             'duration_ms', r.duration_ms,
             'pod_id', r.pod_id,
             'not_before', to_char(r.not_before AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'created_at', to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
             'origin', r.origin,
             'result_bytes', r.result_bytes,
             'result_complete', (r.result_object_key IS NULL AND NOT r.result_truncated
                                 AND coalesce(length(r.result), 0) <= 4096),
             'output', r.output,
             'prompt_tokens', r.prompt_tokens,
             'cached_tokens', r.cached_tokens,
             'completion_tokens', r.completion_tokens,
             'cost_micros', r.cost_micros,
             'job_id', r.cron_job_id,
             'job_name', coalesce(j.name, ''))
      FROM cron_job_runs r
      LEFT JOIN cron_jobs j ON j.id = r.cron_job_id
     WHERE r.id = p_run_id AND r.tenant_id = p_tenant_id
       AND (app_current_tenant() IS NULL OR app_current_tenant() = p_tenant_id)
  $function$
CREATE OR REPLACE FUNCTION public.webhook_seal_secret(p_id uuid, p_secret text, p_previous_secret text, p_sealed bytea, p_previous_sealed bytea)
 RETURNS boolean
 LANGUAGE sql
 SECURITY DEFINER
 SET search_path TO 'pg_catalog', 'public', 'pg_temp'
AS $function$
    WITH sealed AS (
      UPDATE webhook_endpoints e
         SET secret = CASE WHEN p_sealed IS NULL THEN e.secret END,
             secret_sealed = coalesce(p_sealed, e.secret_sealed),
             previous_secret = CASE WHEN p_previous_sealed IS NULL THEN e.previous_secret END,
             previous_secret_sealed = coalesce(p_previous_sealed, e.previous_secret_sealed)
       WHERE e.id = p_id
         AND e.secret IS NOT DISTINCT FROM p_secret
         AND e.previous_secret IS NOT DISTINCT FROM p_previous_secret
      RETURNING 1
    )
    SELECT count(*) > 0 FROM sealed;
  $function$
