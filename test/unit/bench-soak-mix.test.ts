import { ROUTES } from '#routes';
import { BENCH_SETTINGS } from '../../scripts/bench/settings';
import { answerKind, documentedStatuses, minuteSchedule } from '../../scripts/bench/soak-mix';

describe('soak mix: one minute of the schedule', () => {
  const mix = BENCH_SETTINGS.soak.mix;
  const kinds = Object.keys(mix) as (keyof typeof mix)[];
  const total = kinds.reduce((sum, kind) => sum + mix[kind], 0);
  const schedule = minuteSchedule(mix);

  it('sends each kind exactly its count a minute', () => {
    expect(schedule).toHaveLength(total);
    for (const kind of kinds) expect(schedule.filter((sent) => sent === kind)).toHaveLength(mix[kind]);
  });

  it('spreads each kind over the minute: within one of its even share in every quarter', () => {
    for (let quarter = 0; quarter < 4; quarter += 1) {
      const slots = schedule.slice((quarter * total) / 4, ((quarter + 1) * total) / 4);
      for (const kind of kinds) {
        const sent = slots.filter((slot) => slot === kind).length;
        expect(Math.abs(sent - mix[kind] / 4)).toBeLessThanOrEqual(1);
      }
    }
  });

  it('puts a rare kind apart from itself, not in a burst', () => {
    const positions = schedule.flatMap((sent, slot) => (sent === 'createSplitJob' ? [slot] : []));
    expect(positions).toHaveLength(2);
    expect(positions[1]! - positions[0]!).toBeGreaterThanOrEqual(total / 2 - 1);
  });
});

describe('soak mix: documented answers', () => {
  const documented = documentedStatuses();

  it('reads every operation of the route table from the OpenAPI document', () => {
    for (const route of ROUTES) expect(documented.get(route.operationId)?.size).toBeGreaterThan(0);
    expect([...documented.get('createVideoJob')!]).toEqual(expect.arrayContaining([201, 402, 429]));
  });

  it.each([
    ['a documented success', 201, 'main', 'success'],
    ['a documented success to the limited organization', 201, 'limited', 'success'],
    ['a limit reached by the limited organization', 402, 'limited', 'limit'],
    ['a rate limit reached by the limited organization', 429, 'limited', 'limit'],
    ['a limit the main organization should never reach', 429, 'main', 'undocumented'],
    ['a documented 500', 500, 'main', 'undocumented'],
    ['a status the route does not document', 502, 'limited', 'undocumented'],
    ['a documented refusal that is not a limit', 404, 'main', 'undocumented'],
    ['no answer at all', 0, 'main', 'undocumented'],
  ] as const)('%s', (_, status, caller, kind) => {
    expect(answerKind(status, documented.get('createVideoJob')!, caller)).toBe(kind);
  });

  it('refuses a 402 on a route that does not document it, even to the limited organization', () => {
    expect(answerKind(402, documented.get('getMe')!, 'limited')).toBe('undocumented');
  });
});
