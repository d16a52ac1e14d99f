// The shape of one row of the job field table (fields.ts), typed so that each row's view reads
// only its own columns and each schema keeps its own type in the shapes built from the table.
import type { z } from 'zod';

/** A cron_jobs column as a job row reads it (`T`); `written`: the job commands write it. */
export interface Column<T, W extends boolean> {
  readonly written: W;
  /** Carries the type only. */
  readonly type?: T;
}

export function column<T>(): Column<T, false>;
export function column<T>(written: 'written'): Column<T, true>;
export function column<T>(written?: 'written'): Column<T, boolean> {
  return { written: written === 'written' };
}

export type Columns = Record<string, Column<unknown, boolean>>;
export type RowOf<C extends Columns> = {
  [K in keyof C]: C[K] extends Column<infer T, boolean> ? T : never;
};

/** What a request may give: as CronJobCreate shows it, and as CronJobPatch does (partial). */
export interface FieldInput {
  create: z.ZodType;
  patch: z.ZodType;
  /**
   * Stored as given in the field's one column (absent keeps it, null clears it), checked with
   * `patch` by the job rules too; otherwise the job rules (commands.ts, controls.ts) place it.
   */
  plain?: true;
}

/** A parameter of the agent's cronjob tool (its create and update actions). */
export interface ToolParam {
  /** The parameter's name when it is not the field's. */
  param?: string;
  /** The tool's own check of the argument (optional: the job rules check the value). */
  schema: z.ZodType;
  /** As the model is shown it (the tool's JSON schema property, its description included). */
  json: Record<string, unknown>;
  /** The request value from the argument, when it is not the argument itself. */
  toInput?: (value: never) => unknown;
}

/** A field the API shows: its schema in CronJob, the value in the example, and how it is read. */
export interface Shown<C extends Columns, O extends z.ZodType> {
  output: O;
  example: z.output<O>;
  show: (row: RowOf<C>, now: Date) => z.output<O>;
  /** How the select list reads it, when not by its columns' names. */
  select?: string;
}

/** What every row has. */
export type FieldBase<C extends Columns, I extends FieldInput | undefined> = {
  columns: C;
  tool?: ToolParam;
  /** A change of it is part of the definition the pods hear of at once (NOTIFY). */
  notify: boolean;
  /** The scheduler's read of the due window (scheduler_due_jobs) returns it. */
  dueWindow: boolean;
} & (I extends FieldInput ? { input: I } : { input?: undefined });

export type ShownField<
  C extends Columns,
  O extends z.ZodType,
  I extends FieldInput | undefined,
> = Shown<C, O> & FieldBase<C, I>;

/** One row of the table; the identity, there for the types. */
export function field<
  C extends Columns,
  O extends z.ZodType,
  I extends FieldInput | undefined = undefined,
>(def: ShownField<C, O, I>): ShownField<C, O, I> {
  return def;
}

/** A column the API does not show, which the scheduler reads or NOTIFY watches. */
export function hidden<C extends Columns>(
  def: FieldBase<C, undefined>,
): FieldBase<C, undefined> & { output?: undefined } {
  return def;
}
