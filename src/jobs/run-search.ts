// Runs across a tenant's jobs, filtered (GET /v1/runs): the same paging and label rules as the
// job lists.
import { withTenant, type Pool } from '../db/pool.js';
import { searchRuns, type FoundRunRow } from '../db/run-search.js';
import {
  checkCursor,
  checkLabelFilters,
  checkLimit,
  CommandError,
  isUuid,
  toPage,
  type Page,
} from './commands.js';
import { toRunView, type RunView } from './view.js';

export interface RunListItem extends RunView {
  job_name: string;
  labels: Record<string, string>;
}

export interface RunQuery {
  limit?: number | undefined;
  cursor?: string | undefined;
  status?: RunView['status'] | undefined;
  origin?: RunView['origin'] | undefined;
  error_kind?: string | undefined;
  job_id?: string | undefined;
  label?: string | readonly string[] | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export async function listTenantRuns(
  pool: Pool,
  tenantId: string,
  query: RunQuery,
): Promise<Page<RunListItem>> {
  const limit = checkLimit(query.limit);
  const before = checkCursor(query.cursor);
  const from = checkTime('from', query.from);
  const to = checkTime('to', query.to);
  if (query.job_id !== undefined && !isUuid(query.job_id)) {
    throw new CommandError('validation_error', 'job_id must be a job id (a UUID)', 400);
  }
  const search = {
    status: query.status ?? null,
    errorKind: query.error_kind ?? null,
    origin: query.origin ?? null,
    jobId: query.job_id ?? null,
    labels: checkLabelFilters(query.label),
    from,
    to,
  };
  const rows = await withTenant(pool, tenantId, (client) =>
    searchRuns(client, search, limit + 1, before),
  );
  return toPage(rows, limit, toListItem);
}

function toListItem(row: FoundRunRow): RunListItem {
  return { ...toRunView(row), job_name: row.job_name, labels: row.labels };
}

function checkTime(name: string, text: string | undefined): Date | null {
  if (text === undefined) return null;
  const date = new Date(text);
  if (Number.isNaN(date.getTime())) {
    throw new CommandError('validation_error', `${name} must be an RFC 3339 time`, 400);
  }
  return date;
}
