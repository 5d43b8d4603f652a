import { scriptedWorkflow, type Invocation, type Script } from './support/scripted-workflow';

/**
 * The split job ASL itself, run by the local interpreter with scripted workers: a read of the
 * source that failed on the way is analysed again, a source that does not decode ends the job
 * unreadable, and a transcription that cannot be started or followed costs the clips their
 * captions, not the job.
 */
const machine = scriptedWorkflow('split-job');
beforeAll(() => machine.start());
afterAll(() => machine.stop());

let calls: Invocation[] = [];

async function run(scripted: Script) {
  const result = await machine.run(scripted, { organization_id: 1, job_id: 'split_job_1' });
  calls = result.calls;
  return result.status;
}

const callsOf = (step: string) => calls.filter((call) => call.step === step).map((call) => call.payload);

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
