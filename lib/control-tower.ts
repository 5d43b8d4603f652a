import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  Validations,
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPluginBeta1,
  type PolicyViolationBeta1,
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

interface CloudFormationTemplate {
  Resources?: Record<string, { Type: string }>;
}

/** Rule files that name the same resource types of the templates, and those types. */
interface RuleGroup {
  readonly types: ReadonlySet<string>;
  readonly rules: readonly string[];
}

/**
 * The rule files that name a resource type of the templates, grouped by the types of the
 * templates they name. Every rule selects the resources it checks by type, so the others could
 * only answer "not applicable".
 */
function ruleGroupsFor(templates: readonly CloudFormationTemplate[]): RuleGroup[] {
  const templateTypes = new Set(
    templates.flatMap((template) => Object.values(template.Resources ?? {}).map((resource) => resource.Type)),
  );
  const groups = new Map<string, { types: Set<string>; rules: string[] }>();
  const ruleFiles = fs
    .readdirSync(CONTROL_TOWER_RULES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.guard'))
    .sort();
  for (const file of ruleFiles) {
    const rule = path.join(CONTROL_TOWER_RULES, file);
    const named = [...new Set(fs.readFileSync(rule, 'utf8').match(RESOURCE_TYPE) ?? [])]
      .filter((type) => templateTypes.has(type))
      .sort();
    if (named.length === 0) continue;
    const key = named.join(' ');
    const group = groups.get(key) ?? { types: new Set(named), rules: [] };
    group.rules.push(rule);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * The template with the resources of other types reduced to their type: a rule may check that a
 * reference names a resource of the template (CT.LAMBDA.PR.2 does), never what another type's
 * resource holds.
 */
function withPropertiesOf(template: CloudFormationTemplate, types: ReadonlySet<string>): CloudFormationTemplate {
  return {
    ...template,
    Resources: Object.fromEntries(
      Object.entries(template.Resources ?? {}).map(([logicalId, resource]) => [
        logicalId,
        types.has(resource.Type) ? resource : { Type: resource.Type },
      ]),
    ),
  };
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
   * Runs each group of rules (ruleGroupsFor) over copies of the templates in which only the
   * resources of the types the group names keep their properties. cfn-guard's cost grows with the rules times the
   * template's size: over this stack's whole template, the 49 rules that apply took 14 CPU-seconds
   * (and three times that with two other runs beside it); over these copies, about 5.
   */
  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const templates = context.templatePaths.map((templatePath) => ({
      templatePath,
      template: JSON.parse(fs.readFileSync(templatePath, 'utf8')) as CloudFormationTemplate,
    }));
    const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'control-tower-'));
    try {
      let success = true;
      const violations: PolicyViolationBeta1[] = [];
      ruleGroupsFor(templates.map(({ template }) => template)).forEach(({ types, rules }, group) => {
        const originalPathOf = new Map(
          templates.map(({ templatePath, template }, index) => {
            const copyPath = path.join(directory, `${group}-${index}.json`);
            fs.writeFileSync(copyPath, JSON.stringify(withPropertiesOf(template, types)));
            return [copyPath, templatePath];
          }),
        );
        const guard = new CfnGuardValidator({
          controlTowerRulesEnabled: false,
          rules: [...rules],
          maxBuffer: GUARD_OUTPUT_LIMIT_BYTES,
        });
        const report = guard.validate({ ...context, templatePaths: [...originalPathOf.keys()] });
        success &&= report.success;
        violations.push(
          ...report.violations.map((violation) => ({
            ...violation,
            // The synthesis finds the constructs of a finding by the template it names.
            violatingResources: violation.violatingResources.map((resource) => ({
              ...resource,
              templatePath: originalPathOf.get(resource.templatePath) ?? resource.templatePath,
            })),
            ruleName: CONTROL_ID.exec(violation.description)?.[1] ?? violation.ruleName,
            // The synthesis judges a report whose findings were partly acknowledged by the severity of
            // the others: without one, they would not fail it.
            severity: 'error',
          })),
        );
      });
      return { success, violations };
    } finally {
      fs.rmSync(directory, { recursive: true, force: true });
    }
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

/** The parts of a cloud assembly's validation report that the findings are read from. */
export interface ValidationReport {
  pluginReports: {
    pluginName: string;
    violations: { ruleName: string; description: string; violatingConstructs: { constructPath: string }[] }[];
    suppressedViolations?: {
      ruleName: string;
      acknowledgedAt: string;
      reason: string;
      violatingConstructs: { constructPath: string }[];
    }[];
  }[];
}

/** The validation report of the cloud assembly in `assemblyDirectory`. */
export function validationReportIn(assemblyDirectory: string): ValidationReport {
  return JSON.parse(fs.readFileSync(path.join(assemblyDirectory, VALIDATION_REPORT_FILE), 'utf8')) as ValidationReport;
}

/** The controls' findings in the validation report of the cloud assembly in `assemblyDirectory`. */
export function controlFindingsIn(assemblyDirectory: string): ControlFindings {
  const report = validationReportIn(assemblyDirectory);
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
