import { DescribeExecutionCommand, SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { startStepFunctions, type StepFunctionsEmulator } from '../../local/emulators/step-functions';
import { definitionWithWorkers, WORKFLOWS } from '#workflows';

/**
 * The split job ASL itself, run by the local interpreter with scripted workers: a read of the
 * source that failed on the way is analysed again, a source that does not decode ends the job
 * unreadable, and a transcription that cannot be started or followed costs the clips their
 * captions, not the job.
 */
const workflow = WORKFLOWS.find((candidate) => candidate.name === 'split-job')!;
const ARN = 'arn:aws:states:us-east-1:000000000000:stateMachine:split-job-test';

function definition() {
  const toThemselves = Object.fromEntries(
    Object.keys(workflow.workers).map((substitution) => [substitution, substitution]),
  );
  return JSON.parse(definitionWithWorkers(workflow, toThemselves)) as object;
}

type Step = keyof typeof workflow.workers;
type Respond = (payload: Record<string, unknown>) => unknown;
type Script = Partial<Record<Step, Respond[]>>;

let emulator: StepFunctionsEmulator;
let script: Script = {};
let calls: { step: Step; payload: Record<string, unknown> }[] = [];

beforeAll(async () => {
  emulator = await startStepFunctions({
    stateMachines: { [ARN]: { definition: definition() } },
    waitTimeScale: 0.001,
    lambdaInvoker: async (name, payload) => {
      const step = name;
      const previous = calls.filter((call) => call.step === step).length;
      calls.push({ step, payload: payload as Record<string, unknown> });
      const responses = script[step] ?? [];
      const respond = responses[Math.min(previous, responses.length - 1)];
      if (!respond) throw new Error(`no scripted response for ${step}`);
      return respond(payload as Record<string, unknown>);
    },
  });
});
afterAll(() => emulator.stop());

async function run(scripted: Script) {
  script = scripted;
  calls = [];
  const sfn = new SFNClient({
    endpoint: emulator.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'l', secretAccessKey: 'l' },
  });
  const { executionArn } = await sfn.send(
    new StartExecutionCommand({
      stateMachineArn: ARN,
      input: JSON.stringify({ organization_id: 1, job_id: 'split_job_1' }),
    }),
  );
  await emulator.idle();
  const execution = await sfn.send(new DescribeExecutionCommand({ executionArn }));
  sfn.destroy();
  return execution.status;
}

const callsOf = (step: Step) => calls.filter((call) => call.step === step).map((call) => call.payload);

const failing = (name: string) => () => {
  const error = new Error(`${name} on the way`);
  error.name = name;
  throw error;
};

const READY = {
  organization_id: 1,
  job_id: 'split_job_1',
  outcome: 'ready',
  source: { object_key: 'uploads/source.mp4', duration_seconds: 600, width: 1280, height: 720, has_audio: true },
  segments: [
    { index: 0, start_seconds: 0, end_seconds: 300 },
    { index: 1, start_seconds: 300, end_seconds: 600 },
  ],
  transcription: { state: 'pending' },
};
const IN_PROGRESS = { state: 'in_progress', transcription_id: 't-1', poll_seconds: 1, deadline_at: 0 };

const ready = () => READY;
const analysed = (payload: Record<string, unknown>) => ({ index: (payload.segment as { index: number }).index });
const transcribing = (payload: Record<string, unknown>) => ({ ...payload, transcription: IN_PROGRESS });
const transcribed = (payload: Record<string, unknown>) => ({ ...payload, transcription: { state: 'completed' } });
const chosen = (payload: Record<string, unknown>) => ({
  organization_id: payload.organization_id,
  job_id: payload.job_id,
  outcome: 'chosen',
  source: payload.source,
  clips: [{ clip_id: 'clip_1' }],
  clip_count: 1,
  has_transcript: (payload.transcription as { state: string }).state === 'completed',
  decoded_seconds: 600,
});
const rendered = (payload: Record<string, unknown>) => ({ clip_id: payload.clip_id, status: 'completed' });
const finished = (payload: Record<string, unknown>) => ({ ...payload, outcome: 'completed' });

describe('split job state machine', () => {
  it('analyses again a segment whose read of the source was cut short, and completes', async () => {
    const status = await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [transcribing],
      AnalyseSegmentFunction: [analysed, failing('TransientFailure'), analysed],
      PollTranscriptionFunction: [transcribed],
      ChooseClipsFunction: [chosen],
      RenderClipFunction: [rendered],
      FinishSplitFunction: [finished],
    });

    expect(status).toBe('SUCCEEDED');
    expect(callsOf('AnalyseSegmentFunction')).toHaveLength(3);
    expect(callsOf('FinishSplitFunction')).toEqual([
      expect.objectContaining({ outcome: 'chosen', has_transcript: true }),
    ]);
  });

  it('ends the job unreadable, with no retry, when the source does not decode', async () => {
    const status = await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [transcribing],
      AnalyseSegmentFunction: [failing('MediaToolError')],
      FinishSplitFunction: [finished],
    });

    expect(status).toBe('SUCCEEDED');
    expect(callsOf('AnalyseSegmentFunction').length).toBeLessThanOrEqual(2);
    expect(callsOf('FinishSplitFunction')).toEqual([
      { organization_id: 1, job_id: 'split_job_1', outcome: 'unreadable' },
    ]);
  });

  it('ends the job crashed, not unreadable, when ffmpeg runs out of time', async () => {
    await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [transcribing],
      AnalyseSegmentFunction: [failing('MediaToolTimeout')],
      FinishSplitFunction: [finished],
    });

    expect(callsOf('FinishSplitFunction')).toEqual([{ organization_id: 1, job_id: 'split_job_1', outcome: 'crashed' }]);
  });

  it('goes on without a transcript when the provider stays at its quota past every retry', async () => {
    const status = await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [failing('ProviderBusy')],
      AnalyseSegmentFunction: [analysed],
      ChooseClipsFunction: [chosen],
      RenderClipFunction: [rendered],
      FinishSplitFunction: [finished],
    });

    expect(status).toBe('SUCCEEDED');
    expect(callsOf('StartTranscriptionFunction')).toHaveLength(9);
    expect(callsOf('PollTranscriptionFunction')).toEqual([]);
    expect(callsOf('ChooseClipsFunction')).toEqual([expect.objectContaining({ transcription: { state: 'none' } })]);
    expect(callsOf('FinishSplitFunction')).toEqual([
      expect.objectContaining({ outcome: 'chosen', has_transcript: false }),
    ]);
  });

  it('goes on without a transcript when the provider refuses the request', async () => {
    await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [failing('BadRequestException')],
      AnalyseSegmentFunction: [analysed],
      ChooseClipsFunction: [chosen],
      RenderClipFunction: [rendered],
      FinishSplitFunction: [finished],
    });

    expect(callsOf('StartTranscriptionFunction')).toHaveLength(1);
    expect(callsOf('FinishSplitFunction')).toEqual([
      expect.objectContaining({ outcome: 'chosen', has_transcript: false }),
    ]);
  });

  it('goes on without a transcript when following it throws', async () => {
    await run({
      PrepareSplitFunction: [ready],
      StartTranscriptionFunction: [transcribing],
      AnalyseSegmentFunction: [analysed],
      PollTranscriptionFunction: [failing('TypeError')],
      ChooseClipsFunction: [chosen],
      RenderClipFunction: [rendered],
      FinishSplitFunction: [finished],
    });

    expect(callsOf('ChooseClipsFunction')).toEqual([expect.objectContaining({ transcription: { state: 'none' } })]);
    expect(callsOf('FinishSplitFunction')).toEqual([
      expect.objectContaining({ outcome: 'chosen', has_transcript: false }),
    ]);
  });
});
