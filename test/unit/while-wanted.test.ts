import { setTimeout as sleep } from 'node:timers/promises';
import { whileWanted } from '#platform/while-wanted';

describe('work that runs while it is wanted', () => {
  it('has its signal aborted with the reason the first time it is no longer wanted', async () => {
    let asked = 0;
    const reason = new Error('no longer wanted');
    const seen = await whileWanted(
      async () => {
        asked += 1;
        return asked < 3;
      },
      () => reason,
      (signal) =>
        new Promise<unknown>((resolve) =>
          signal.addEventListener('abort', () => resolve(signal.reason), { once: true }),
        ),
      5,
    );

    expect(seen).toBe(reason);
    expect(asked).toBe(3);
  });

  it('is never asked about after it ended, nor twice at once', async () => {
    let asked = 0;
    let asking = 0;
    let mostAtOnce = 0;
    await whileWanted(
      async () => {
        asked += 1;
        asking += 1;
        mostAtOnce = Math.max(mostAtOnce, asking);
        await sleep(20);
        asking -= 1;
        return true;
      },
      () => new Error('unused'),
      () => sleep(60),
      2,
    );
    const askedByTheEnd = asked;
    await sleep(30);

    expect(askedByTheEnd).toBeGreaterThan(0);
    expect(asked).toBe(askedByTheEnd);
    expect(mostAtOnce).toBe(1);
  });
});
