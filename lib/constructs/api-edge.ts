import { Aws, CfnRule, Fn, Stack, Token } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import * as origins from 'aws-cdk-lib/aws-cloudfront-origins';
import * as wafv2 from 'aws-cdk-lib/aws-wafv2';
import { NagSuppressions } from 'cdk-nag';
import { Construct } from 'constructs';
import type { ErrorEnvelope } from '#contract/types';
import { API_PREFIX } from '#platform/api-prefix';
import { acknowledgeControl } from '../control-tower';
import { FLOOD_CONTROL_CONTEXT_KEYS, type EdgeFirewallSettings, type EdgeWebAclRules } from '../flood-control';
import type { VideoHttpApi } from './http-api';

/** WAF keeps every CLOUDFRONT-scope web ACL in us-east-1, whatever the region of the distribution's stack. */
export const EDGE_WEB_ACL_REGION = 'us-east-1';

/** The key of the rate-based rule's response body in the web ACL's CustomResponseBodies. */
export const RATE_LIMITED_BODY_KEY = 'rate-limited';

/**
 * What the rate-based rule answers, in the API's error envelope. WAF bodies are static, so the
 * request id is a constant; CloudFront's X-Amz-Cf-Id response header identifies the request.
 */
export const EDGE_RATE_LIMITED_ENVELOPE: ErrorEnvelope = {
  error: {
    code: 'RATE_LIMIT_EXCEEDED',
    message:
      'Too many requests from this IP address. Retry after the Retry-After delay; quote the X-Amz-Cf-Id response header when you contact support.',
    request_id: 'req_edge_rate_limited',
  },
};

const WEB_ACL_REGION_MESSAGE = `A CLOUDFRONT-scope web ACL can only be created in ${EDGE_WEB_ACL_REGION}: deploy this stack there, or create the web ACL in ${EDGE_WEB_ACL_REGION} and give its ARN as ${FLOOD_CONTROL_CONTEXT_KEYS.edgeWebAclArn}.`;

export interface ApiEdgeProps {
  readonly api: VideoHttpApi;
  readonly firewall: EdgeFirewallSettings;
}

/**
 * A CloudFront distribution in front of the HTTP API, with a WAF web ACL: a per-IP rate limit
 * before any request reaches API Gateway's shared throttles. Nothing is cached and every viewer
 * header but Host (Authorization, Idempotency-Key included) and every query string is forwarded,
 * so the API behaves as it does when called directly. docs/flood-control.md says what it does
 * not do: the execute-api endpoint stays reachable.
 */
export class ApiEdge extends Construct {
  public readonly distribution: cloudfront.Distribution;
  /** The web ACL this stack created; absent when an existing one is attached (edgeWebAclArn). */
  public readonly webAcl?: wafv2.CfnWebACL;
  /** `https://<distribution>.cloudfront.net/api/v1/developer`: the base URL callers should use. */
  public readonly baseUrl: string;

  constructor(scope: Construct, id: string, props: ApiEdgeProps) {
    super(scope, id);

    let webAclArn: string;
    if ('webAclArn' in props.firewall) {
      webAclArn = props.firewall.webAclArn;
    } else {
      this.requireWebAclRegion();
      this.webAcl = this.newWebAcl(props.firewall);
      webAclArn = this.webAcl.attrArn;
    }

    // `https://<api id>.execute-api.<region>.<suffix>`: the origin is the host part.
    const apiDomain = Fn.select(2, Fn.split('/', props.api.api.apiEndpoint));
    this.distribution = new cloudfront.Distribution(this, 'Distribution', {
      comment: `Developer API v1 (${API_PREFIX}) behind the WAF web ACL`,
      defaultBehavior: {
        origin: new origins.HttpOrigin(apiDomain, {
          protocolPolicy: cloudfront.OriginProtocolPolicy.HTTPS_ONLY,
          originSslProtocols: [cloudfront.OriginSslPolicy.TLS_V1_2],
        }),
        allowedMethods: cloudfront.AllowedMethods.ALLOW_ALL,
        // A key sent over plain HTTP is already exposed: refuse rather than redirect.
        viewerProtocolPolicy: cloudfront.ViewerProtocolPolicy.HTTPS_ONLY,
        cachePolicy: cloudfront.CachePolicy.CACHING_DISABLED,
        // Managed policies may forward Authorization (a custom one may not); API Gateway needs its own Host.
        originRequestPolicy: cloudfront.OriginRequestPolicy.ALL_VIEWER_EXCEPT_HOST_HEADER,
      },
      webAclId: webAclArn,
    });
    this.baseUrl = `https://${this.distribution.distributionDomainName}${API_PREFIX}`;

    NagSuppressions.addResourceSuppressions(this.distribution, [
      {
        id: 'AwsSolutions-CFR1',
        reason:
          'The API serves server-to-server customers wherever they run; access is decided by API key, and floods by the web ACL and the throttles, not by country.',
      },
      {
        id: 'AwsSolutions-CFR3',
        reason:
          "Every request the distribution forwards is in the stage's access log and the handler's log line (organization, key prefix, status); the web ACL's metrics and sampled requests show what it blocks. Standard logging would need an S3 bucket with ACLs enabled, which the project's buckets refuse (bucket-owner enforced).",
      },
      {
        id: 'AwsSolutions-CFR4',
        reason:
          "The distribution uses CloudFront's default *.cloudfront.net certificate, whose security policy CloudFront fixes at TLSv1 (minimumProtocolVersion needs a custom certificate). Connections to the origin are TLS 1.2 only; a custom domain with an ACM certificate lifts the viewer side to TLS 1.2 (docs/flood-control.md).",
      },
    ]);
    this.acknowledgeControls();
  }

  /** The Control Tower controls a distribution in front of an API, on CloudFront's own domain, does not meet. */
  private acknowledgeControls() {
    const defaultCertificate =
      "The distribution serves CloudFront's own *.cloudfront.net domain with its default certificate, which the stack has no setting to replace: a custom domain needs an ACM certificate in us-east-1 and DNS the operator owns (docs/flood-control.md). Viewers must use HTTPS, and connections to the origin are TLS 1.2 only.";
    acknowledgeControl(this.distribution, 'CT.CLOUDFRONT.PR.6', defaultCertificate);
    acknowledgeControl(this.distribution, 'CT.CLOUDFRONT.PR.7', defaultCertificate);
    acknowledgeControl(
      this.distribution,
      'CT.CLOUDFRONT.PR.9',
      `${defaultCertificate} CloudFront fixes the default certificate's security policy at TLSv1.`,
    );
    acknowledgeControl(
      this.distribution,
      'CT.CLOUDFRONT.PR.1',
      "A default root object is a file served for the root URL, as a website has; the API has none, and the root URL reaches the API's $default route, which answers 404 in the error envelope.",
    );
    acknowledgeControl(
      this.distribution,
      'CT.CLOUDFRONT.PR.4',
      "The API has one origin, the stack's HTTP API in its region; a failover origin would be a second deployment of the service, with its own table, in another region.",
    );
    acknowledgeControl(
      this.distribution,
      'CT.CLOUDFRONT.PR.5',
      "Standard logging needs an S3 bucket with ACLs enabled, which the project's buckets refuse (bucket-owner enforced). Every request the distribution forwards is in the stage's access log and the handler's log line; the web ACL's metrics and sampled requests show what it blocks.",
    );
  }

  /** Fails the synthesis, or the deployment when the region is unknown until then, outside us-east-1. */
  private requireWebAclRegion() {
    const region = Stack.of(this).region;
    if (!Token.isUnresolved(region) && region !== EDGE_WEB_ACL_REGION) {
      throw new Error(`The stack's region is ${region}. ${WEB_ACL_REGION_MESSAGE}`);
    }
    new CfnRule(this, 'WebAclRegion', {
      assertions: [
        { assert: Fn.conditionEquals(Aws.REGION, EDGE_WEB_ACL_REGION), assertDescription: WEB_ACL_REGION_MESSAGE },
      ],
    });
  }

  private newWebAcl(rules: EdgeWebAclRules): wafv2.CfnWebACL {
    const visibility = (metricName: string): wafv2.CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    const ipReputationRule: wafv2.CfnWebACL.RuleProperty = {
      name: 'AmazonIpReputationList',
      priority: 0,
      // AWS's own rule actions: a listed address gets WAF's plain 403, without the envelope.
      overrideAction: { none: {} },
      statement: { managedRuleGroupStatement: { vendorName: 'AWS', name: 'AWSManagedRulesAmazonIpReputationList' } },
      visibilityConfig: visibility('AmazonIpReputationList'),
    };
    const perIpRule: wafv2.CfnWebACL.RuleProperty = {
      name: 'PerIpRateLimit',
      priority: 1,
      statement: {
        rateBasedStatement: {
          aggregateKeyType: 'IP',
          limit: rules.perIpLimit,
          evaluationWindowSec: rules.windowSeconds,
        },
      },
      action: {
        block: {
          customResponse: {
            responseCode: 429,
            customResponseBodyKey: RATE_LIMITED_BODY_KEY,
            // WAF blocks an address until its count over the window falls under the limit: one window is always enough.
            responseHeaders: [
              { name: 'Retry-After', value: String(rules.windowSeconds) },
              { name: 'Cache-Control', value: 'no-store' },
            ],
          },
        },
      },
      visibilityConfig: visibility('PerIpRateLimit'),
    };
    return new wafv2.CfnWebACL(this, 'WebAcl', {
      scope: 'CLOUDFRONT',
      // WAF allows no parentheses in a description.
      description: `Per-IP rate limit in front of the developer API v1 at ${API_PREFIX}`,
      defaultAction: { allow: {} },
      customResponseBodies: {
        [RATE_LIMITED_BODY_KEY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify(EDGE_RATE_LIMITED_ENVELOPE),
        },
      },
      rules: rules.ipReputationList ? [ipReputationRule, perIpRule] : [perIpRule],
      visibilityConfig: visibility('DeveloperApiEdge'),
    });
  }
}
