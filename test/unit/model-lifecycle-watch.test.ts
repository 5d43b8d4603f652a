import {
  AccessDeniedException,
  BedrockClient,
  GetFoundationModelCommand,
  ResourceNotFoundException,
  ThrottlingException,
} from '@aws-sdk/client-bedrock';
import { mockClient } from 'aws-sdk-client-mock';
import { watchModelLifecycles } from '#domain/models/lifecycle-watch';
import { captureMetrics, publishedValues } from './support/metrics';

const bedrockMock = mockClient(BedrockClient);
const bedrock = new BedrockClient({ region: 'us-west-2' });
const NOW = new Date('2026-11-28T06:00:00Z');

/** GetFoundationModel's answer for Ray2, as the Bedrock API reference documents it. */
function described(lifecycle: Record<string, unknown>) {
  return {
    modelDetails: {
      modelArn: 'arn:aws:bedrock:us-west-2::foundation-model/luma.ray-v2:0',
      modelId: 'luma.ray-v2:0',
      modelName: 'Ray v2',
      providerName: 'Luma AI',
      inputModalities: ['TEXT', 'IMAGE'],
      outputModalities: ['VIDEO'],
      modelLifecycle: { startOfLifeTime: new Date('2025-01-23T00:00:00Z'), ...lifecycle },
    },
  };
}

beforeEach(() => {
  bedrockMock.reset();
  process.env.WATCHED_MODEL_IDS = 'luma.ray-v2:0';
  process.env.LOG_LEVEL = 'silent';
});

afterEach(() => {
  delete process.env.WATCHED_MODEL_IDS;
  delete process.env.LOG_LEVEL;
});

describe('the model lifecycle watch', () => {
  it('reads an Active model without an end of life as fine, and publishes 0 for it', async () => {
    const metrics = captureMetrics();
    bedrockMock
      .on(GetFoundationModelCommand, { modelIdentifier: 'luma.ray-v2:0' })
      .resolves(described({ status: 'ACTIVE' }) as never);

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([{ modelId: 'luma.ray-v2:0', status: 'ACTIVE' }]);
    expect(publishedValues(metrics, 'ModelLifecycleProblems')).toEqual([{ ModelId: 'luma.ray-v2:0', value: 0 }]);
  });

  it('reads the text model of the language step too, each model under its own id', async () => {
    process.env.WATCHED_MODEL_IDS = 'luma.ray-v2:0,anthropic.claude-haiku-5-5';
    const metrics = captureMetrics();
    bedrockMock
      .on(GetFoundationModelCommand, { modelIdentifier: 'luma.ray-v2:0' })
      .resolves(described({ status: 'ACTIVE' }) as never);
    bedrockMock
      .on(GetFoundationModelCommand, { modelIdentifier: 'anthropic.claude-haiku-5-5' })
      .resolves(described({ status: 'LEGACY', legacyTime: new Date('2026-11-27T00:00:00Z') }) as never);

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([
      { modelId: 'luma.ray-v2:0', status: 'ACTIVE' },
      { modelId: 'anthropic.claude-haiku-5-5', status: 'LEGACY', problem: 'it is Legacy since 2026-11-27' },
    ]);
    expect(publishedValues(metrics, 'ModelLifecycleProblems')).toEqual([
      { ModelId: 'luma.ray-v2:0', value: 0 },
      { ModelId: 'anthropic.claude-haiku-5-5', value: 1 },
    ]);
  });

  it('reports a model Bedrock moved to Legacy after the stack was deployed, with its end of life', async () => {
    const metrics = captureMetrics();
    bedrockMock.on(GetFoundationModelCommand).resolves(
      described({
        status: 'LEGACY',
        legacyTime: new Date('2026-11-20T00:00:00Z'),
        endOfLifeTime: new Date('2027-05-20T00:00:00Z'),
      }) as never,
    );

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([
      {
        modelId: 'luma.ray-v2:0',
        status: 'LEGACY',
        endOfLife: '2027-05-20',
        daysToEndOfLife: 174,
        problem: 'it is Legacy since 2026-11-20',
      },
    ]);
    expect(publishedValues(metrics, 'ModelLifecycleProblems')).toEqual([{ ModelId: 'luma.ray-v2:0', value: 1 }]);
    expect(publishedValues(metrics, 'ModelDaysToEndOfLife')).toEqual([{ ModelId: 'luma.ray-v2:0', value: 174 }]);
  });

  it('reports an Active model within 90 days of an announced end of life', async () => {
    bedrockMock
      .on(GetFoundationModelCommand)
      .resolves(described({ status: 'ACTIVE', endOfLifeTime: new Date('2027-01-31T00:00:00Z') }) as never);

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([
      expect.objectContaining({
        status: 'ACTIVE',
        daysToEndOfLife: 65,
        problem: 'its end of life is 2027-01-31, in 65 days',
      }),
    ]);
  });

  it.each([
    ['not found', new ResourceNotFoundException({ message: 'Model not found', $metadata: {} })],
    ['refused', new AccessDeniedException({ message: 'Not authorized', $metadata: {} })],
  ])('reports a model Bedrock will not describe (%s) as unavailable', async (_, error) => {
    const metrics = captureMetrics();
    bedrockMock.on(GetFoundationModelCommand).rejects(error);

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([
      {
        modelId: 'luma.ray-v2:0',
        status: 'UNAVAILABLE',
        problem: expect.stringMatching(/^Bedrock will not describe it here/),
      },
    ]);
    expect(publishedValues(metrics, 'ModelLifecycleProblems')).toEqual([{ ModelId: 'luma.ray-v2:0', value: 1 }]);
  });

  it('throws a throttled read, for the schedule to run again, and publishes nothing for it', async () => {
    const metrics = captureMetrics();
    bedrockMock.on(GetFoundationModelCommand).rejects(new ThrottlingException({ message: 'Slow down', $metadata: {} }));

    await expect(watchModelLifecycles(bedrock, NOW)).rejects.toThrow('Slow down');
    expect(publishedValues(metrics, 'ModelLifecycleProblems')).toEqual([]);
  });

  it('watches nothing where no model is configured, as on the local stack', async () => {
    delete process.env.WATCHED_MODEL_IDS;

    expect(await watchModelLifecycles(bedrock, NOW)).toEqual([]);
    expect(bedrockMock.commandCalls(GetFoundationModelCommand)).toHaveLength(0);
  });
});
