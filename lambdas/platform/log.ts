import { AsyncLocalStorage } from 'node:async_hooks';
import { redactText, redactValue } from './redaction';
import { optionalSetting, LOG_LEVEL } from './settings';

/**
 * Structured JSON log lines (one object per line), which CloudWatch Logs Insights queries by
 * field. Field names are snake_case, like the API's. Every line carries the fields of the
 * invocation it belongs to (request and trace ids, the job), joined from an AsyncLocalStorage
 * context rather than module state: the local stack runs many invocations in one process at once.
 */

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, unknown>;

const SEVERITY: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

/** The least severe level written: the `logLevel` setting (debug, info, warn, error, or silent for none), else info. */
function threshold(): number {
  const setting = optionalSetting(LOG_LEVEL)?.toLowerCase();
  if (setting === 'silent') return Infinity;
  return SEVERITY[setting as LogLevel] ?? SEVERITY.info;
}

const invocationContext = new AsyncLocalStorage<LogFields>();

function definedFields(fields: LogFields): LogFields {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
}

/** Runs `work` with `fields` joined to every line it logs, on top of the fields of the enclosing context. */
export function withLogContext<T>(fields: LogFields, work: () => T): T {
  return invocationContext.run({ ...invocationContext.getStore(), ...definedFields(fields) }, work);
}

/** Joins `fields` to the rest of the current context's lines (the organization, once the caller is known). */
export function addLogContext(fields: LogFields): void {
  const current = invocationContext.getStore();
  if (current) Object.assign(current, definedFields(fields));
}

/**
 * Writes one line: `level`, `message`, `time`, the context's fields, then `fields`. Every string
 * in it goes through the redaction of ./redaction.ts first.
 *
 * info: what happened, the customer's own failures included (a 4xx, a refused prompt);
 * warn: something degraded and was handled (retried, given up on a part, left to the next run);
 * error: a person should look (a crash, a 5xx, a safety net that failed).
 */
export function log(level: LogLevel, message: string, fields: LogFields = {}): void {
  if (SEVERITY[level] < threshold()) return;
  const line: LogFields = { level, message: redactText(message), time: new Date().toISOString() };
  const fieldsWritten = redactValue({ ...invocationContext.getStore(), ...fields }) as LogFields;
  for (const [name, value] of Object.entries(fieldsWritten)) if (!(name in line)) line[name] = value;
  const text = JSON.stringify(line);
  if (level === 'error') console.error(text);
  else console.log(text);
}
