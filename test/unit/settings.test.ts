import fc from 'fast-check';
import {
  requiredSetting,
  optionalSetting,
  flagSetting,
  positiveNumberSetting,
  choiceSetting,
  SETTINGS,
  WEBHOOK_RETRY_SCALE,
  type Setting,
} from '#platform/settings';

const NAME: Setting = WEBHOOK_RETRY_SCALE;
const VARIABLE = NAME.variable;

afterEach(() => {
  delete process.env[VARIABLE];
});

function withValue(value: string | undefined): void {
  if (value === undefined) delete process.env[VARIABLE];
  else process.env[VARIABLE] = value;
}

describe('the settings table', () => {
  it('names every variable once', () => {
    const variables = Object.values(SETTINGS).map(({ variable }) => variable);
    expect(new Set(variables).size).toBe(variables.length);
  });
});

describe('setting readers', () => {
  it('treat an empty variable as unset', () => {
    withValue('');
    expect(optionalSetting(NAME)).toBeUndefined();
    expect(() => requiredSetting(NAME)).toThrow(`${VARIABLE} is not set`);
    expect(positiveNumberSetting(NAME, 7)).toBe(7);
  });

  it('turn a flag on for `true` only', () => {
    fc.assert(
      fc.property(fc.option(fc.string(), { nil: undefined }), (value) => {
        withValue(value);
        expect(flagSetting(NAME)).toBe(value === 'true');
      }),
    );
  });

  it('read a positive number, and refuse anything else naming the variable', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-6, max: 1e9, noNaN: true }), (number) => {
        withValue(String(number));
        expect(positiveNumberSetting(NAME, 1)).toBe(number);
      }),
    );
    for (const value of ['0', '-2', 'soon', 'Infinity']) {
      withValue(value);
      expect(() => positiveNumberSetting(NAME, 1)).toThrow(`${VARIABLE} must be a positive number, got "${value}"`);
    }
  });

  it('read one of the choices, the fallback when unset, and refuse anything else', () => {
    const choices = ['fast', 'slow'] as const;
    withValue('slow');
    expect(choiceSetting(NAME, choices, 'fast')).toBe('slow');
    withValue(undefined);
    expect(choiceSetting(NAME, choices, 'fast')).toBe('fast');
    expect(() => choiceSetting(NAME, choices)).toThrow(`${VARIABLE} must be one of fast, slow, got nothing`);
    withValue('medium');
    expect(() => choiceSetting(NAME, choices, 'fast')).toThrow(`${VARIABLE} must be one of fast, slow, got "medium"`);
  });
});
