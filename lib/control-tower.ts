import { CfnGuardValidator } from '@cdklabs/cdk-validator-cfnguard';
import {
  Validations,
  type IPolicyValidationContextBeta1,
  type IPolicyValidationPluginBeta1,
  type PolicyValidationPluginReportBeta1,
} from 'aws-cdk-lib';
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

/**
 * AWS Control Tower's proactive controls (the Guard rules @cdklabs/cdk-validator-cfnguard ships,
 * which Control Tower runs as CloudFormation hooks) as a validation plugin of the synthesis. It
 * reports each finding under its control id rather than its Guard rule name, so that the report
 * and the acknowledgements speak Control Tower's language. Every finding is a warning: the
 * synthesis prints the report (cdk.out/validation-report.json has it too) and goes on. A resource
 * that does not meet a control on purpose acknowledges it with its reason (`acknowledgeControl`),
 * and the report lists it apart, with that reason.
 */
export class ControlTowerControls implements IPolicyValidationPluginBeta1 {
  public readonly name = CONTROL_TOWER;
  public readonly version: string | undefined;
  private readonly guard = new CfnGuardValidator({ maxBuffer: GUARD_OUTPUT_LIMIT_BYTES });

  constructor() {
    this.version = this.guard.version;
  }

  validate(context: IPolicyValidationContextBeta1): PolicyValidationPluginReportBeta1 {
    const report = this.guard.validate(context);
    return {
      success: true,
      violations: report.violations.map((violation) => ({
        ...violation,
        ruleName: CONTROL_ID.exec(violation.description)?.[1] ?? violation.ruleName,
        severity: 'warning',
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
