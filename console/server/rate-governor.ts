/**
 * How often the console may call the API. A key may make 60 requests a minute, shared by every
 * program that uses it, so the console's reads draw from a token bucket refilled at
 * `readsPerMinute` (at most `burst` at once, so opening a view loads it without waiting), and
 * stop altogether when the API says so: a 429 pauses them for its `Retry-After`, and a window with
 * fewer than RESERVE requests left pauses them until the window resets, so the console never
 * takes the last requests from the key's other users.
 */

/** Requests of the key's minute window the console leaves to its other users. */
export const RESERVE = 10;

export interface GovernorState {
  reads_per_minute: number;
  /** ISO time until which reads wait, or null. */
  paused_until: string | null;
  pause_reason: 'rate_limited' | 'reserve' | null;
}

export class RateGovernor {
  private tokens: number;
  private refilledAt: number;
  private pausedUntil = 0;
  private pauseReason: GovernorState['pause_reason'] = null;

  constructor(
    private readonly readsPerMinute: number,
    private readonly burst: number,
  ) {
    this.tokens = burst;
    this.refilledAt = Date.now();
  }

  /** Milliseconds a read must wait; 0 when it may go now, and then its token is taken. */
  takeForRead(): number {
    const now = Date.now();
    if (this.pausedUntil > now) return this.pausedUntil - now;
    this.refill(now);
    if (this.tokens < 1) return Math.ceil(((1 - this.tokens) * 60_000) / this.readsPerMinute);
    this.tokens -= 1;
    return 0;
  }

  /** A request of an action the person asked for goes at once, and the reads after it wait for its token. */
  spendForAction(): void {
    this.refill(Date.now());
    this.tokens -= 1;
  }

  /** Reads what an API answer says about the key's window; true when the pause changed. */
  observe(status: number, headers: Headers): boolean {
    const now = Date.now();
    const before = this.pausedUntil;
    if (status === 429) {
      const retryAfter = Number(headers.get('retry-after'));
      this.pause(now + (Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : 60) * 1000, 'rate_limited');
    } else {
      const remaining = Number(headers.get('x-ratelimit-remaining') ?? Number.NaN);
      const reset = Number(headers.get('x-ratelimit-reset') ?? Number.NaN);
      if (remaining < RESERVE && reset * 1000 > now) this.pause(reset * 1000, 'reserve');
    }
    return this.pausedUntil !== before;
  }

  state(): GovernorState {
    const paused = this.pausedUntil > Date.now();
    return {
      reads_per_minute: this.readsPerMinute,
      paused_until: paused ? new Date(this.pausedUntil).toISOString() : null,
      pause_reason: paused ? this.pauseReason : null,
    };
  }

  private pause(until: number, reason: GovernorState['pause_reason']) {
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    this.pauseReason = reason;
  }

  private refill(now: number) {
    this.tokens = Math.min(this.burst, this.tokens + ((now - this.refilledAt) * this.readsPerMinute) / 60_000);
    this.refilledAt = now;
  }
}
