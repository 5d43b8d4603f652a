import { ROUTES, type Route } from '#routes';
import { WORKFLOWS } from '#workflows';
import { booleanIn, numberIn, objectIn, refusal, shown } from './context-values';

/**
 * What stands between a flood and the handlers before an API key is identified: the stage's
 * default throttle, per-route throttles, reserved concurrency of the API functions and, when
 * enabled, a CloudFront distribution with a WAF web ACL limiting each client IP. The per-key and
 * per-organization limits of the spec run in the handler, after these. docs/flood-control.md
 * explains each layer and the recommended production settings.
 */
export interface FloodControl {
  /** API Gateway's default for every route without a throttle of its own. */
  readonly stageThrottle: Throttle;
  /** By route-table key (`POST /split-jobs`, or `$default` for the fallback): the derived defaults with overrides applied. */
  readonly routeThrottles: Readonly<Record<string, Throttle>>;
  readonly reservedConcurrency: ReservedConcurrency;
  /** Absent: callers reach the execute-api endpoint directly. */
  readonly edgeFirewall?: EdgeFirewallSettings;
}

/** An API Gateway token bucket: refilled at `rateLimit` requests per second, holding at most `burstLimit`. */
export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface ReservedConcurrency {
  /** Reserved for each API function, the fallback included, unless `byRoute` says otherwise; none when absent. */
  readonly perFunction?: number;
  /** By route-table key (`$default` for the fallback). */
  readonly byRoute: Readonly<Record<string, number>>;
}

/** A web ACL created elsewhere (`webAclArn`), or the rules of the one the stack creates. */
export type EdgeFirewallSettings = { readonly webAclArn: string } | EdgeWebAclRules;

export interface EdgeWebAclRules {
  /** Requests one client IP may send within the window before the web ACL answers 429. */
  readonly perIpLimit: number;
  readonly windowSeconds: RateWindowSeconds;
  /** Blocks the addresses of AWS's Amazon IP reputation list (AWSManagedRulesAmazonIpReputationList). */
  readonly ipReputationList: boolean;
}

/** The evaluation windows a WAF rate-based rule accepts. */
export const RATE_WINDOWS_SECONDS = [60, 120, 300, 600] as const;
export type RateWindowSeconds = (typeof RATE_WINDOWS_SECONDS)[number];

/** The CDK context keys (`cdk deploy -c edgeFirewall=true`, or cdk.json's `context`). */
export const FLOOD_CONTROL_CONTEXT_KEYS = {
  stageRateLimit: 'stageThrottleRateLimit',
  stageBurstLimit: 'stageThrottleBurstLimit',
  routeThrottles: 'routeThrottles',
  apiReservedConcurrency: 'apiReservedConcurrency',
  routeReservedConcurrency: 'routeReservedConcurrency',
  edgeFirewall: 'edgeFirewall',
  edgeWebAclArn: 'edgeWebAclArn',
  edgeRateLimit: 'edgeRateLimit',
  edgeRateWindowSeconds: 'edgeRateWindowSeconds',
  edgeIpReputationList: 'edgeIpReputationList',
} as const;

/** The route-table key of the fallback, which API Gateway calls the `$default` route. */
export const FALLBACK_ROUTE_KEY = '$default';

/**
 * Far above what all keys together send under their own limits (Team default: 60 requests a
 * minute per key), so a well-behaved client never meets API Gateway's bare 429 first.
 */
export const DEFAULT_STAGE_THROTTLE: Throttle = { rateLimit: 100, burstLimit: 200 };

/**
 * Routes that create a job (start a workflow, or probe the source with ffprobe). An organization
 * may have 3 video and 2 split jobs active at once, so their legitimate rate is a few a second
 * across all customers; ffprobe makes POST /split-jobs one of the slowest routes, and concurrency
 * is rate times duration.
 */
export const JOB_CREATION_THROTTLE: Throttle = { rateLimit: 10, burstLimit: 20 };

/**
 * The upload flow (upload URL, confirmation): each URL lets its holder PUT up to 2 GB, and each
 * confirmation copies that much inside S3, the longest call of the API.
 */
export const UPLOAD_THROTTLE: Throttle = { rateLimit: 25, burstLimit: 50 };

/** The fallback answers only 404 and 405: throttling it hard costs no legitimate call, and scanners land there. */
export const UNMATCHED_ROUTE_THROTTLE: Throttle = { rateLimit: 10, burstLimit: 20 };

/** Above what one organization can be admitted (10 keys at 60 a minute), far below the stage throttle. */
export const DEFAULT_EDGE_PER_IP_LIMIT = 1000;
export const DEFAULT_EDGE_WINDOW_SECONDS: RateWindowSeconds = 60;

/** WAF's bounds on a rate-based rule's limit. */
const EDGE_PER_IP_LIMIT_RANGE = { min: 10, max: 2_000_000_000 };

/** A CLOUDFRONT-scope web ACL: always in us-east-1, under `global/`. */
const CLOUDFRONT_WEB_ACL_ARN = /^arn:aws[a-z-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[\w-]+\/[\w-]+$/;

/** `POST /split-jobs`: how the context and the docs name a route. */
export function routeKeyOf(route: Pick<Route, 'method' | 'path'>): string {
  return `${route.method} ${route.path}`;
}

function startsWorkflow(route: Route): boolean {
  return WORKFLOWS.some((workflow) => route.grants.includes(workflow.startGrant));
}

function handlesUploads(route: Route): boolean {
  return route.grants.includes('media.incoming:put') || route.grants.includes('media.incoming:inspect');
}

/** The throttles the route table implies: job creation and the upload flow lower, the fallback lowest. */
export function defaultRouteThrottles(routes: readonly Route[] = ROUTES): Record<string, Throttle> {
  const throttles: Record<string, Throttle> = { [FALLBACK_ROUTE_KEY]: UNMATCHED_ROUTE_THROTTLE };
  for (const route of routes) {
    if (startsWorkflow(route) || route.mediaTools) throttles[routeKeyOf(route)] = JOB_CREATION_THROTTLE;
    else if (handlesUploads(route)) throttles[routeKeyOf(route)] = UPLOAD_THROTTLE;
  }
  return throttles;
}

/** The settings with nothing configured: what VideoHttpApi applies to a route table when given none. */
export function defaultFloodControl(routes: readonly Route[] = ROUTES): FloodControl {
  return {
    stageThrottle: DEFAULT_STAGE_THROTTLE,
    routeThrottles: defaultRouteThrottles(routes),
    reservedConcurrency: { byRoute: {} },
  };
}

function positiveNumber(name: string, value: unknown): number {
  const number = numberIn(value);
  if (number === undefined || !Number.isFinite(number) || number <= 0) {
    throw new Error(refusal(name, 'a number greater than 0', value));
  }
  return number;
}

function integerWithin(name: string, value: unknown, { min, max }: { min: number; max: number }): number {
  const number = numberIn(value);
  if (number === undefined || !Number.isInteger(number) || number < min || number > max) {
    throw new Error(refusal(name, `a whole number from ${min} to ${max}`, value));
  }
  return number;
}

const positiveInteger = (name: string, value: unknown) =>
  integerWithin(name, value, { min: 1, max: Number.MAX_SAFE_INTEGER });

function booleanSetting(name: string, value: unknown): boolean {
  const setting = booleanIn(value);
  if (setting === undefined) throw new Error(refusal(name, 'true or false', value));
  return setting;
}

function objectSetting(name: string, value: unknown): Record<string, unknown> {
  const object = objectIn(value);
  if (object === undefined) throw new Error(refusal(name, 'a JSON object', value));
  return object;
}

/** Each key must name a route of the table (`POST /split-jobs`) or the fallback (`$default`). */
function byRouteKey<T>(
  name: string,
  value: unknown,
  parseEntry: (entryName: string, entry: unknown) => T,
): Record<string, T> {
  const known = new Set([FALLBACK_ROUTE_KEY, ...ROUTES.map(routeKeyOf)]);
  return Object.fromEntries(
    Object.entries(objectSetting(name, value)).map(([routeKey, entry]) => {
      if (!known.has(routeKey)) {
        throw new Error(
          `${name} names ${shown(routeKey)}, which is no route: use "METHOD /path" as in lambdas/routes.ts (for example "POST /split-jobs") or "${FALLBACK_ROUTE_KEY}"`,
        );
      }
      return [routeKey, parseEntry(`${name}[${shown(routeKey)}]`, entry)];
    }),
  );
}

function throttleSetting(name: string, value: unknown): Throttle {
  const entry = objectSetting(name, value);
  const unknownFields = Object.keys(entry).filter((field) => field !== 'rateLimit' && field !== 'burstLimit');
  if (unknownFields.length > 0) {
    throw new Error(`${name} may hold only rateLimit and burstLimit, got ${shown(unknownFields)}`);
  }
  return {
    rateLimit: positiveNumber(`${name}.rateLimit`, entry.rateLimit),
    burstLimit: positiveInteger(`${name}.burstLimit`, entry.burstLimit),
  };
}

function rateWindowSetting(name: string, value: unknown): RateWindowSeconds {
  const window = RATE_WINDOWS_SECONDS.find((seconds) => seconds === numberIn(value));
  if (window === undefined) {
    throw new Error(refusal(name, `one of ${RATE_WINDOWS_SECONDS.join(', ')} (seconds)`, value));
  }
  return window;
}

function edgeFirewallFrom(read: (key: string) => unknown): EdgeFirewallSettings | undefined {
  const keys = FLOOD_CONTROL_CONTEXT_KEYS;
  const enabled = booleanSetting(keys.edgeFirewall, read(keys.edgeFirewall) ?? false);
  const ruleKeys = [keys.edgeRateLimit, keys.edgeRateWindowSeconds, keys.edgeIpReputationList];
  const webAclArn = read(keys.edgeWebAclArn);
  if (!enabled) {
    const stray = [keys.edgeWebAclArn, ...ruleKeys].filter((key) => read(key) !== undefined);
    if (stray.length > 0) {
      throw new Error(`These settings apply only with ${keys.edgeFirewall}=true: ${stray.join(', ')}`);
    }
    return undefined;
  }
  if (webAclArn !== undefined) {
    if (typeof webAclArn !== 'string' || !CLOUDFRONT_WEB_ACL_ARN.test(webAclArn)) {
      throw new Error(
        refusal(
          keys.edgeWebAclArn,
          'the ARN of a CLOUDFRONT-scope web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>)',
          webAclArn,
        ),
      );
    }
    const ignored = ruleKeys.filter((key) => read(key) !== undefined);
    if (ignored.length > 0) {
      throw new Error(
        `With ${keys.edgeWebAclArn} the rules are that web ACL's; these settings configure the one the stack creates: ${ignored.join(', ')}`,
      );
    }
    return { webAclArn };
  }
  return {
    perIpLimit: integerWithin(
      keys.edgeRateLimit,
      read(keys.edgeRateLimit) ?? DEFAULT_EDGE_PER_IP_LIMIT,
      EDGE_PER_IP_LIMIT_RANGE,
    ),
    windowSeconds: rateWindowSetting(
      keys.edgeRateWindowSeconds,
      read(keys.edgeRateWindowSeconds) ?? DEFAULT_EDGE_WINDOW_SECONDS,
    ),
    ipReputationList: booleanSetting(keys.edgeIpReputationList, read(keys.edgeIpReputationList) ?? true),
  };
}

/**
 * The flood-control settings from CDK context (`read` is `node.tryGetContext`): each key
 * validated, an invalid one failing the synthesis with a message that names it.
 */
export function floodControlFrom(read: (key: string) => unknown): FloodControl {
  const keys = FLOOD_CONTROL_CONTEXT_KEYS;
  const routeThrottles = read(keys.routeThrottles);
  const perFunction = read(keys.apiReservedConcurrency);
  const reservedByRoute = read(keys.routeReservedConcurrency);
  const edgeFirewall = edgeFirewallFrom(read);
  return {
    stageThrottle: {
      rateLimit: positiveNumber(keys.stageRateLimit, read(keys.stageRateLimit) ?? DEFAULT_STAGE_THROTTLE.rateLimit),
      burstLimit: positiveInteger(
        keys.stageBurstLimit,
        read(keys.stageBurstLimit) ?? DEFAULT_STAGE_THROTTLE.burstLimit,
      ),
    },
    routeThrottles: {
      ...defaultRouteThrottles(),
      ...(routeThrottles === undefined ? {} : byRouteKey(keys.routeThrottles, routeThrottles, throttleSetting)),
    },
    reservedConcurrency: {
      ...(perFunction === undefined ? {} : { perFunction: positiveInteger(keys.apiReservedConcurrency, perFunction) }),
      byRoute:
        reservedByRoute === undefined
          ? {}
          : byRouteKey(keys.routeReservedConcurrency, reservedByRoute, positiveInteger),
    },
    ...(edgeFirewall ? { edgeFirewall } : {}),
  };
}
