import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Aspects, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Annotations, Match, Template } from 'aws-cdk-lib/assertions';
import { FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT, type SynthesisMessage } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { Construct } from 'constructs';
import { DataTable } from '../../lib/constructs/data-table';
import type { ApiStateMachines } from '../../lib/constructs/grants';
import { VideoHttpApi, type ApiFloodControl } from '../../lib/constructs/http-api';
import { MediaBucket } from '../../lib/constructs/media-bucket';
import {
  appWithoutBundling as appWithoutBundlingAnywhere,
  type AppWithoutBundlingOptions,
} from '../../lib/app-without-bundling';
import {
  CONTROL_TOWER,
  ControlTowerControls,
  controlFindingsIn,
  validationReportIn,
  type ControlFindings,
} from '../../lib/control-tower';
import { VideoApiStack } from '../../lib/video-api-stack';
import { ROUTES, type Route } from '#routes';

/**
 * The cloud assemblies of this test file's apps, removed after its tests: CDK would otherwise make
 * a new temporary directory for each synthesis and leave it behind, hundreds a run.
 */
const assemblies = fs.mkdtempSync(path.join(os.tmpdir(), 'infra-test-assemblies-'));
afterAll(() => fs.rmSync(assemblies, { recursive: true, force: true }));

/** A new directory for one app's cloud assembly, removed with the file's others. */
export function assemblyOutdir(): string {
  return fs.mkdtempSync(path.join(assemblies, 'app-'));
}

/** lib/app-without-bundling.ts's app, its assembly among this file's unless the options place it. */
export function appWithoutBundling(context: Record<string, unknown> = {}, options: AppWithoutBundlingOptions = {}) {
  return appWithoutBundlingAnywhere(context, { outdir: assemblyOutdir(), ...options });
}

/** The logical id, in `stack`'s template, of the CloudFormation resource behind a construct. */
export function logicalIdIn(stack: Stack): (construct: { node: { defaultChild?: unknown } }) => string {
  return (construct) => stack.getLogicalId(construct.node.defaultChild as never);
}

/**
 * VideoApiStack from cdk.json's context and these values, with its template and the logical ids
 * in it. Synthesis is the slow part: a test file builds each configuration it checks once.
 */
export function synthesizedStack(context: Record<string, unknown> = {}, id = 'VideoApiStack') {
  const stack = new VideoApiStack(appWithoutBundling(context), id);
  return { stack, template: Template.fromStack(stack), logicalIdOf: logicalIdIn(stack) };
}

/**
 * What AWS Control Tower's controls found, by control id: the construct paths of the resources
 * failing each control, and, for each control acknowledged, how many resources each acknowledging
 * construct covers.
 */
export interface ControlCounts {
  failing: Record<string, readonly string[]>;
  acknowledged: Record<string, Record<string, number>>;
}

function controlCountsOf(findings: ControlFindings): ControlCounts {
  const acknowledged: ControlCounts['acknowledged'] = {};
  for (const { control, at, resources } of findings.acknowledged) {
    const byConstruct = (acknowledged[control] ??= {});
    byConstruct[at] = (byConstruct[at] ?? 0) + resources.length;
  }
  return { failing: { ...findings.failing }, acknowledged };
}

/**
 * What the validation plugins other than the Control Tower controls found (CDK's built-in
 * CloudFormation validation, when it ran), each as `path: rule description`.
 */
function otherValidationFindings(assemblyDirectory: string): string[] {
  return validationReportIn(assemblyDirectory)
    .pluginReports.filter(({ pluginName }) => pluginName !== CONTROL_TOWER)
    .flatMap(({ violations }) =>
      violations.flatMap(({ ruleName, description, violatingConstructs }) =>
        violatingConstructs.map(({ constructPath }) => `${constructPath}: ${ruleName} ${description}`),
      ),
    );
}

/**
 * The exceptions every configuration acknowledges (docs/operations.md, Controls): routes without
 * an authorization type, and the buckets' controls that would break the product.
 */
export const EXCEPTIONS_EVERYWHERE: ControlCounts['acknowledged'] = {
  'CT.APIGATEWAY.PR.5': { 'VideoApiStack/HttpApi': ROUTES.length + 1 },
  'CT.S3.PR.2': { 'VideoApiStack/Media/AccessLogs': 1 },
  'CT.S3.PR.9': { 'VideoApiStack/Media/AccessLogs': 1, 'VideoApiStack/Media/Bucket': 1 },
  'CT.S3.PR.10': { 'VideoApiStack/Media/AccessLogs': 1 },
};

/** The edge firewall's exceptions: its distribution serves CloudFront's own domain. */
export const EDGE_FIREWALL_EXCEPTIONS: ControlCounts['acknowledged'] = Object.fromEntries(
  [1, 4, 5, 6, 7, 9].map((control) => [`CT.CLOUDFRONT.PR.${control}`, { 'VideoApiStack/Edge/Distribution': 1 }]),
);

/** CDK's function that empties the buckets of a throwaway stage. */
export const AUTO_DELETE_PROVIDER = 'Custom::S3AutoDeleteObjectsCustomResourceProvider';

/**
 * synthesizedStack's stack, synthesized with every check bin/app.ts and `cdk synth` run: cdk-nag's
 * AwsSolutions, AWS Control Tower's controls and CDK's built-in CloudFormation validation. What
 * they found comes back with it: the checks take most of a synthesis's 20 CPU-seconds (the
 * CloudFormation validation about 7, cfn-guard about 6), so each configuration checked is
 * synthesized once in the whole suite. A failing control
 * or validation finding does not fail the synthesis here, so that a test can name it.
 */
export function synthesizedWithControls(context: Record<string, unknown> = {}) {
  const app = appWithoutBundling(
    { ...context, [FAIL_SYNTH_ON_VALIDATION_ERRORS_CONTEXT]: false },
    { cloudFormationValidation: true },
  );
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  Validations.of(app).addPlugins(new ControlTowerControls());
  const stack = new VideoApiStack(app, 'VideoApiStack');
  const template = Template.fromStack(stack);
  const assemblyDirectory = app.synth().directory;
  const findings = controlFindingsIn(assemblyDirectory);
  return {
    stack,
    template,
    logicalIdOf: logicalIdIn(stack),
    findings,
    controls: controlCountsOf(findings),
    nag: nagFindings(stack),
    cloudFormationValidation: otherValidationFindings(assemblyDirectory),
  };
}

/**
 * The unsuppressed AwsSolutions findings of a stack whose app runs cdk-nag's AwsSolutionsChecks,
 * each as `path: AwsSolutions-XX[finding]: first line`, so a failure names what to fix. Synthesizes the app
 * anew; a Template read afterwards reuses that synthesis.
 */
export function nagFindings(stack: Stack): { errors: string[]; warnings: string[] } {
  const annotations = Annotations.fromStack(stack);
  const described = (findings: SynthesisMessage[]) =>
    findings.map((finding) => `${finding.id}: ${String(finding.entry.data).split('\n')[0]}`);
  return {
    errors: described(annotations.findError('*', Match.stringLikeRegexp('AwsSolutions-.*'))),
    warnings: described(annotations.findWarning('*', Match.stringLikeRegexp('AwsSolutions-.*'))),
  };
}

/** Every IAM policy statement in the template, with the logical id of the policy holding it. */
export interface Statement {
  policy: string;
  roles: unknown[];
  Action: string | string[];
  Resource: unknown;
  Effect: string;
  Condition?: unknown;
}

export function policyStatements(template: Template): Statement[] {
  const policies = template.findResources('AWS::IAM::Policy');
  return Object.entries(policies).flatMap(([policy, resource]) =>
    (resource.Properties.PolicyDocument.Statement as Omit<Statement, 'policy' | 'roles'>[]).map((statement) => ({
      ...statement,
      policy,
      roles: resource.Properties.Roles as unknown[],
    })),
  );
}

export function actionsOf(statement: Pick<Statement, 'Action'>): string[] {
  return Array.isArray(statement.Action) ? statement.Action : [statement.Action];
}

export function resourcesOf(statement: Pick<Statement, 'Resource'>): unknown[] {
  return Array.isArray(statement.Resource) ? statement.Resource : [statement.Resource];
}

/**
 * A CloudFormation string value as text: `Ref`s as `<Id>`, `Fn::GetAtt`s as `<Id.Attribute>`, a part
 * of a split value (an ARN's name) as `<Id>.split(":")[6]`.
 */
export function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  const object = value as Record<string, unknown>;
  if ('Ref' in object) return `<${String(object.Ref)}>`;
  if ('Fn::GetAtt' in object) return `<${(object['Fn::GetAtt'] as string[]).join('.')}>`;
  if ('Fn::Join' in object) {
    const [separator, parts] = object['Fn::Join'] as [string, unknown[]];
    return parts.map(asText).join(separator);
  }
  if ('Fn::Select' in object) {
    const [index, list] = object['Fn::Select'] as [number, Record<string, unknown>];
    if ('Fn::Split' in list) {
      const [separator, source] = list['Fn::Split'] as [string, unknown];
      return `${asText(source)}.split(${JSON.stringify(separator)})[${index}]`;
    }
  }
  throw new Error(`Cannot render ${JSON.stringify(value)}`);
}

/** The statements of the policies attached to one function's execution role. */
export function statementsOfFunction(stack: Stack, template: Template, fn: lambda.IFunction): Statement[] {
  const role = fn.role as iam.Role;
  const roleLogicalId = stack.getLogicalId(role.node.defaultChild as iam.CfnRole);
  return policyStatements(template).filter((statement) =>
    statement.roles.some((ref) => JSON.stringify(ref) === JSON.stringify({ Ref: roleLogicalId })),
  );
}

export interface ApiOnlyStackProps extends StackProps {
  routes: readonly Route[];
  /** Made inside the stack, so imported machines belong to it; none unless given. */
  stateMachines?: (scope: Stack) => ApiStateMachines;
  /** The construct's defaults for that route table unless given. */
  floodControl?: ApiFloodControl;
}

/** The API construct over a route table of the test's choosing, with its table and bucket. */
export class ApiOnlyStack extends Stack {
  public readonly table: DataTable;
  public readonly media: MediaBucket;
  public readonly httpApi: VideoHttpApi;

  constructor(scope: Construct, id: string, props: ApiOnlyStackProps) {
    super(scope, id, props);
    this.table = new DataTable(this, 'Data');
    this.media = new MediaBucket(this, 'Media');
    this.httpApi = new VideoHttpApi(this, 'HttpApi', {
      table: this.table,
      media: this.media,
      routes: props.routes,
      stateMachines: props.stateMachines?.(this) ?? {},
      floodControl: props.floodControl,
    });
  }
}
