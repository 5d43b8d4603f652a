import { Aspects } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { EDGE_RATE_LIMITED_ENVELOPE, RATE_LIMITED_BODY_KEY } from '../../lib/constructs/api-edge';
import type { ApiFloodControl } from '../../lib/constructs/http-api';
import {
  DEFAULT_STAGE_THROTTLE,
  JOB_CREATION_THROTTLE,
  UNMATCHED_ROUTE_THROTTLE,
  UPLOAD_THROTTLE,
  defaultFloodControl,
} from '../../lib/flood-control';
import { VideoApiStack } from '../../lib/video-api-stack';
import type { OperationId } from '#contract/types';
import { API_PREFIX } from '#platform/api-prefix';
import { FALLBACK_HANDLER, ROUTES, type Route } from '#routes';
import { ApiOnlyStack, appWithoutBundling, logicalIdIn, nagFindings } from './fixtures';

/** AWS's managed CachingDisabled cache policy and AllViewerExceptHostHeader origin request policy. */
const CACHING_DISABLED_POLICY_ID = '4135ea2d-6df8-44a3-9df3-4b5a84be39ad';
const ALL_VIEWER_EXCEPT_HOST_POLICY_ID = 'b689b0a8-53d0-40ab-baf2-68738e2966ac';

const EXISTING_WEB_ACL_ARN =
  'arn:aws:wafv2:us-east-1:123456789012:global/webacl/shared-edge/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

/** The stack as bin/app.ts builds and checks it, synthesized once: the findings first, then the template. */
function stackWith(context: Record<string, unknown>, props: ConstructorParameters<typeof VideoApiStack>[2] = {}) {
  const app = appWithoutBundling(context);
  const stack = new VideoApiStack(app, 'VideoApiStack', props);
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  const findings = nagFindings(stack);
  return { stack, template: Template.fromStack(stack), findings };
}

const onlyResource = (template: Template, type: string) => {
  const resources = Object.entries(template.findResources(type));
  expect(resources).toHaveLength(1);
  const [logicalId, resource] = resources[0]!;
  return { logicalId, properties: resource.Properties, dependsOn: (resource.DependsOn ?? []) as string[] };
};

const routeNamed = (operationId: OperationId): Route => ROUTES.find((route) => route.operationId === operationId)!;
const apiRouteKey = (route: Route) => `${route.method} ${API_PREFIX}${route.path}`;

describe('with nothing configured', () => {
  const { stack, template } = stackWith({});
  const logicalIdOf = logicalIdIn(stack);
  const stage = onlyResource(template, 'AWS::ApiGatewayV2::Stage');

  test('the stage throttles every route at 100 requests/s with bursts of 200 unless the route has its own', () => {
    expect(stage.properties.DefaultRouteSettings).toEqual({
      ThrottlingRateLimit: DEFAULT_STAGE_THROTTLE.rateLimit,
      ThrottlingBurstLimit: DEFAULT_STAGE_THROTTLE.burstLimit,
    });
    expect(DEFAULT_STAGE_THROTTLE).toEqual({ rateLimit: 100, burstLimit: 200 });
  });

  test('job creation, the upload flow and the fallback have lower route throttles; every other route has the default', () => {
    const throttleOf = ({ rateLimit, burstLimit }: { rateLimit: number; burstLimit: number }) => ({
      ThrottlingRateLimit: rateLimit,
      ThrottlingBurstLimit: burstLimit,
    });
    expect(stage.properties.RouteSettings).toEqual({
      [apiRouteKey(routeNamed('createVideoJob'))]: throttleOf(JOB_CREATION_THROTTLE),
      [apiRouteKey(routeNamed('createSplitJob'))]: throttleOf(JOB_CREATION_THROTTLE),
      [apiRouteKey(routeNamed('createAssetUploadUrl'))]: throttleOf(UPLOAD_THROTTLE),
      [apiRouteKey(routeNamed('confirmAssetUpload'))]: throttleOf(UPLOAD_THROTTLE),
      $default: throttleOf(UNMATCHED_ROUTE_THROTTLE),
    });
    for (const throttle of [JOB_CREATION_THROTTLE, UPLOAD_THROTTLE, UNMATCHED_ROUTE_THROTTLE]) {
      expect(throttle.rateLimit).toBeLessThan(DEFAULT_STAGE_THROTTLE.rateLimit);
    }
  });

  test('the stage is created after each route its settings name, which API Gateway requires to exist', () => {
    const routes = template.findResources('AWS::ApiGatewayV2::Route');
    const routeIdsByKey = new Map(Object.entries(routes).map(([id, route]) => [route.Properties.RouteKey, id]));
    for (const routeKey of Object.keys(stage.properties.RouteSettings)) {
      expect(routeIdsByKey.has(routeKey)).toBe(true);
      expect(stage.dependsOn).toContain(routeIdsByKey.get(routeKey));
    }
  });

  test('no function reserves concurrency', () => {
    for (const resource of Object.values(template.findResources('AWS::Lambda::Function'))) {
      expect(resource.Properties.ReservedConcurrentExecutions).toBeUndefined();
    }
  });

  test("there is no CloudFront distribution, no web ACL and no rule on the web ACL's region, and ApiUrl is the execute-api endpoint", () => {
    template.resourceCountIs('AWS::CloudFront::Distribution', 0);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    expect(JSON.stringify(template.toJSON().Rules ?? {})).not.toContain('edgeWebAclArn');
    expect(template.findOutputs('ApiUrl').ApiUrl?.Value).toEqual({
      'Fn::Join': ['', [{ 'Fn::GetAtt': [logicalIdOf(stack.httpApi.api), 'ApiEndpoint'] }, API_PREFIX]],
    });
  });
});

describe('with throttles and reserved concurrency configured', () => {
  const { stack, template } = stackWith({
    stageThrottleRateLimit: '300',
    stageThrottleBurstLimit: 600,
    routeThrottles: JSON.stringify({
      'POST /split-jobs': { rateLimit: 2, burstLimit: 4 },
      'GET /me': { rateLimit: 50, burstLimit: 80 },
    }),
    apiReservedConcurrency: 5,
    routeReservedConcurrency: { $default: 2, 'POST /split-jobs': 20 },
  });
  const logicalIdOf = logicalIdIn(stack);
  const stage = onlyResource(template, 'AWS::ApiGatewayV2::Stage');
  const functions = template.findResources('AWS::Lambda::Function');
  const reservedOf = (name: string) =>
    functions[logicalIdOf(stack.httpApi.functions.get(name)!)]!.Properties.ReservedConcurrentExecutions;

  test('the stage default and the named routes take the configured throttles; the derived ones stay for the others', () => {
    expect(stage.properties.DefaultRouteSettings).toEqual({ ThrottlingRateLimit: 300, ThrottlingBurstLimit: 600 });
    expect(stage.properties.RouteSettings).toMatchObject({
      [apiRouteKey(routeNamed('createSplitJob'))]: { ThrottlingRateLimit: 2, ThrottlingBurstLimit: 4 },
      [apiRouteKey(routeNamed('getMe'))]: { ThrottlingRateLimit: 50, ThrottlingBurstLimit: 80 },
      [apiRouteKey(routeNamed('createVideoJob'))]: {
        ThrottlingRateLimit: JOB_CREATION_THROTTLE.rateLimit,
        ThrottlingBurstLimit: JOB_CREATION_THROTTLE.burstLimit,
      },
    });
  });

  test('every API function reserves the configured concurrency, the fallback and POST /split-jobs their own', () => {
    for (const name of stack.httpApi.functions.keys()) {
      const expected = name === FALLBACK_HANDLER ? 2 : name === 'createSplitJob' ? 20 : 5;
      expect([name, reservedOf(name)]).toEqual([name, expected]);
    }
  });

  test('workers and tasks reserve nothing: they share the unreserved pool', () => {
    const apiFunctionIds = new Set([...stack.httpApi.functions.values()].map(logicalIdOf));
    const others = Object.entries(functions).filter(([id]) => !apiFunctionIds.has(id));
    expect(others.length).toBeGreaterThan(0);
    for (const [, resource] of others) expect(resource.Properties.ReservedConcurrentExecutions).toBeUndefined();
  });
});

describe('with the edge firewall on (edgeFirewall=true)', () => {
  const { stack, template, findings } = stackWith({ edgeFirewall: 'true' });
  const logicalIdOf = logicalIdIn(stack);
  const distribution = onlyResource(template, 'AWS::CloudFront::Distribution').properties.DistributionConfig;
  const webAcl = onlyResource(template, 'AWS::WAFv2::WebACL');
  const ruleNamed = (name: string) =>
    (webAcl.properties.Rules as Record<string, unknown>[]).find((rule) => rule.Name === name)!;

  test('the distribution has the HTTP API as its only origin, over HTTPS and TLS 1.2 only', () => {
    expect(distribution.Origins).toEqual([
      expect.objectContaining({
        DomainName: {
          'Fn::Select': [2, { 'Fn::Split': ['/', { 'Fn::GetAtt': [logicalIdOf(stack.httpApi.api), 'ApiEndpoint'] }] }],
        },
        CustomOriginConfig: expect.objectContaining({
          OriginProtocolPolicy: 'https-only',
          OriginSSLProtocols: ['TLSv1.2'],
        }),
      }),
    ]);
    expect(distribution.Origins[0].OriginPath).toBeUndefined();
  });

  test('it caches nothing, allows every method, accepts HTTPS only, and forwards every viewer header but Host and every query string', () => {
    expect(distribution.DefaultCacheBehavior).toMatchObject({
      CachePolicyId: CACHING_DISABLED_POLICY_ID,
      OriginRequestPolicyId: ALL_VIEWER_EXCEPT_HOST_POLICY_ID,
      AllowedMethods: expect.arrayContaining(['GET', 'HEAD', 'OPTIONS', 'PUT', 'PATCH', 'POST', 'DELETE']),
      ViewerProtocolPolicy: 'https-only',
    });
    expect(distribution.DefaultCacheBehavior.AllowedMethods).toHaveLength(7);
    expect(distribution.CacheBehaviors).toBeUndefined();
  });

  test('the web ACL the stack creates is CLOUDFRONT-scoped, allows by default and is attached to the distribution', () => {
    expect(webAcl.properties).toMatchObject({ Scope: 'CLOUDFRONT', DefaultAction: { Allow: {} } });
    expect(distribution.WebACLId).toEqual({ 'Fn::GetAtt': [webAcl.logicalId, 'Arn'] });
  });

  test('its rate-based rule limits each client IP to 1000 requests a minute and answers 429 with the error envelope and Retry-After', () => {
    expect(ruleNamed('PerIpRateLimit')).toMatchObject({
      Statement: { RateBasedStatement: { AggregateKeyType: 'IP', Limit: 1000, EvaluationWindowSec: 60 } },
      Action: {
        Block: {
          CustomResponse: {
            ResponseCode: 429,
            CustomResponseBodyKey: RATE_LIMITED_BODY_KEY,
            ResponseHeaders: expect.arrayContaining([{ Name: 'Retry-After', Value: '60' }]),
          },
        },
      },
    });
    const body = webAcl.properties.CustomResponseBodies[RATE_LIMITED_BODY_KEY];
    expect(body.ContentType).toBe('APPLICATION_JSON');
    expect(JSON.parse(body.Content)).toEqual(EDGE_RATE_LIMITED_ENVELOPE);
    expect(EDGE_RATE_LIMITED_ENVELOPE.error).toMatchObject({
      code: 'RATE_LIMIT_EXCEEDED',
      request_id: expect.stringMatching(/^req_/),
    });
  });

  test("it runs AWS's IP reputation list first, with the group's own actions", () => {
    expect(ruleNamed('AmazonIpReputationList')).toMatchObject({
      Priority: 0,
      OverrideAction: { None: {} },
      Statement: { ManagedRuleGroupStatement: { VendorName: 'AWS', Name: 'AWSManagedRulesAmazonIpReputationList' } },
    });
    expect(ruleNamed('PerIpRateLimit').Priority).toBe(1);
  });

  test('a template rule refuses a deployment outside us-east-1, where CLOUDFRONT-scope web ACLs cannot be created', () => {
    const rules = Object.values(template.toJSON().Rules as Record<string, { Assertions: unknown[] }>);
    expect(rules).toContainEqual({
      Assertions: [
        {
          Assert: { 'Fn::Equals': [{ Ref: 'AWS::Region' }, 'us-east-1'] },
          AssertDescription: expect.stringContaining('edgeWebAclArn'),
        },
      ],
    });
  });

  test('ApiUrl is the distribution followed by /api/v1/developer', () => {
    expect(template.findOutputs('ApiUrl').ApiUrl?.Value).toEqual({
      'Fn::Join': [
        '',
        ['https://', { 'Fn::GetAtt': [logicalIdOf(stack.edge!.distribution), 'DomainName'] }, API_PREFIX],
      ],
    });
  });

  test('the stack has no unsuppressed AwsSolutions findings', () => {
    expect(findings).toEqual({ errors: [], warnings: [] });
  });
});

describe('with the edge firewall on and an existing web ACL (edgeWebAclArn)', () => {
  const { template, findings } = stackWith({ edgeFirewall: true, edgeWebAclArn: EXISTING_WEB_ACL_ARN });

  test("the distribution uses that web ACL; the stack creates none and needs no region of the web ACL's", () => {
    const distribution = onlyResource(template, 'AWS::CloudFront::Distribution').properties.DistributionConfig;
    expect(distribution.WebACLId).toBe(EXISTING_WEB_ACL_ARN);
    template.resourceCountIs('AWS::WAFv2::WebACL', 0);
    const assertions = JSON.stringify(template.toJSON().Rules ?? {});
    expect(assertions).not.toContain('edgeWebAclArn');
  });

  test('the stack has no unsuppressed AwsSolutions findings', () => {
    expect(findings).toEqual({ errors: [], warnings: [] });
  });
});

describe('the web ACL region', () => {
  // us-west-2: where the default video model runs, and so where the stack is.
  test('a stack with a region other than us-east-1 that would create the web ACL fails the synthesis, naming edgeWebAclArn', () => {
    expect(() => stackWith({ edgeFirewall: true }, { env: { region: 'us-west-2' } })).toThrow(
      /The stack's region is us-west-2\. A CLOUDFRONT-scope web ACL can only be created in us-east-1.*edgeWebAclArn/,
    );
  });

  test('the same stack with an existing web ACL synthesizes', () => {
    const { template } = stackWith(
      { edgeFirewall: true, edgeWebAclArn: EXISTING_WEB_ACL_ARN },
      { env: { region: 'us-west-2' } },
    );
    expect(Object.keys(template.findResources('AWS::CloudFront::Distribution'))).toHaveLength(1);
  });
});

describe('VideoHttpApi over another route table', () => {
  const routes = ROUTES.filter(
    (route) => route.operationId === 'getMe' || route.operationId === 'createAssetUploadUrl',
  );

  const apiStack = (floodControl?: ApiFloodControl) =>
    new ApiOnlyStack(appWithoutBundling(), 'ApiOnly', { routes, floodControl });

  test('derives its default route throttles from that table', () => {
    const stage = onlyResource(Template.fromStack(apiStack()), 'AWS::ApiGatewayV2::Stage');
    expect(Object.keys(stage.properties.RouteSettings).sort()).toEqual(
      ['$default', `POST ${API_PREFIX}/assets/upload-url`].sort(),
    );
  });

  test('fails the synthesis when the settings name a route the table does not have', () => {
    expect(() =>
      apiStack({ ...defaultFloodControl(), routeThrottles: { 'POST /split-jobs': JOB_CREATION_THROTTLE } }),
    ).toThrow('Flood-control settings name routes this API does not have: POST /split-jobs');
  });
});
