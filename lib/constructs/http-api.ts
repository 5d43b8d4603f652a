import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { DEFAULT_VIDEO_CREDITS_PER_SECOND, type VideoCreditRates } from '#domain/video-jobs/video-pricing';
import { VIDEO_CREDITS_PER_SECOND } from '#platform/settings';
import { API_PREFIX } from '#platform/api-prefix';
import { FALLBACK_HANDLER, FALLBACK_TABLE_ACCESS, ROUTES, type Route, type RouteSetting } from '#routes';
import { acknowledgeControl } from '../control-tower';
import { FALLBACK_ROUTE_KEY, defaultFloodControl, routeKeyOf, type FloodControl } from '../flood-control';
import { ApiFunction } from './api-function';
import { constructIdOf } from './construct-ids';
import { applyGrants, type ApiStateMachines } from './grants';
import type { Governance } from './governance';
import type { MediaToolsLayer } from './media-tools-layer';
import type { DataTable } from './data-table';
import type { MediaBucket } from './media-bucket';
import type { QueuesByName } from './queues';
import type { WebhookSecretsKey } from './webhook-secrets-key';

export interface VideoHttpApiProps {
  readonly table: DataTable;
  readonly media: MediaBucket;
  /** The workflows routes start; one a route needs but missing here fails the synthesis. */
  readonly stateMachines: ApiStateMachines;
  /** The secret whose versions sign list cursors; one a route needs but missing here fails the synthesis. */
  readonly cursorKey?: secretsmanager.ISecret;
  /** The queues of lambdas/queues.ts; one a route sends to but missing here fails the synthesis. */
  readonly queues?: QueuesByName;
  /** The key that wraps webhook signing secrets; needed by the routes granted to use it, or the synthesis fails. */
  readonly webhookSecretsKey?: WebhookSecretsKey;
  /** ffmpeg and ffprobe for the routes that run them (`mediaTools` in the route table). */
  readonly mediaTools?: MediaToolsLayer;
  /** What a second of generated video costs, for the routes with the `video-pricing` setting; the defaults unless told. */
  readonly videoCreditsPerSecond?: VideoCreditRates;
  /** The route table to build; lambdas/routes.ts unless told (tests build synthetic tables). */
  readonly routes?: readonly Route[];
  /**
   * Stage and route throttles and reserved concurrency (lib/flood-control.ts): coarse shields
   * against floods, far above what all keys together may send under their own limits. The per-key
   * and per-organization limits of the spec are enforced in the handlers (DynamoDB counters),
   * because only they can answer with the rate-limit headers. The defaults unless told.
   */
  readonly floodControl?: ApiFloodControl;
  readonly logLevel?: string;
  /** Of every function's log group; a month unless told. */
  readonly logRetention?: logs.RetentionDays;
  /**
   * The access log group's retention and fate with the stack: three months and RETAIN (an audit
   * trail that outlives the stack) unless told.
   */
  readonly accessLogs?: { readonly retention: logs.RetentionDays; readonly removalPolicy: RemovalPolicy };
  /** The governed profile: every function in its network, every log group encrypted with its key. */
  readonly governance?: Governance;
}

/** Who called what and when: the audit trail, kept longer than the diagnostic logs. */
export const DEFAULT_ACCESS_LOG_RETENTION = logs.RetentionDays.THREE_MONTHS;

/**
 * HTTP API access log fields, one JSON object per request. Values are all strings because
 * API Gateway writes `-` for a missing value, which would break unquoted numbers.
 */
export const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  userAgent: '$context.identity.userAgent',
  requestTime: '$context.requestTime',
  httpMethod: '$context.httpMethod',
  path: '$context.path',
  routeKey: '$context.routeKey',
  status: '$context.status',
  protocol: '$context.protocol',
  responseLength: '$context.responseLength',
  responseLatency: '$context.responseLatency',
  integrationLatency: '$context.integrationLatency',
  integrationStatus: '$context.integrationStatus',
  integrationErrorMessage: '$context.integrationErrorMessage',
} as const;

/** What the API applies of the flood-control settings; the edge (CloudFront and WAF) is the stack's. */
export type ApiFloodControl = Pick<FloodControl, 'stageThrottle' | 'routeThrottles' | 'reservedConcurrency'>;

/** The stage's RouteSettings entry of one route: CloudFormation's own field names (the property is plain JSON). */
interface RouteThrottleSetting {
  ThrottlingRateLimit: number;
  ThrottlingBurstLimit: number;
}

/**
 * A Lambda proxy integration (payload format 2.0) that API Gateway invokes with a role, not with a
 * permission in the function's own policy as CDK's HttpLambdaIntegration adds. Such a permission
 * names API Gateway, a service principal, which CT.LAMBDA.PR.2 accepts only with a SourceAccount or
 * SourceArn it can read in the template: an environment-agnostic synthesis knows no account, and
 * the API's ARN is a join of several values.
 */
class HttpLambdaRoleIntegration extends apigwv2.HttpRouteIntegration {
  constructor(
    id: string,
    private readonly fn: lambda.IFunction,
    private readonly role: iam.IRole,
  ) {
    super(id);
  }

  bind(): apigwv2.HttpRouteIntegrationConfig {
    return {
      type: apigwv2.HttpIntegrationType.AWS_PROXY,
      uri: this.fn.functionArn,
      payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0,
      credentials: apigwv2.IntegrationCredentials.fromRole(this.role),
    };
  }
}

/**
 * Why no route names an authorization type (CT.APIGATEWAY.PR.5), and what protects them instead;
 * docs/architecture.md weighs a Lambda authorizer.
 */
const ROUTE_AUTHORIZATION_EXCEPTION =
  "Every route is open to API Gateway and authenticated in its function: the bearer API key (read with a strongly consistent read, so a revoked key is refused at its next request), its scopes and the per-key and per-organization rate limits are checked by the handler (lambdas/http/api-handler.ts), because every response, 401 and 429 included, must carry the spec's error envelope and rate-limit headers, which an authorizer's denial (API Gateway's bare 401 or 403) cannot. A Lambda authorizer would add an invocation to every request, or, with cached results, let a revoked key through until the cache expired and count none of its requests. Each function holds only its route's grants; the stage and route throttles, reserved concurrency and, when on, the edge firewall stand before it.";

const NO_AUTHORIZER_REASON =
  'Authentication (bearer API key), scopes and the per-key/per-organization rate limits run in the handler (lambdas/http/api-handler.ts): every response, 401 and 429 included, must carry the rate-limit headers and the error envelope of the spec, which an API Gateway authorizer cannot produce.';

/**
 * The v1 HTTP API built from the route table: one ApiFunction per route, the fallback function on
 * `$default` (so unknown paths and methods get our 404/405 envelope, not API Gateway's), one
 * explicit `$default` stage with JSON access logs and the stage and route throttles, reserved
 * concurrency when configured, and no authorizer.
 */
export class VideoHttpApi extends Construct {
  public readonly api: apigwv2.HttpApi;
  public readonly stage: apigwv2.HttpStage;
  public readonly accessLogGroup: logs.LogGroup;
  /** What API Gateway invokes the functions with: InvokeFunction on each of them, and nothing else. */
  public readonly integrationRole: iam.Role;
  /** Every function by operationId, the fallback under FALLBACK_HANDLER. */
  public readonly functions: ReadonlyMap<string, ApiFunction>;
  /** `https://…/api/v1/developer`: the spec's {base_url}. */
  public readonly baseUrl: string;

  private readonly props: VideoHttpApiProps;
  private readonly floodControl: ApiFloodControl;
  /** The stage's RouteSettings by API Gateway route key, filled as routes are added. */
  private readonly routeSettings: Record<string, RouteThrottleSetting> = {};

  constructor(scope: Construct, id: string, props: VideoHttpApiProps) {
    super(scope, id);
    this.props = props;
    const routeTable = props.routes ?? ROUTES;
    this.floodControl = props.floodControl ?? defaultFloodControl(routeTable);

    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: `Developer video automation API v1 (${API_PREFIX})`,
      // The stage below replaces the implicit one so it can carry access logs and a throttle.
      createDefaultStage: false,
    });

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: props.accessLogs?.retention ?? DEFAULT_ACCESS_LOG_RETENTION,
      encryptionKey: props.governance?.logsKey,
      // Who called what and when: unless told, kept for audits even if the stack is deleted.
      removalPolicy: props.accessLogs?.removalPolicy ?? RemovalPolicy.RETAIN,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: this.floodControl.stageThrottle,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    this.integrationRole = new iam.Role(this, 'IntegrationRole', {
      assumedBy: new iam.ServicePrincipal('apigateway.amazonaws.com'),
      description: 'API Gateway invokes the route functions of the developer API with this role',
    });
    // The stage deploys the routes: not before the role may invoke their functions.
    this.stage.node.addDependency(this.integrationRole);
    // With a `$default` stage the stage adds nothing to the path: the base URL is endpoint + prefix.
    this.baseUrl = `${this.api.apiEndpoint}${API_PREFIX}`;

    const functions = new Map<string, ApiFunction>();
    for (const route of routeTable) {
      const routeKey = `${route.method} ${API_PREFIX}${route.path}`;
      const constructId = constructIdOf(route.operationId);
      const fn = this.newFunction(`${constructId}Function`, route.handler, `${routeKey} (${route.operationId})`, {
        mediaTools: route.mediaTools ? this.mediaToolsFor(route) : undefined,
        reservedConcurrentExecutions: this.reservedConcurrencyOf(routeKeyOf(route)),
      });
      for (const setting of route.settings ?? []) {
        for (const [variable, value] of Object.entries(this.settingEnvironment(setting)))
          fn.addEnvironment(variable, value);
      }
      props.table.grantTo(fn, route);
      applyGrants(route.grants, {
        fn,
        who: `Route ${route.method} ${route.path} (${route.operationId})`,
        media: props.media,
        stateMachines: props.stateMachines,
        cursorKey: props.cursorKey,
        queues: props.queues,
        webhookSecretsKey: props.webhookSecretsKey,
      });
      const routes = this.api.addRoutes({
        path: `${API_PREFIX}${route.path}`,
        methods: [apigwv2.HttpMethod[route.method]],
        integration: this.integrationOf(`${constructId}Integration`, fn),
      });
      NagSuppressions.addResourceSuppressions(
        routes,
        [{ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER_REASON }],
        true,
      );
      this.throttleRoute(routeKeyOf(route), routeKey, routes);
      functions.set(route.operationId, fn);
    }

    const fallback = this.newFunction(
      'FallbackFunction',
      FALLBACK_HANDLER,
      '$default: 404/405 envelope for unmatched requests',
      { reservedConcurrentExecutions: this.reservedConcurrencyOf(FALLBACK_ROUTE_KEY) },
    );
    props.table.grantTo(fallback, FALLBACK_TABLE_ACCESS);
    const defaultRoute = new apigwv2.HttpRoute(this, 'DefaultRoute', {
      httpApi: this.api,
      routeKey: apigwv2.HttpRouteKey.DEFAULT,
      integration: this.integrationOf('FallbackIntegration', fallback),
    });
    NagSuppressions.addResourceSuppressions(
      defaultRoute,
      [{ id: 'AwsSolutions-APIG4', reason: NO_AUTHORIZER_REASON }],
      true,
    );
    this.throttleRoute(FALLBACK_ROUTE_KEY, apigwv2.HttpRouteKey.DEFAULT.key, [defaultRoute]);
    functions.set(FALLBACK_HANDLER, fallback);

    this.functions = functions;
    acknowledgeControl(this, 'CT.APIGATEWAY.PR.5', ROUTE_AUTHORIZATION_EXCEPTION);
    this.applyRouteSettings(new Set([FALLBACK_ROUTE_KEY, ...routeTable.map(routeKeyOf)]));
  }

  private reservedConcurrencyOf(tableKey: string): number | undefined {
    const { byRoute, perFunction } = this.floodControl.reservedConcurrency;
    return byRoute[tableKey] ?? perFunction;
  }

  private throttleRoute(tableKey: string, apiRouteKey: string, routes: readonly Construct[]) {
    const throttle = this.floodControl.routeThrottles[tableKey];
    if (!throttle) return;
    this.routeSettings[apiRouteKey] = {
      ThrottlingRateLimit: throttle.rateLimit,
      ThrottlingBurstLimit: throttle.burstLimit,
    };
    // The stage names the route by its key, so CloudFormation must create the route first
    // ("Unable to find Route by key" otherwise).
    this.stage.node.addDependency(...routes);
  }

  /** HttpStage has no prop for route-level settings; a setting naming no route of this table would fail the deployment. */
  private applyRouteSettings(builtRouteKeys: ReadonlySet<string>) {
    const named = [
      ...Object.keys(this.floodControl.routeThrottles),
      ...Object.keys(this.floodControl.reservedConcurrency.byRoute),
    ];
    const unknown = named.filter((tableKey) => !builtRouteKeys.has(tableKey));
    if (unknown.length > 0) {
      throw new Error(`Flood-control settings name routes this API does not have: ${unknown.join(', ')}`);
    }
    if (Object.keys(this.routeSettings).length > 0) {
      (this.stage.node.defaultChild as apigwv2.CfnStage).routeSettings = this.routeSettings;
    }
  }

  private mediaToolsFor(route: Route): MediaToolsLayer {
    if (!this.props.mediaTools) {
      throw new Error(
        `Route ${route.method} ${route.path} runs ffmpeg or ffprobe, but no media-tools layer was given.`,
      );
    }
    return this.props.mediaTools;
  }

  /** The environment of each route setting (lambdas/routes.ts) in AWS. */
  private settingEnvironment(setting: RouteSetting): Record<string, string> {
    switch (setting) {
      case 'video-pricing':
        return {
          [VIDEO_CREDITS_PER_SECOND.variable]: JSON.stringify(
            this.props.videoCreditsPerSecond ?? DEFAULT_VIDEO_CREDITS_PER_SECOND,
          ),
        };
    }
  }

  private newFunction(
    id: string,
    handlerModule: string,
    description: string,
    options: { mediaTools?: MediaToolsLayer; reservedConcurrentExecutions?: number } = {},
  ): ApiFunction {
    return new ApiFunction(this, id, {
      handlerModule,
      description,
      mediaTools: options.mediaTools,
      reservedConcurrentExecutions: options.reservedConcurrentExecutions,
      tableName: this.props.table.tableName,
      mediaBucketName: this.props.media.bucketName,
      logLevel: this.props.logLevel,
      logRetention: this.props.logRetention,
      governance: this.props.governance,
    });
  }

  /**
   * The function's integration, and InvokeFunction on its unqualified ARN for the integration role
   * (the integration names no version or alias, so no `:*`).
   */
  private integrationOf(id: string, fn: ApiFunction): HttpLambdaRoleIntegration {
    iam.Grant.addToPrincipal({
      grantee: this.integrationRole,
      actions: ['lambda:InvokeFunction'],
      resourceArns: [fn.functionArn],
    });
    return new HttpLambdaRoleIntegration(id, fn, this.integrationRole);
  }
}
