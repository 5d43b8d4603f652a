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
      StartRenderFunction: { handler: 'video-jobs/start-render', access: ['assets:read', 'renders:write', 'video-provider'] },
      PollRenderFunction: { handler: 'video-jobs/poll-render', access: ['renders:read', 'renders:write', 'video-provider'] },
      FinishJobFunction: { handler: 'video-jobs/finish-job', access: ['renders:read', 'assets:write'] },
    },
  },
];
