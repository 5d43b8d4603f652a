import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { makeSplitSource, probeMedia } from './support/media';
import { apiUrl, createOrganization } from './support/stack';

const run = promisify(execFile);

/** Runs one example script as its README says, against the test stack, with the organization's key. */
async function example(script: string, key: string, args: string[] = []) {
  return run(process.execPath, [join('examples/quick-start', script), ...args], {
    env: { ...process.env, API_URL: apiUrl(), API_KEY: key },
    timeout: 150_000,
  });
}

/** The clips an example saved in `directory`: real H.264 MP4s in the TikTok frame. */
function expectVerticalClips(directory: string) {
  const clips = readdirSync(directory);
  expect(clips.length).toBeGreaterThan(0);
  // Only whole clips: each download went through a `.part` file renamed once complete.
  expect(clips.filter((name) => !/^clip_.*\.mp4$/.test(name))).toEqual([]);
  for (const clip of clips) {
    const { streams } = probeMedia(readFileSync(join(directory, clip)));
    expect(streams.find((stream) => stream.codec_type === 'video')).toMatchObject({
      codec_name: 'h264',
      width: 720,
      height: 1280,
    });
  }
}

describe('the quick start examples, run as they are', () => {
  const directory = mkdtempSync(join(tmpdir(), 'quick-start-'));
  const source = join(directory, 'talk.mp4');
  beforeAll(() =>
    writeFileSync(
      source,
      makeSplitSource({
        durationSeconds: 40,
        width: 320,
        height: 180,
        scenes: [
          { colour: 'red', startSeconds: 0 },
          { colour: 'blue', startSeconds: 14 },
          { colour: 'green', startSeconds: 27 },
        ],
        silences: [],
      }),
    ),
  );
  afterAll(() => rmSync(directory, { recursive: true, force: true }));

  it('uploads a video, splits it, waits for the job and downloads its clips; then lists the job', async () => {
    const org = await createOrganization({ credits: 100 });
    // A folder not there yet, as the README's `clips/` is on a first run.
    const clips = join(directory, 'fetch', 'clips');
    const split = await example('split-video.mjs', org.key, [source, clips]);
    expectVerticalClips(clips);
    expect(split.stdout).toContain('completed');

    const listed = await example('list-jobs.mjs', org.key);
    expect(listed.stdout).toMatch(/split_job_\S+ split/);
    expect(listed.stdout).toContain('1 completed jobs in the last day');
  }, 180_000);

  it('does the same through the client package', async () => {
    const org = await createOrganization({ credits: 100 });
    const clips = join(directory, 'client', 'clips');
    const split = await example('split-video-client.mjs', org.key, [source, clips]);
    expectVerticalClips(clips);
    expect(split.stdout).toMatch(/^completed {2}100%$/m);
  }, 180_000);

  it.each(['split-video.mjs', 'split-video-client.mjs'])(
    '%s says what is missing instead of calling the API without a key',
    async (script) => {
      await expect(example(script, '')).rejects.toMatchObject({
        code: 1,
        stderr: expect.stringContaining(`Usage: API_KEY=svc_test_...`),
      });
    },
  );
});
