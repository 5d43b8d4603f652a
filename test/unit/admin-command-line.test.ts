import {
  COMMANDS,
  MAX_PAGE_SIZE,
  pageSize,
  parseCommandLine,
  positiveInteger,
  UsageError,
} from '../../scripts/admin/command-line';

describe('admin command line: help', () => {
  it.each([[['--help']], [['-h']], [['help']], [['--help', '--json']]])(
    'answers the usage naming every command for %j',
    (argv) => {
      const line = parseCommandLine(argv);
      expect(line).toEqual({ help: expect.stringMatching(/^Usage: npm run --silent admin -- <command>/) });
      for (const command of Object.keys(COMMANDS)) expect((line as { help: string }).help).toContain(`  ${command}`);
    },
  );

  it.each([[['key', 'list', '--help']], [['help', 'key', 'list']], [['key', 'list', '-h', '--org', '3']]])(
    "answers one command's usage and summary for %j",
    (argv) => {
      expect(parseCommandLine(argv)).toEqual({
        help: expect.stringMatching(
          /^Usage: npm run --silent admin -- key list --org N \[--after KEY_PREFIX\] \[--page-size N\] \[--json\]\n\n.*never their secrets/,
        ),
      });
    },
  );

  it('shows a repeatable option as repeatable', () => {
    expect(parseCommandLine(['org', 'create', '--help'])).toEqual({
      help: expect.stringContaining('[--limit NAME=VALUE]...'),
    });
  });
});

describe('admin command line: commands', () => {
  it('answers the command, its options and whether JSON was asked for', () => {
    expect(parseCommandLine(['key', 'list', '--org', '7', '--page-size', '5', '--json'])).toEqual({
      command: 'key list',
      options: { org: '7', 'page-size': '5' },
      json: true,
    });
    expect(parseCommandLine(['org', 'create', '--plan', 'custom', '--limit', 'a=1', '--limit', 'b=2'])).toEqual({
      command: 'org create',
      options: { plan: 'custom', limit: ['a=1', 'b=2'] },
      json: false,
    });
  });

  it.each([
    ['an unknown command', ['frobnicate'], /Unknown command 'frobnicate'/, undefined],
    ['help on an unknown command', ['help', 'frobnicate'], /Unknown command 'frobnicate'/, undefined],
    ['no command', [], /No command given/, undefined],
    ['an unknown option', ['org', 'list', '--colour', 'red'], /Unknown option '--colour'/, undefined],
    ['an option without its value', ['org', 'show', '--org'], /--org/, undefined],
    [
      'an option of another command',
      ['org', 'show', '--org', '1', '--plan', 'team'],
      /does not take --plan/,
      'org show',
    ],
    ['a missing option', ['credits', 'set', '--org', '1'], /credits set needs --balance/, 'credits set'],
  ])('refuses %s as a usage error', (_, argv, message, command) => {
    const line = parseCommandLine(argv);
    expect(line).toEqual({ error: expect.any(UsageError), ...(command ? { command } : {}) });
    expect((line as { error: UsageError }).error.message).toMatch(message);
  });
});

describe('admin command line: values', () => {
  it('reads positive and non-negative integers, refusing anything else as a usage error', () => {
    expect(positiveInteger('org', '12')).toBe(12);
    expect(positiveInteger('balance', '0', { allowZero: true })).toBe(0);
    expect(() => positiveInteger('org', '0')).toThrow(new UsageError('--org must be a positive integer, got 0'));
    expect(() => positiveInteger('org', '1.5')).toThrow(UsageError);
    expect(() => positiveInteger('org', '99999999999999999999')).toThrow(UsageError);
  });

  it(`takes page sizes from 1 to ${MAX_PAGE_SIZE}, 100 when none is given`, () => {
    expect(pageSize(undefined)).toBe(100);
    expect(pageSize(String(MAX_PAGE_SIZE))).toBe(MAX_PAGE_SIZE);
    expect(() => pageSize(String(MAX_PAGE_SIZE + 1))).toThrow(/at most 1000/);
    expect(() => pageSize('0')).toThrow(UsageError);
  });
});
