import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';

/** Who sends a request of the soak: the organization under its limits, or the one the mix takes past them. */
export type Caller = 'main' | 'limited';

/** The statuses docs/openapi.yaml documents for each operation, by operationId. */
export function documentedStatuses(): Map<string, Set<number>> {
  const document = parse(readFileSync(join(__dirname, '../../docs/openapi.yaml'), 'utf8')) as {
    paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, unknown> }>>;
  };
  const statuses = new Map<string, Set<number>>();
  for (const item of Object.values(document.paths)) {
    for (const operation of Object.values(item)) {
      if (operation.operationId && operation.responses) {
        statuses.set(operation.operationId, new Set(Object.keys(operation.responses).map(Number)));
      }
    }
  }
  return statuses;
}

/**
 * Whether an answer is a documented one for its route: a documented 2xx; or a documented 402 or
 * 429 to the organization whose limits the mix reaches. The main organization's limits are set
 * above the mix, so a 402 or 429 there means the mix, not the service, is wrong; a 5xx is never
 * an answer, though the document lists 500.
 */
export function answerKind(
  status: number,
  documented: ReadonlySet<number>,
  caller: Caller,
): 'success' | 'limit' | 'undocumented' {
  if (!documented.has(status)) return 'undocumented';
  if (status >= 200 && status < 300) return 'success';
  if ((status === 402 || status === 429) && caller === 'limited') return 'limit';
  return 'undocumented';
}

/** One minute of the mix in sending order: each kind as many times as its count, spread evenly (smooth weighted round robin). */
export function minuteSchedule<K extends string>(perMinute: Readonly<Record<K, number>>): K[] {
  const kinds = Object.keys(perMinute) as K[];
  const total = kinds.reduce((sum, kind) => sum + perMinute[kind], 0);
  const credit = new Map<K, number>(kinds.map((kind) => [kind, 0]));
  const order: K[] = [];
  for (let slot = 0; slot < total; slot += 1) {
    let chosen = kinds[0]!;
    for (const kind of kinds) {
      credit.set(kind, credit.get(kind)! + perMinute[kind]);
      if (credit.get(kind)! > credit.get(chosen)!) chosen = kind;
    }
    credit.set(chosen, credit.get(chosen)! - total);
    order.push(chosen);
  }
  return order;
}
