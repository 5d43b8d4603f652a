import { scriptedWorkflow, type Invocation, type Script } from './support/scripted-workflow';

/**
 * The video job ASL itself, run by the local interpreter with scripted workers: a completed render
 * goes through FinishVideo, and every path must end through FinishJob or FinishCrashed, so no job
 * is left active whatever a worker does.
 */
const machine = scriptedWorkflow('video-job');
beforeAll(() => machine.start());
afterAll(() => machine.stop());

let calls: Invocation[] = [];

async function run(scripted: Script) {
  const result = await machine.run(scripted, { organization_id: 1, job_id: 'video_job_1' });
  calls = result.calls;
  return {
    status: result.status,
    finishes: calls.filter((call) => call.step === 'FinishJobFunction').map((call) => call.payload),
  };
}

const crash = () => {
  const error = new Error('boom');
  error.name = 'TypeError';
  throw error;
};
const state =
  (outcome: string, extra: Record<string, unknown> = {}) =>
  (payload: Record<string, unknown>) => ({
    organization_id: payload.organization_id,
    job_id: payload.job_id,
    poll_interval_seconds: 1,
    outcome,
    ...extra,
  });

describe('video job state machine', () => {
  it('polls while the render is in progress, finishes the video, then the job with the finished video', async () => {
    const { status, finishes } = await run({
      StartRenderFunction: [state('in_progress')],
      PollRenderFunction: [state('in_progress'), state('in_progress'), state('completed', { output: { key: 'k' } })],
      FinishVideoFunction: [state('completed', { output: { key: 'finished' } })],
      FinishJobFunction: [state('completed')],
    });
    expect(status).toBe('SUCCEEDED');
    expect(calls.filter((call) => call.step === 'FinishVideoFunction').map((call) => call.payload)).toEqual([
      expect.objectContaining({ outcome: 'completed', output: { key: 'k' } }),
    ]);
    expect(finishes).toEqual([expect.objectContaining({ outcome: 'completed', output: { key: 'finished' } })]);
    expect(calls.filter((call) => call.step === 'PollRenderFunction')).toHaveLength(3);
  });

  it('goes back to StartRender for each further render of a chain, then finishes all of them', async () => {
    const { status } = await run({
      StartRenderFunction: [state('in_progress', { render_index: 0 }), state('in_progress', { render_index: 1 })],
      PollRenderFunction: [
        state('in_progress'),
        state('rendered', { render_index: 1, renders: [{ key: 'r1' }] }),
        state('completed', { renders: [{ key: 'r1' }, { key: 'r2' }] }),
      ],
      FinishVideoFunction: [state('completed', { output: { key: 'finished' } })],
      FinishJobFunction: [state('completed')],
    });
    expect(status).toBe('SUCCEEDED');
    const starts = calls.filter((call) => call.step === 'StartRenderFunction').map((call) => call.payload);
    expect(starts).toEqual([
      { organization_id: 1, job_id: 'video_job_1' },
      expect.objectContaining({ outcome: 'rendered', render_index: 1, renders: [{ key: 'r1' }] }),
    ]);
    expect(calls.filter((call) => call.step === 'FinishVideoFunction').map((call) => call.payload)).toEqual([
      expect.objectContaining({ outcome: 'completed', renders: [{ key: 'r1' }, { key: 'r2' }] }),
    ]);
  });

  it('hands a render the finishing step could not finish to FinishJob as failed', async () => {
    const { finishes } = await run({
      StartRenderFunction: [state('in_progress')],
      PollRenderFunction: [state('completed', { output: { key: 'k' } })],
      FinishVideoFunction: [state('failed', { error: { code: 'RENDER_FAILED', message: 'm' } })],
      FinishJobFunction: [state('failed')],
    });
    expect(finishes).toEqual([
      expect.objectContaining({ outcome: 'failed', error: { code: 'RENDER_FAILED', message: 'm' } }),
    ]);
  });

  it('retries FinishVideo on a transient failure, and ends the job through FinishCrashed when it crashes', async () => {
    const interrupted = () => {
      const error = new Error('Storing the finished video was interrupted');
      error.name = 'TransientFailure';
      throw error;
    };
    const retried = await run({
      StartRenderFunction: [state('in_progress')],
      PollRenderFunction: [state('completed', { output: { key: 'k' } })],
      FinishVideoFunction: [interrupted, state('completed', { output: { key: 'finished' } })],
      FinishJobFunction: [state('completed')],
    });
    expect(retried.finishes).toEqual([expect.objectContaining({ outcome: 'completed', output: { key: 'finished' } })]);

    const crashed = await run({
      StartRenderFunction: [state('in_progress')],
      PollRenderFunction: [state('completed', { output: { key: 'k' } })],
      FinishVideoFunction: [crash],
      FinishJobFunction: [state('failed')],
    });
    expect(crashed.finishes).toEqual([{ organization_id: 1, job_id: 'video_job_1', outcome: 'crashed' }]);
  });

  it.each(['failed', 'expired'])('hands the %s outcome straight to FinishJob', async (outcome) => {
    const { finishes } = await run({
      StartRenderFunction: [state('in_progress')],
      PollRenderFunction: [state(outcome, { error: { code: 'X', message: 'm' } })],
      FinishJobFunction: [state(outcome)],
    });
    expect(finishes).toEqual([expect.objectContaining({ outcome, error: { code: 'X', message: 'm' } })]);
  });

  it('stops without finishing a job another execution already finished', async () => {
    const { status, finishes } = await run({ StartRenderFunction: [state('finished')] });
    expect(status).toBe('SUCCEEDED');
    expect(finishes).toEqual([]);
  });

  it.each<[string, Script]>([
    ['StartRender throws', { StartRenderFunction: [crash] }],
    ['PollRender throws', { StartRenderFunction: [state('in_progress')], PollRenderFunction: [crash] }],
  ])('ends the job through FinishCrashed when %s', async (_, scripted) => {
    const { status, finishes } = await run({ ...scripted, FinishJobFunction: [state('failed')] });
    expect(status).toBe('SUCCEEDED');
    expect(finishes).toEqual([{ organization_id: 1, job_id: 'video_job_1', outcome: 'crashed' }]);
  });

  it.each(['ProviderBusy', 'ThrottlingException', 'ProvisionedThroughputExceededException'])(
    'retries StartRender and PollRender with backoff when they throw %s, and the job completes',
    async (name) => {
      const busy = () => {
        const error = new Error('not now');
        error.name = name;
        throw error;
      };
      const { status, finishes } = await run({
        StartRenderFunction: [busy, state('in_progress')],
        PollRenderFunction: [busy, busy, state('completed', { output: { key: 'k' } })],
        FinishVideoFunction: [state('completed', { output: { key: 'finished' } })],
        FinishJobFunction: [state('completed')],
      });
      expect(status).toBe('SUCCEEDED');
      expect(finishes).toEqual([expect.objectContaining({ outcome: 'completed' })]);
      expect(calls.filter((call) => call.step === 'StartRenderFunction')).toHaveLength(2);
      expect(calls.filter((call) => call.step === 'PollRenderFunction')).toHaveLength(3);
    },
  );

  it('retries FinishJob, then falls back to FinishCrashed when it keeps failing', async () => {
    const { status, finishes } = await run({
      StartRenderFunction: [state('failed', { error: { code: 'X', message: 'm' } })],
      FinishJobFunction: [crash, crash, crash, crash, crash, crash, state('failed')],
    });
    expect(status).toBe('SUCCEEDED');
    expect(finishes).toHaveLength(7);
    expect(finishes.slice(0, 6).every((payload) => payload.outcome === 'failed')).toBe(true);
    expect(finishes[6]).toEqual({ organization_id: 1, job_id: 'video_job_1', outcome: 'crashed' });
  });
});
