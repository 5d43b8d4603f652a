import fc from 'fast-check';
import { instantRoundedUp } from '#platform/instants';

const instants = fc.integer({ min: Date.parse('0000-01-02T00:00:00Z'), max: Date.parse('9999-12-30T00:00:00Z') });

describe('instantRoundedUp', () => {
  it('reads every instant as toISOString writes it', () => {
    fc.assert(fc.property(instants, (ms) => expect(instantRoundedUp(new Date(ms).toISOString())).toBe(ms)));
  });

  it('reads the same instant at any offset, and lower-case or space separators', () => {
    fc.assert(
      fc.property(instants, fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }), (ms, offsetMinutes) => {
        const local = new Date(ms + offsetMinutes * 60_000).toISOString().slice(0, 23);
        const sign = offsetMinutes < 0 ? '-' : '+';
        const magnitude = Math.abs(offsetMinutes);
        const offset = `${sign}${String(Math.floor(magnitude / 60)).padStart(2, '0')}:${String(magnitude % 60).padStart(2, '0')}`;
        expect(instantRoundedUp(`${local}${offset}`)).toBe(ms);
        expect(instantRoundedUp(`${local.replace('T', ' ')}${offset}`)).toBe(ms);
        expect(instantRoundedUp(`${local.replace('T', 't')}z`.replace(/z$/, offset))).toBe(ms);
      }),
    );
  });

  it('rounds a fraction finer than a millisecond up to the next millisecond', () => {
    fc.assert(
      fc.property(instants, fc.stringMatching(/^[0-9]{1,6}$/), (ms, digits) => {
        const base = new Date(ms).toISOString().slice(0, 23);
        const text = `${base}${digits}Z`;
        expect(instantRoundedUp(text)).toBe(/[1-9]/.test(digits) ? ms + 1 : ms);
      }),
    );
  });

  it('places a leap second at the first millisecond of the next minute, and years before 100 where they are', () => {
    expect(instantRoundedUp('2016-12-31T23:59:60Z')).toBe(Date.parse('2017-01-01T00:00:00Z'));
    // Date.parse reads a four-digit ISO year as written; Date.UTC would read 50 as 1950.
    expect(instantRoundedUp('0050-06-15T12:00:00Z')).toBe(Date.parse('0050-06-15T12:00:00Z'));
  });

  it.each(['2026-11-23', '2026-11-23T10:00Z', 'yesterday', '2026-11-23T10:00:00', '2026-11-23T10:00:00+0100', ''])(
    'answers undefined for %p',
    (text) => expect(instantRoundedUp(text)).toBeUndefined(),
  );
});
