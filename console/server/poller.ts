import type { ApiClient } from './api-client';
import type { RateGovernor } from './rate-governor';
import { plansOf, type CachedRead, type ReadPlan, type View } from './views';

/** One open page: the view it shows, and how to push to it. */
export interface Subscriber {
  view: View;
  send(event: 'read' | 'poller', data: unknown): void;
}

/**
 * A failed read (no answer, a 429, a 5xx) is tried again this soon, or when the governor's pause
 * ends if that is later; a refused one (another 4xx) less often.
 */
const RETRY_FAILED_MS = 5_000;
const RETRY_REFUSED_MS = 30_000;
/** A read no open page needs is forgotten this long after it was made. */
const FORGET_AFTER_MS = 10 * 60_000;

/**
 * The one poller every open page shares. It reads, one request at a time, the read that is most
 * overdue among those the open pages' views need (views.ts), within the governor's budget, and
 * pushes each answer that changed to the pages that show it. A page that opens gets what is
 * cached at once; nothing is read for a view no page shows.
 */
export class Poller {
  private readonly cache = new Map<string, CachedRead>();
  private readonly subscribers = new Set<Subscriber>();
  private readonly requested = new Set<string>();
  private running = false;
  private wake: (() => void) | undefined;
  private stopped: Promise<void> | undefined;
  private pauseOver: NodeJS.Timeout | undefined;

  constructor(
    private readonly api: ApiClient,
    private readonly governor: RateGovernor,
  ) {}

  start(): void {
    this.running = true;
    this.stopped = this.loop();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.pauseOver);
    this.wake?.();
    await this.stopped;
  }

  /** Adds an open page; answers how to remove it. */
  subscribe(subscriber: Subscriber): () => void {
    this.subscribers.add(subscriber);
    subscriber.send('poller', this.governor.state());
    for (const plan of this.plansOf(subscriber.view)) {
      const read = this.cache.get(plan.key);
      if (read) subscriber.send('read', read);
    }
    this.wake?.();
    return () => this.subscribers.delete(subscriber);
  }

  /** Reads these again as soon as the budget allows: an action changed them. */
  refresh(matches: (key: string) => boolean): void {
    for (const key of this.cache.keys()) if (matches(key)) this.requested.add(key);
    this.wake?.();
  }

  /** Tells every page the governor's state (why reads wait, and till when), and again once the wait is over. */
  announceGovernor(): void {
    const state = this.governor.state();
    for (const subscriber of this.subscribers) subscriber.send('poller', state);
    clearTimeout(this.pauseOver);
    if (state.paused_until) {
      this.pauseOver = setTimeout(() => this.announceGovernor(), Date.parse(state.paused_until) - Date.now() + 1);
    }
  }

  private plansOf(view: View): ReadPlan[] {
    return plansOf(view, (key) => this.cache.get(key), Date.now());
  }

  /** The reads the open pages need, each once. */
  private neededPlans(): Map<string, ReadPlan> {
    const plans = new Map<string, ReadPlan>();
    for (const subscriber of this.subscribers) {
      for (const plan of this.plansOf(subscriber.view)) plans.set(plan.key, plan);
    }
    return plans;
  }

  private dueAt(plan: ReadPlan): number {
    const read = this.cache.get(plan.key);
    if (!read || this.requested.has(plan.key)) return 0;
    if (read.status === 200) return read.fetchedAt + plan.freshForMs(read);
    const failed = read.status === 0 || read.status === 429 || read.status >= 500;
    return read.fetchedAt + (failed ? RETRY_FAILED_MS : RETRY_REFUSED_MS);
  }

  private async loop(): Promise<void> {
    while (this.running) {
      const now = Date.now();
      const plans = this.neededPlans();
      for (const [key, read] of this.cache) {
        if (!plans.has(key) && now - read.fetchedAt > FORGET_AFTER_MS) this.cache.delete(key);
      }
      let next: { plan: ReadPlan; dueAt: number } | undefined;
      for (const plan of plans.values()) {
        const dueAt = this.dueAt(plan);
        if (!next || dueAt < next.dueAt) next = { plan, dueAt };
      }
      if (!next) {
        await this.sleep(undefined);
      } else if (next.dueAt > now) {
        await this.sleep(next.dueAt - now);
      } else {
        const waitMs = this.governor.takeForRead();
        if (waitMs > 0) await this.sleep(waitMs);
        else await this.read(next.plan);
      }
    }
  }

  private async read(plan: ReadPlan): Promise<void> {
    this.requested.delete(plan.key);
    let read: CachedRead;
    try {
      const answer = await this.api.call('GET', plan.path);
      read = { key: plan.key, status: answer.status, body: answer.body, fetchedAt: Date.now() };
    } catch (error) {
      const message = `The API at ${this.api.apiUrl} did not answer: ${(error as Error).message}`;
      read = { key: plan.key, status: 0, body: { error: { code: 'API_UNREACHABLE', message } }, fetchedAt: Date.now() };
    }
    const before = this.cache.get(plan.key);
    // A 429 says to wait (the governor now does), not that the last answer was wrong: pages keep it.
    if (read.status === 429 && before) return;
    this.cache.set(plan.key, read);
    if (before && before.status === read.status && JSON.stringify(before.body) === JSON.stringify(read.body)) return;
    for (const subscriber of this.subscribers) {
      if (this.plansOf(subscriber.view).some((needed) => needed.key === plan.key)) subscriber.send('read', read);
    }
  }

  /** Waits `ms` (forever when undefined), or until woken by a page, a refresh or stop. */
  private sleep(ms: number | undefined): Promise<void> {
    return new Promise((resolve) => {
      const timer = ms === undefined ? undefined : setTimeout(done, ms);
      const wake = () => done();
      this.wake = wake;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
  }
}
