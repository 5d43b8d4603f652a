import * as fs from 'node:fs';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  Validations,
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPluginBeta1,
  type PolicyValidationPluginReportBeta1,
} from 'aws-cdk-lib';
import { VALIDATION_REPORT_FILE } from 'aws-cdk-lib/cx-api';
import type { IConstruct } from 'constructs';

/**
 * The name of the validation plugin, and so the namespace of the rule ids the synthesis reports
 * and acknowledges: `control-tower::CT.S3.PR.9`.
 */
export const CONTROL_TOWER = 'control-tower';

/** A Control Tower proactive control, as AWS names it: `CT.S3.PR.9`. */
export type ControlId = `CT.${string}.PR.${number}`;

/** How the message of every Control Tower rule begins: `[CT.S3.PR.9]: Require …`. */
const CONTROL_ID = /^\[(CT\.[A-Z0-9]+\.PR\.\d+)\]/;

/**
 * cfn-guard writes its findings as JSON on stdout: about 1.7 MB for this stack's template
 * without any control passing, more than Node's default 1 MB buffer for a child process.
 */
const GUARD_OUTPUT_LIMIT_BYTES = 64 * 1024 * 1024;

/** Where @cdklabs/cdk-validator-cfnguard keeps the Control Tower rules: one Guard file per control. */
const CONTROL_TOWER_RULES = path.join(
  path.dirname(require.resolve('@cdklabs/cdk-validator-cfnguard/package.json')),
  'rules',
  'control-tower',
  'cfn-guard',
);

/** A CloudFormation resource type as the rules and templates write it: `AWS::S3::Bucket`. */
const RESOURCE_TYPE = /AWS::[A-Za-z0-9]+::[A-Za-z0-9]+/g;

/** The rule files that name a resource type of the templates. */
function rulesFor(templatePaths: readonly string[]): string[] {
  const types = new Set(
    templatePaths.flatMap((templatePath) =>
      Object.values(
        (JSON.parse(fs.readFileSync(templatePath, 'utf8')) as { Resources?: Record<string, { Type: string }> })
          .Resources ?? {},
      ).map((resource) => resource.Type),
    ),
  );
  return fs
    .readdirSync(CONTROL_TOWER_RULES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.guard'))
    .map((file) => path.join(CONTROL_TOWER_RULES, file))
    .filter((rule) => (fs.readFileSync(rule, 'utf8').match(RESOURCE_TYPE) ?? []).some((type) => types.has(type)))
    .sort();
}

/**
 * AWS Control Tower's proactive controls (the Guard rules @cdklabs/cdk-validator-cfnguard ships,
 * which Control Tower runs as CloudFormation hooks) as a validation plugin of the synthesis. It
 * reports each finding under its control id rather than its Guard rule name, so that the report
 * and the acknowledgements speak Control Tower's language. Every finding is an error: the
 * synthesis prints the report (cdk.out/validation-report.json has it too) and fails, unless the
 * resource, or a construct above it, acknowledges the control with its reason
 * (`acknowledgeControl`); the report then lists it apart, with that reason.
 */
export class ControlTowerControls implements IPolicyValidationPluginBeta1 {
  public readonly name = CONTROL_TOWER;
  public readonly version = new CfnGuardValidator({ controlTowerRulesEnabled: false }).version;

  /**
   * Runs only the rules that name a resource type of the templates: every rule selects the
   * resources it checks by type, so the others could only answer "not applicable", and cfn-guard
   * spends about as long on each rule as on the next (237 of them, where this stack's resource
   * types are named by about 50).
   */
  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const rules = rulesFor(context.templatePaths);
    if (rules.length === 0) return { success: true, violations: [] };
    const guard = new CfnGuardValidator({
      controlTowerRulesEnabled: false,
      rules,
      maxBuffer: GUARD_OUTPUT_LIMIT_BYTES,
    });
    const report = guard.validate(context);
    return {
      success: report.success,
      // The synthesis judges a report whose findings were partly acknowledged by the severity of
      // the others: without one, they would not fail it.
      violations: report.violations.map((violation) => ({
        ...violation,
        ruleName: CONTROL_ID.exec(violation.description)?.[1] ?? violation.ruleName,
        severity: 'error',
      })),
    };
  }
}

/**
 * States that `scope` and everything under it do not meet `control`, and why: the synthesis then
 * lists the finding with this reason instead of failing on it.
 */
export function acknowledgeControl(scope: IConstruct, control: ControlId, reason: string): void {
  Validations.of(scope).acknowledge({ id: `${CONTROL_TOWER}::${control}`, reason });
}

/** A control that resources under one construct do not meet, as that construct acknowledged it. */
export interface AcknowledgedControl {
  readonly control: string;
  /** The path of the construct that acknowledged it. */
  readonly at: string;
  /** The paths of the resources failing it there. */
  readonly resources: readonly string[];
  readonly reason: string;
}

/** What the controls found in a synthesis: the resources failing each control, and what was acknowledged. */
export interface ControlFindings {
  /** By control id, the construct paths of the resources failing it. */
  readonly failing: Readonly<Record<string, readonly string[]>>;
  readonly acknowledged: readonly AcknowledgedControl[];
}

/** The parts of the synthesis's validation report the findings are read from. */
interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: { ruleName: string; violatingConstructs: { constructPath: string }[] }[];
    suppressedViolations?: {
      ruleName: string;
      acknowledgedAt: string;
      reason: string;
      violatingConstructs: { constructPath: string }[];
    }[];
  }[];
}

/** The controls' findings in the validation report of the cloud assembly in `assemblyDirectory`. */
export function controlFindingsIn(assemblyDirectory: string): ControlFindings {
  const report = JSON.parse(
    fs.readFileSync(path.join(assemblyDirectory, VALIDATION_REPORT_FILE), 'utf8'),
  ) as ValidationReport;
  const controls = report.pluginReports.find((plugin) => plugin.pluginName === CONTROL_TOWER);
  if (!controls) throw new Error(`The validation report has no ${CONTROL_TOWER} report: ${JSON.stringify(report)}`);
  const paths = (constructs: { constructPath: string }[]) =>
    constructs.map(({ constructPath }) => constructPath).sort();
  return {
    failing: Object.fromEntries(
      controls.violations.map((finding) => [finding.ruleName, paths(finding.violatingConstructs)]),
    ),
    acknowledged: (controls.suppressedViolations ?? []).map((finding) => ({
      control: finding.ruleName,
      at: finding.acknowledgedAt,
      resources: paths(finding.violatingConstructs),
      reason: finding.reason,
    })),
  };
}

/**
 * The acknowledged controls as lines for the console: the synthesis's own report shows only
 * the failing ones.
 */
export function acknowledgedControlsText(findings: ControlFindings): string {
  const lines = findings.acknowledged.map(
    ({ control, at, resources, reason }) =>
      `  ${control} at ${at} (${resources.length} resource${resources.length === 1 ? '' : 's'}): ${reason}`,
  );
  return [`AWS Control Tower controls acknowledged (${VALIDATION_REPORT_FILE} in the cloud assembly):`, ...lines].join(
    '\n',
  );
}
