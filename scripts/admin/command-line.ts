import { parseArgs } from 'node:util';

/** A command line the CLI cannot run as given: reported with the usage, exit status 2. */
export class UsageError extends Error {}

/** Every option of every command; each command accepts only those its entry in COMMANDS names. */
const OPTIONS = {
  plan: { type: 'string' },
  credits: { type: 'string' },
  limit: { type: 'string', multiple: true },
  'api-access': { type: 'string' },
  org: { type: 'string' },
  env: { type: 'string' },
  scopes: { type: 'string' },
  'expires-at': { type: 'string' },
  'key-prefix': { type: 'string' },
  balance: { type: 'string' },
  after: { type: 'string' },
  'page-size': { type: 'string' },
} as const;

type OptionName = keyof typeof OPTIONS;

interface CommandSpec {
  summary: string;
  /** The options the command needs and those it may take, each with the placeholder its usage shows. */
  required?: Partial<Record<OptionName, string>>;
  optional?: Partial<Record<OptionName, string>>;
}

export const DEFAULT_PAGE_SIZE = 100;
/** The largest page `org list` and `key list` read at once. */
export const MAX_PAGE_SIZE = 1000;

export const COMMANDS = {
  'org create': {
    summary: 'Creates an organization (API access on unless --api-access false) and prints it.',
    required: { plan: 'team|custom|pro' },
    optional: { credits: 'N', limit: 'NAME=VALUE', 'api-access': 'true|false' },
  },
  'org update': {
    summary: "Changes an organization's plan, API access or negotiated limits (merged into those already set).",
    required: { org: 'N' },
    optional: { plan: 'team|custom|pro', limit: 'NAME=VALUE', 'api-access': 'true|false' },
  },
  'org show': {
    summary: 'Prints an organization: plan, limits, credits, active keys and jobs.',
    required: { org: 'N' },
  },
  'org list': {
    summary: `Lists organizations in id order, ${DEFAULT_PAGE_SIZE} ids a page (--page-size: up to ${MAX_PAGE_SIZE}); --after N starts after organization N, where the previous page said to go on.`,
    optional: { after: 'N', 'page-size': 'N' },
  },
  'key create': {
    summary: 'Creates an API key and prints it: the only time the full key is shown.',
    required: { org: 'N' },
    optional: { env: 'test|live', scopes: 'all|s1,s2', 'expires-at': 'ISO-8601' },
  },
  'key list': {
    summary: `Lists an organization's API keys, oldest first, never their secrets: ${DEFAULT_PAGE_SIZE} a page (--page-size: up to ${MAX_PAGE_SIZE}); --after P starts after the key with prefix P, where the previous page said to go on.`,
    required: { org: 'N' },
    optional: { after: 'KEY_PREFIX', 'page-size': 'N' },
  },
  'key revoke': {
    summary: 'Revokes an API key: the next request that presents it is refused.',
    required: { 'key-prefix': 'P' },
  },
  'credits set': {
    summary: "Sets an organization's credit balance.",
    required: { org: 'N', balance: 'N' },
  },
  migrate: {
    summary: 'Tracks jobs written before the job list and usage aggregates (docs/data-model.md).',
  },
  'webhooks retry': {
    summary: 'Relays events not yet relayed and attempts every pending delivery now (docs/webhooks.md).',
  },
  endpoints: {
    summary: "Prints the local stack's emulator endpoints, with AWS CLI lines that use them.",
  },
} as const satisfies Record<string, CommandSpec>;

export type CommandName = keyof typeof COMMANDS;

const INVOCATION = 'npm run --silent admin --';

function isCommand(name: string): name is CommandName {
  return Object.hasOwn(COMMANDS, name);
}

function synopsis(name: CommandName): string {
  const spec: CommandSpec = COMMANDS[name];
  const repeatable = (option: string) => 'multiple' in OPTIONS[option as OptionName];
  return [
    name,
    ...Object.entries(spec.required ?? {}).map(([option, placeholder]) => `--${option} ${placeholder}`),
    ...Object.entries(spec.optional ?? {}).map(
      ([option, placeholder]) => `[--${option} ${placeholder}]${repeatable(option) ? '...' : ''}`,
    ),
  ].join(' ');
}

export function usage(): string {
  return [
    `Usage: ${INVOCATION} <command> [options] [--json]`,
    '',
    ...(Object.keys(COMMANDS) as CommandName[]).map((name) => `  ${synopsis(name)}`),
    '',
    `${INVOCATION} <command> --help describes one command; --json prints one JSON object.`,
    'Works on the local stack of LOCAL_DATA_DIR (default .local), or on a deployed stack when TABLE_NAME is set.',
  ].join('\n');
}

export function commandUsage(name: CommandName): string {
  return [`Usage: ${INVOCATION} ${synopsis(name)} [--json]`, '', COMMANDS[name].summary].join('\n');
}

export type OptionValues = Partial<Record<Exclude<OptionName, 'limit'>, string>> & { limit?: string[] };

export type CommandLine =
  | { help: string }
  | { command: CommandName; options: OptionValues; json: boolean }
  /** Not runnable; `command` is set when the command itself was recognised, for its own usage. */
  | { error: UsageError; command?: CommandName };

/**
 * Reads the command line without touching any stack: help, or a known command with only the
 * options it takes and every one it needs. The commands check the values themselves.
 */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: { ...OPTIONS, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (error) {
    // Unknown options and options without their value.
    if ((error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS_')) {
      return { error: new UsageError((error as Error).message) };
    }
    throw error;
  }
  const { values, positionals } = parsed;
  const { json, help, ...options } = values;
  const name = (positionals[0] === 'help' ? positionals.slice(1) : positionals).join(' ');
  if (help || positionals[0] === 'help') {
    if (name === '') return { help: usage() };
    if (isCommand(name)) return { help: commandUsage(name) };
  }
  if (name === '') return { error: new UsageError('No command given.') };
  if (!isCommand(name)) return { error: new UsageError(`Unknown command '${name}'.`) };

  const spec: CommandSpec = COMMANDS[name];
  const accepted = [...Object.keys(spec.required ?? {}), ...Object.keys(spec.optional ?? {})];
  const unexpected = Object.keys(options).filter((option) => !accepted.includes(option));
  if (unexpected.length > 0) {
    const list = unexpected.map((option) => `--${option}`).join(', ');
    return { error: new UsageError(`${name} does not take ${list}.`), command: name };
  }
  const missing = Object.keys(spec.required ?? {}).filter((option) => !Object.hasOwn(options, option));
  if (missing.length > 0) {
    const list = missing.map((option) => `--${option}`).join(', ');
    return { error: new UsageError(`${name} needs ${list}.`), command: name };
  }
  return { command: name, options, json: json === true };
}

export function positiveInteger(name: string, value: string | undefined, { allowZero = false } = {}): number {
  const number = Number(value);
  if (value === undefined || !/^\d+$/.test(value) || (!allowZero && number === 0) || !Number.isSafeInteger(number)) {
    throw new UsageError(
      `--${name} must be a ${allowZero ? 'non-negative' : 'positive'} integer, got ${value ?? 'nothing'}`,
    );
  }
  return number;
}

export function booleanOption(name: string, value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false') throw new UsageError(`--${name} must be true or false`);
  return value === 'true';
}

export function pageSize(value: string | undefined): number {
  if (value === undefined) return DEFAULT_PAGE_SIZE;
  const size = positiveInteger('page-size', value);
  if (size > MAX_PAGE_SIZE) throw new UsageError(`--page-size must be at most ${MAX_PAGE_SIZE}, got ${size}`);
  return size;
}
