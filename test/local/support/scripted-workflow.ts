import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { startStepFunctions, type StepFunctionsEmulator } from '../../../local/emulators/step-functions';
import { definitionWithWorkers, WORKFLOWS } from '#workflows';

/**
 * A workflow's ASL file itself, run by the local interpreter with scripted workers in place of its
 * functions: each worker answers, in turn, what its script's responders return (the last one
 * again once they run out), or throws what they throw, so that Retry, Catch and Choice are tested
 * as written.
 */

export type Payload = Record<string, unknown>;
/** A worker's answer to its `call`-th invocation (from 0). */
export type Respond = (payload: Payload, call: number) => unknown;
export type Script = Partial<Record<string, Respond[]>>;
export interface Invocation {
  step: string;
  payload: Payload;
}

export function scriptedWorkflow(name: string) {
  const workflow = WORKFLOWS.find((candidate) => candidate.name === name);
  if (!workflow) throw new Error(`No workflow named ${name}`);
  const arn = `arn:aws:states:us-east-1:000000000000:stateMachine:${name}-test`;
  const toThemselves = Object.fromEntries(Object.keys(workflow.workers).map((worker) => [worker, worker]));
  let emulator: StepFunctionsEmulator | undefined;
  let script: Script = {};
  let calls: Invocation[] = [];

  return {
    async start(): Promise<void> {
      emulator = await startStepFunctions({
        stateMachines: { [arn]: { definition: JSON.parse(definitionWithWorkers(workflow, toThemselves)) as object } },
        waitTimeScale: 0.001,
        lambdaInvoker: async (step, payload) => {
          const previous = calls.filter((call) => call.step === step).length;
          calls.push({ step, payload: payload as Payload });
          const responses = script[step] ?? [];
          const respond = responses[Math.min(previous, responses.length - 1)];
          if (!respond) throw new Error(`no scripted response for ${step}`);
          return respond(payload as Payload, previous);
        },
      });
    },
    stop: () => emulator?.stop(),
    /** Runs one execution with `input` to its end: its status, and every worker invocation in order. */
    async run(scripted: Script, input: Payload): Promise<{ status: string | undefined; calls: Invocation[] }> {
      if (!emulator) throw new Error('The scripted workflow was not started');
      script = scripted;
      calls = [];
      const sfn = new SFNClient({
        endpoint: emulator.endpoint,
        region: 'us-east-1',
        credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
      });
      const { executionArn } = await sfn.send(
        new StartExecutionCommand({ stateMachineArn: arn, input: JSON.stringify(input) }),
      );
      await emulator.idle();
      const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
      sfn.destroy();
      return { status: execution.status, calls };
    },
  };
}
