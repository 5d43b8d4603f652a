import { RemovalPolicy } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as logs from 'aws-cdk-lib/aws-logs';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import { API_PREFIX, FALLBACK_HANDLER, ROUTES, type Route } from '#routes';
import { ApiFunction } from './api-function';
import { constructIdOf } from './construct-ids';
import { applyGrants, type ApiStateMachines } from './grants';
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
  /** The route table to build; lambdas/routes.ts unless told (tests build synthetic tables). */
  readonly routes?: readonly Route[];
  /**
   * Stage-wide throttle: a coarse shield against floods, far above what all keys together may
   * send under their own limits. The per-key and per-organization limits of the spec are enforced
   * in the handlers (DynamoDB counters), because only they can answer with the rate-limit headers.
   */
  readonly throttle?: apigwv2.ThrottleSettings;
  readonly logLevel?: string;
}

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

const DEFAULT_THROTTLE: apigwv2.ThrottleSettings = { rateLimit: 100, burstLimit: 200 };

const NO_AUTHORIZER_REASON =
  'Authentication (bearer API key), scopes and the per-key/per-organization rate limits run in the handler (lambdas/http/api-handler.ts): every response, 401 and 429 included, must carry the rate-limit headers and the error envelope of the spec, which an API Gateway authorizer cannot produce.';

/**
 * The v1 HTTP API built from the route table: one ApiFunction per route, the fallback function on
 * `$default` (so unknown paths and methods get our 404/405 envelope, not API Gateway's), one
 * explicit `$default` stage with JSON access logs and a throttle, and no authorizer.
 */
export class VideoHttpApi extends Construct {
  public readonly api: apigwv2.HttpApi;
  public readonly stage: apigwv2.HttpStage;
  public readonly accessLogGroup: logs.LogGroup;
  /** Every function by operationId, the fallback under FALLBACK_HANDLER. */
  public readonly functions: ReadonlyMap<string, ApiFunction>;
  /** `https://…/api/v1/developer`: the spec's {base_url}. */
  public readonly baseUrl: string;

  private readonly props: VideoHttpApiProps;

  constructor(scope: Construct, id: string, props: VideoHttpApiProps) {
    super(scope, id);
    this.props = props;

    this.api = new apigwv2.HttpApi(this, 'Api', {
      description: `Developer video automation API v1 (${API_PREFIX})`,
      // The stage below replaces the implicit one so it can carry access logs and a throttle.
      createDefaultStage: false,
    });

    this.accessLogGroup = new logs.LogGroup(this, 'AccessLogs', {
      retention: logs.RetentionDays.THREE_MONTHS,
      // Who called what and when: kept for audits even if the stack is deleted.
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.stage = new apigwv2.HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: true,
      throttle: props.throttle ?? DEFAULT_THROTTLE,
      accessLogSettings: {
        destination: new apigwv2.LogGroupLogDestination(this.accessLogGroup),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    // With a `$default` stage the stage adds nothing to the path: the base URL is endpoint + prefix.
    this.baseUrl = `${this.api.apiEndpoint}${API_PREFIX}`;

    const functions = new Map<string, ApiFunction>();
    for (const route of props.routes ?? ROUTES) {
      const routeKey = `${route.method} ${API_PREFIX}${route.path}`;
      const constructId = constructIdOf(route.operationId);
      const fn = this.newFunction(`${constructId}Function`, route.handler, `${routeKey} (${route.operationId})`, {
        mediaTools: route.mediaTools ? this.mediaToolsFor(route) : undefined,
      });
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
      functions.set(route.operationId, fn);
    }

    const fallback = this.newFunction(
      'FallbackFunction',
      FALLBACK_HANDLER,
      '$default: 404/405 envelope for unmatched requests',
    );
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
    functions.set(FALLBACK_HANDLER, fallback);

    this.functions = functions;
  }

  private mediaToolsFor(route: Route): MediaToolsLayer {
    if (!this.props.mediaTools) {
      throw new Error(
        `Route ${route.method} ${route.path} runs ffmpeg or ffprobe, but no media-tools layer was given.`,
      );
    }
    return this.props.mediaTools;
  }

  /** Every function reads and writes the table: authentication and rate limits run in each. */
  private newFunction(
    id: string,
    handlerModule: string,
    description: string,
    options: { mediaTools?: MediaToolsLayer } = {},
  ): ApiFunction {
    const fn = new ApiFunction(this, id, {
      handlerModule,
      description,
      mediaTools: options.mediaTools,
      tableName: this.props.table.tableName,
      mediaBucketName: this.props.media.bucketName,
      logLevel: this.props.logLevel,
    });
    this.props.table.grantTo(fn, 'RW');
    return fn;
  }

  private integrationOf(id: string, fn: ApiFunction): HttpLambdaIntegration {
    return new HttpLambdaIntegration(id, fn, { payloadFormatVersion: apigwv2.PayloadFormatVersion.VERSION_2_0 });
  }
}
