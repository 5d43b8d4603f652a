import {
  DEFAULT_EDGE_PER_IP_LIMIT,
  DEFAULT_EDGE_WINDOW_SECONDS,
  DEFAULT_STAGE_THROTTLE,
  JOB_CREATION_THROTTLE,
  UNMATCHED_ROUTE_THROTTLE,
  UPLOAD_THROTTLE,
  defaultRouteThrottles,
  floodControlFrom,
} from '../../lib/flood-control';
import { ROUTES } from '#routes';

const WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared-edge/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

/** The parser over a context holding exactly these values, as `node.tryGetContext` reads them. */
const parse = (context: Record<string, unknown>) => floodControlFrom((key) => context[key]);

describe('floodControlFrom', () => {
  test('with nothing set: the default stage throttle, the derived route throttles, no reserved concurrency, no edge', () => {
    expect(parse({})).toEqual({
      stageThrottle: { rateLimit: 100, burstLimit: 200 },
      routeThrottles: {
        'POST /video-jobs': JOB_CREATION_THROTTLE,
        'POST /split-jobs': JOB_CREATION_THROTTLE,
        'POST /assets/upload-url': UPLOAD_THROTTLE,
        'POST /assets/confirm-upload': UPLOAD_THROTTLE,
        $default: UNMATCHED_ROUTE_THROTTLE,
      },
      reservedConcurrency: { byRoute: {} },
    });
    expect(DEFAULT_STAGE_THROTTLE).toEqual({ rateLimit: 100, burstLimit: 200 });
  });

  test('the derived route throttles follow the route table: workflow starters and ffprobe users, the upload flow, the fallback', () => {
    const getMe = ROUTES.find((route) => route.operationId === 'getMe')!;
    expect(
      defaultRouteThrottles([
        getMe,
        { ...getMe, method: 'POST', path: '/probe', mediaTools: true },
        { ...getMe, method: 'PATCH', path: '/start', grants: ['states.video-job:start'] },
        { ...getMe, method: 'POST', path: '/confirm', grants: ['media.incoming:inspect'] },
      ]),
    ).toEqual({
      'POST /probe': JOB_CREATION_THROTTLE,
      'PATCH /start': JOB_CREATION_THROTTLE,
      'POST /confirm': UPLOAD_THROTTLE,
      $default: UNMATCHED_ROUTE_THROTTLE,
    });
  });

  test('reads numbers and booleans as the CLI gives them (strings) and as cdk.json does', () => {
    const settings = parse({
      stageThrottleRateLimit: '250.5',
      stageThrottleBurstLimit: 500,
      apiReservedConcurrency: '4',
      edgeFirewall: 'true',
      edgeRateLimit: '2000',
      edgeRateWindowSeconds: 300,
      edgeIpReputationList: 'false',
    });
    expect(settings.stageThrottle).toEqual({ rateLimit: 250.5, burstLimit: 500 });
    expect(settings.reservedConcurrency).toEqual({ perFunction: 4, byRoute: {} });
    expect(settings.edgeFirewall).toEqual({ perIpLimit: 2000, windowSeconds: 300, ipReputationList: false });
  });

  test('route throttles, as a JSON object or its text, replace the derived ones of the routes they name only', () => {
    const overrides = {
      'POST /split-jobs': { rateLimit: 1, burstLimit: 2 },
      'GET /me': { rateLimit: 40, burstLimit: 60 },
    };
    for (const routeThrottles of [overrides, JSON.stringify(overrides)]) {
      expect(parse({ routeThrottles }).routeThrottles).toEqual({
        ...defaultRouteThrottles(),
        'POST /split-jobs': { rateLimit: 1, burstLimit: 2 },
        'GET /me': { rateLimit: 40, burstLimit: 60 },
      });
    }
  });

  test('reserved concurrency per function and per route (the fallback as $default)', () => {
    expect(
      parse({ apiReservedConcurrency: 3, routeReservedConcurrency: '{"$default": 1, "POST /split-jobs": 12}' })
        .reservedConcurrency,
    ).toEqual({ perFunction: 3, byRoute: { $default: 1, 'POST /split-jobs': 12 } });
  });

  test('edgeFirewall alone: a web ACL of the stack limiting each IP to 1000 requests a minute, with the IP reputation list', () => {
    expect(parse({ edgeFirewall: true }).edgeFirewall).toEqual({
      perIpLimit: DEFAULT_EDGE_PER_IP_LIMIT,
      windowSeconds: DEFAULT_EDGE_WINDOW_SECONDS,
      ipReputationList: true,
    });
    expect([DEFAULT_EDGE_PER_IP_LIMIT, DEFAULT_EDGE_WINDOW_SECONDS]).toEqual([1000, 60]);
    expect(parse({ edgeFirewall: 'false' }).edgeFirewall).toBeUndefined();
  });

  test('edgeFirewall with edgeWebAclArn: that web ACL, no rules of the stack', () => {
    expect(parse({ edgeFirewall: true, edgeWebAclArn: WEB_ACL_ARN }).edgeFirewall).toEqual({ webAclArn: WEB_ACL_ARN });
  });

  test.each([
    [{ stageThrottleRateLimit: 0 }, 'stageThrottleRateLimit must be a number greater than 0, got 0'],
    [{ stageThrottleRateLimit: 'fast' }, 'stageThrottleRateLimit must be a number greater than 0, got "fast"'],
    [{ stageThrottleBurstLimit: 2.5 }, 'stageThrottleBurstLimit must be a whole number from 1 to'],
    [{ stageThrottleBurstLimit: '' }, 'stageThrottleBurstLimit must be a whole number from 1 to'],
    [{ routeThrottles: '{not json' }, 'routeThrottles must be a JSON object, got "{not json"'],
    [{ routeThrottles: [] }, 'routeThrottles must be a JSON object, got []'],
    [
      { routeThrottles: { '/split-jobs': { rateLimit: 1, burstLimit: 1 } } },
      'routeThrottles names "/split-jobs", which is no route: use "METHOD /path"',
    ],
    [
      { routeThrottles: { 'POST /split-jobs': { rateLimit: 1 } } },
      'routeThrottles["POST /split-jobs"].burstLimit must be a whole number from 1 to',
    ],
    [
      { routeThrottles: { 'POST /split-jobs': { rateLimit: -1, burstLimit: 1 } } },
      'routeThrottles["POST /split-jobs"].rateLimit must be a number greater than 0, got -1',
    ],
    [
      { routeThrottles: { 'POST /split-jobs': { rate: 1, rateLimit: 1, burstLimit: 1 } } },
      'routeThrottles["POST /split-jobs"] may hold only rateLimit and burstLimit, got ["rate"]',
    ],
    [{ apiReservedConcurrency: 0 }, 'apiReservedConcurrency must be a whole number from 1 to'],
    [
      { routeReservedConcurrency: { 'GET /nowhere': 2 } },
      'routeReservedConcurrency names "GET /nowhere", which is no route',
    ],
    [{ routeReservedConcurrency: { $default: 'many' } }, 'routeReservedConcurrency["$default"] must be a whole number'],
    [{ edgeFirewall: 'yes' }, 'edgeFirewall must be true or false, got "yes"'],
    [{ edgeRateLimit: 500 }, 'These settings apply only with edgeFirewall=true: edgeRateLimit'],
    [
      { edgeWebAclArn: WEB_ACL_ARN, edgeRateWindowSeconds: 60 },
      'These settings apply only with edgeFirewall=true: edgeWebAclArn, edgeRateWindowSeconds',
    ],
    [{ edgeFirewall: true, edgeRateLimit: 5 }, 'edgeRateLimit must be a whole number from 10 to 2000000000, got 5'],
    [
      { edgeFirewall: true, edgeRateWindowSeconds: 90 },
      'edgeRateWindowSeconds must be one of 60, 120, 300, 600 (seconds), got 90',
    ],
    [{ edgeFirewall: true, edgeIpReputationList: 'no' }, 'edgeIpReputationList must be true or false, got "no"'],
    [
      { edgeFirewall: true, edgeWebAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/api/0a1b2c3d' },
      'edgeWebAclArn must be the ARN of a CLOUDFRONT-scope web ACL',
    ],
    [
      { edgeFirewall: true, edgeWebAclArn: WEB_ACL_ARN, edgeRateLimit: 100 },
      "With edgeWebAclArn the rules are that web ACL's; these settings configure the one the stack creates: edgeRateLimit",
    ],
  ])('refuses %j, naming the key', (context, message) => {
    expect(() => parse(context)).toThrow(message);
  });
});
