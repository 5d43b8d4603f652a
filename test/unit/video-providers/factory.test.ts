import { BedrockRuntimeClient } from '@aws-sdk/client-bedrock-runtime';
import { S3Client } from '@aws-sdk/client-s3';
import { configuredVideoModel, createVideoProvider } from '#domain/video-jobs/providers/factory';

const s3 = new S3Client({ region: 'us-east-1' });
const bedrock = new BedrockRuntimeClient({ region: 'us-east-1' });

afterEach(() => {
  delete process.env.VIDEO_PROVIDER;
  delete process.env.VIDEO_MODEL_ID;
  delete process.env.LOCAL_RENDERER_PRESET;
});

describe('createVideoProvider', () => {
  it.each(['local', 'bedrock'] as const)('builds the %s adapter named by VIDEO_PROVIDER', (kind) => {
    process.env.VIDEO_PROVIDER = kind;

    expect(createVideoProvider({ s3, bedrock, local: { ffmpegPath: '/bin/false' } }).kind).toBe(kind);
  });

  it('lets an explicit kind win over VIDEO_PROVIDER', () => {
    process.env.VIDEO_PROVIDER = 'bedrock';

    expect(createVideoProvider({ kind: 'local', s3, local: { ffmpegPath: '/bin/false' } }).kind).toBe('local');
  });

  it.each([undefined, 'replicate'])('refuses to guess when VIDEO_PROVIDER is %s', (value) => {
    if (value !== undefined) process.env.VIDEO_PROVIDER = value;

    expect(() => createVideoProvider({ s3, bedrock })).toThrow('VIDEO_PROVIDER must be one of local, bedrock');
  });

  it('refuses a LOCAL_RENDERER_PRESET that is not an x264 preset, naming the variable', () => {
    process.env.LOCAL_RENDERER_PRESET = 'warpspeed';

    expect(() => createVideoProvider({ kind: 'local', s3 })).toThrow('LOCAL_RENDERER_PRESET must be one of ultrafast');
  });

  it('builds the local renderer with the preset LOCAL_RENDERER_PRESET names', () => {
    process.env.LOCAL_RENDERER_PRESET = 'ultrafast';

    expect(createVideoProvider({ kind: 'local', s3 }).kind).toBe('local');
  });

  it('renders with Luma Ray2 unless VIDEO_MODEL_ID names another model of the registry', () => {
    expect(configuredVideoModel().id).toBe('luma.ray-v2:0');

    process.env.VIDEO_MODEL_ID = 'amazon.nova-reel-v1:1';
    expect(configuredVideoModel().id).toBe('amazon.nova-reel-v1:1');

    process.env.VIDEO_MODEL_ID = 'amazon.nova-reel-v1:0';
    expect(() => configuredVideoModel()).toThrow('amazon.nova-reel-v1:0 is not a video model of the registry');
  });
});
