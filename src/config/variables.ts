// Environment variables read through zod. A section of the configuration is a z.object whose keys are variable
// names, and a function from their parsed values to the section's typed settings; a value that does not fit stops
// the start with "NAME 'value' must be ..." (the variable, what it holds and what is allowed).
import { z } from 'zod';

/** The environment, or any object of variables (tests build their own). */
export type Env = Readonly<Record<string, string | undefined>>;

/** A configuration that cannot work: the message names each variable to fix and what it allows. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** A blank value counts as unset: `CAIRN_X=` leaves X at its default. */
const blankIsUnset = (value: unknown): unknown => (typeof value === 'string' && value.trim() === '' ? undefined : value);

/** Text without surrounding blanks; unset when blank. */
export const text = () => z.preprocess(blankIsUnset, z.string().trim().optional());

/** Text exactly as given (keys, passwords, paths); unset when empty. */
export const verbatim = () => z.preprocess((value) => (value === '' ? undefined : value), z.string().optional());

/** A whole number from min to max (written in digits); unset when blank. */
export function integer(min: number, max?: number) {
  const error = max === undefined ? `must be an integer >= ${min}` : `must be an integer from ${min} to ${max}`;
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .regex(/^[+-]?\d+$/, { error })
      .transform(Number)
      .refine((n) => n >= min && (max === undefined || n <= max), { error })
      .optional(),
  );
}

/** One of a few words; unset when blank. `allowed` says them in the error (default "one of a, b, c"). */
export function oneOf<const T extends readonly [string, ...string[]]>(values: T, allowed = `one of ${values.join(', ')}`) {
  return z.preprocess(
    blankIsUnset,
    z
      .string()
      .trim()
      .pipe(z.enum(values, { error: `must be ${allowed}` }))
      .optional(),
  );
}

/** A section of the configuration: the variables it reads and how they become its settings. */
export interface Section<T> {
  /** Every variable name the section knows. */
  readonly names: readonly string[];
  read(env: Env): { ok: true; value: T } | { ok: false; problems: string[] };
}

/**
 * A section from its variables (keys are variable names) and the function building its settings. Checks between
 * variables belong in the object's superRefine, with an empty path and a message that names them.
 */
export function section<S extends z.ZodRawShape, T>(variables: z.ZodObject<S>, build: (values: z.output<z.ZodObject<S>>) => T): Section<T> {
  return {
    names: Object.keys(variables.shape),
    read(env) {
      const parsed = variables.safeParse(env);
      if (parsed.success) return { ok: true, value: build(parsed.data) };
      return { ok: false, problems: parsed.error.issues.map((issue) => describe(issue, env)) };
    },
  };
}

function describe(issue: z.core.$ZodIssue, env: Env): string {
  const name = issue.path[0];
  if (typeof name !== 'string') return issue.message;
  return `${name} '${env[name] ?? ''}' ${issue.message}`;
}
