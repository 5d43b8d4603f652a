import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The state machines and the worker Lambdas their ASL files name: the one list both the CDK app
 * and the local Step Functions emulator are built from. In an ASL file, `${Substitution}` stands
 * for the worker's function (its ARN in AWS, its module locally).
 */
export type WorkerAccess =
  | 'assets:read' // GetObject under assets/ (source images)
  | 'assets:write' // PutObject under assets/ (the finished video, copied from renders/)
  | 'renders:write' // PutObject under renders/ (where the provider writes its output)
  | 'renders:read' // GetObject under renders/ (copy source)
  | 'video-provider'; // the configured video model (Bedrock StartAsyncInvoke/GetAsyncInvoke)

export interface Worker {
  /** Module under lambdas/workers that exports `handler`. */
  readonly handler: string;
  readonly access: readonly WorkerAccess[];
}

export interface Workflow {
  readonly name: string;
  /** Path of the ASL file from the repository root. */
  readonly definitionFile: string;
  /** Environment variable through which API handlers find the state machine's ARN. */
  readonly arnEnvironmentVariable: string;
  readonly workers: Readonly<Record<string, Worker>>;
}

export const WORKFLOWS: readonly Workflow[] = [
  {
    name: 'video-job',
    definitionFile: 'state-machines/video-job.asl.json',
    arnEnvironmentVariable: 'VIDEO_JOB_STATE_MACHINE_ARN',
    workers: {
      StartRenderFunction: {
        handler: 'video-jobs/start-render',
        access: ['assets:read', 'renders:write', 'video-provider'],
      },
      PollRenderFunction: {
        handler: 'video-jobs/poll-render',
        access: ['renders:read', 'renders:write', 'video-provider'],
      },
      FinishJobFunction: { handler: 'video-jobs/finish-job', access: ['renders:read', 'assets:write'] },
    },
  },
];

/** `${Name}` in an ASL file: where the worker named Name goes. */
const SUBSTITUTION = /\$\{([A-Za-z0-9_]+)\}/g;

/**
 * The workflow's ASL file with every `${Name}` replaced by its target: the worker's function ARN
 * in the CDK app, its module in the local stack. A name without a worker, or a worker no state
 * uses, is an error here, so it fails the synth or the local start rather than an execution.
 */
export function definitionWithWorkers(workflow: Workflow, targets: Readonly<Record<string, string>>): string {
  const text = readFileSync(join(__dirname, '..', workflow.definitionFile), 'utf8');
  try {
    JSON.parse(text);
  } catch (error) {
    throw new Error(`${workflow.definitionFile} is not valid JSON: ${(error as Error).message}`);
  }
  const used = new Set([...text.matchAll(SUBSTITUTION)].map((match) => match[1] as string));
  const unknown = [...used].filter((name) => !(name in workflow.workers));
  const unused = Object.keys(workflow.workers).filter((name) => !used.has(name));
  if (unknown.length > 0 || unused.length > 0) {
    throw new Error(
      `${workflow.definitionFile} and the ${workflow.name} workers of lambdas/workflows.ts disagree: ` +
        `no worker for ${unknown.map((name) => `\${${name}}`).join(', ') || 'nothing'}; ` +
        `not used by any state: ${unused.join(', ') || 'nothing'}.`,
    );
  }
  return text.replace(SUBSTITUTION, (_, name: string) => targets[name] as string);
}
