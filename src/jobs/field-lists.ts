// What is built from the job field table (fields.ts): the row and view types, the select and
// write column lists, the request and response shapes, the tool's parameters, the columns NOTIFY
// watches and those the due window returns.
import type { z } from 'zod';
import type { Column, RowOf } from './field.js';
import { JOB_FIELDS } from './fields.js';

type Fields = typeof JOB_FIELDS;
type Key = keyof Fields;
type UnionToIntersection<U> = (U extends unknown ? (x: U) => void : never) extends (
  x: infer I,
) => void
  ? I
  : never;
type Flat<T> = { [K in keyof T]: T[K] };

type ShownKey = { [K in Key]: Fields[K] extends { output: z.ZodType } ? K : never }[Key];
type InputKey = { [K in Key]: Fields[K] extends { input: object } ? K : never }[Key];
type PlainKey = { [K in Key]: Fields[K] extends { input: { plain: true } } ? K : never }[Key];
type WrittenOf<C> = {
  [K in keyof C as C[K] extends Column<unknown, true> ? K : never]: C[K] extends Column<
    infer T,
    boolean
  >
    ? T
    : never;
};

/** A job as the job statements read it (the shown fields' columns). */
export type JobRow = Flat<
  UnionToIntersection<{ [K in ShownKey]: RowOf<Fields[K]['columns']> }[ShownKey]>
>;
/** What the job commands write, by column. */
export type JobWrite = Flat<
  UnionToIntersection<{ [K in Key]: WrittenOf<Fields[K]['columns']> }[Key]>
>;
/** A job as the API and the agent tool show it. */
export type JobView = { [K in ShownKey]: z.output<Fields[K]['output']> };
/** The request fields stored as given (FieldInput.plain). */
export type PlainInput = {
  [K in PlainKey]?: z.output<Fields[K]['input']['patch']> | undefined;
};
/** How a row shows one field. */
type Show = (row: JobRow, now: Date) => unknown;

type AnyRow = {
  columns: Record<string, Column<unknown, boolean>>;
  output?: z.ZodType;
  select?: string;
  example?: unknown;
  show?: (row: never, now: Date) => unknown;
  input?: { create: z.ZodType; patch: z.ZodType; plain?: true };
  tool?: {
    param?: string;
    schema: z.ZodType;
    json: Record<string, unknown>;
    toInput?: (value: never) => unknown;
  };
  notify: boolean;
  dueWindow: boolean;
};
const ROWS = Object.entries(JOB_FIELDS) as [Key, AnyRow][];
const SHOWN = ROWS.filter(([, row]) => row.output !== undefined);
const unique = (names: string[]) => [...new Set(names)];

/** The select list of a job row (also what a write returns). */
export const JOB_SELECT = unique(
  SHOWN.flatMap(([, row]) => (row.select ? [row.select] : Object.keys(row.columns))),
).join(', ');

/** The columns the job commands write, in table order. */
export const WRITTEN_COLUMNS = unique(
  ROWS.flatMap(([, row]) =>
    Object.entries(row.columns)
      .filter(([, col]) => col.written)
      .map(([name]) => name),
  ),
) as (keyof JobWrite)[];

/** The columns whose change notifies the pods (the NOTIFY trigger's list). */
export const NOTIFIED_COLUMNS = unique(
  ROWS.filter(([, row]) => row.notify).flatMap(([, row]) => Object.keys(row.columns)),
);

/** The columns the due window's read returns. */
export const DUE_WINDOW_COLUMNS = unique(
  ROWS.filter(([, row]) => row.dueWindow).flatMap(([, row]) => Object.keys(row.columns)),
);

/** Each shown field's key and how a row shows it, in the API's order. */
export const SHOWN_FIELDS = SHOWN.map(([key, row]) => ({ key, show: row.show as Show }));

function shapeOf<S>(pick: (row: AnyRow) => z.ZodType | undefined): S {
  const entries = ROWS.flatMap(([key, row]) => {
    const schema = pick(row);
    return schema ? [[key, schema] as const] : [];
  });
  return Object.fromEntries(entries) as S;
}

/** CronJob's properties. */
export const jobOutputShape = () =>
  shapeOf<{ [K in ShownKey]: Fields[K]['output'] }>((row) => row.output);
/** CronJobCreate's properties. */
export const jobCreateShape = () =>
  shapeOf<{ [K in InputKey]: Fields[K]['input']['create'] }>((row) => row.input?.create);
/** CronJobPatch's properties (before .partial()). */
export const jobPatchShape = () =>
  shapeOf<{ [K in InputKey]: Fields[K]['input']['patch'] }>((row) => row.input?.patch);

/** The example job of the API document. */
export const JOB_EXAMPLE = Object.fromEntries(
  SHOWN.map(([key, row]) => [key, row.example]),
) as JobView;

/** The request fields stored as given (FieldInput.plain): key, column, check. */
export const PLAIN_FIELDS = ROWS.flatMap(([key, row]) =>
  row.input?.plain
    ? [{ key, column: Object.keys(row.columns)[0] as keyof JobWrite, check: row.input.patch }]
    : [],
);

const TOOL_ROWS = ROWS.flatMap(([key, row]) =>
  row.tool ? [{ key, param: row.tool.param ?? key, ...row.tool }] : [],
);

/** The cronjob tool's parameters for the job's fields (JSON schema properties). */
export const TOOL_PARAMETERS: Record<string, Record<string, unknown>> = Object.fromEntries(
  TOOL_ROWS.map((row) => [row.param, row.json]),
);

/** The cronjob tool's checks of those parameters (a zod shape). */
export const TOOL_ARGS: Record<string, z.ZodType> = Object.fromEntries(
  TOOL_ROWS.map((row) => [row.param, row.schema]),
);

/** The request fields the tool's arguments give (absent ones left out). */
export function toolInputOf(args: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const row of TOOL_ROWS) {
    const value = args[row.param];
    const given = row.toInput ? (row.toInput as (v: unknown) => unknown)(value) : value;
    if (given !== undefined) input[row.key] = given;
  }
  return input;
}
