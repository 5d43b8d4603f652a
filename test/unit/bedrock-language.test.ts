import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  AccessDeniedException,
  BedrockRuntimeClient,
  ConverseCommand,
  ThrottlingException,
  ValidationException,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import { mockClient } from 'aws-sdk-client-mock';
import { CLAUDE_HAIKU_5_5, type TextModelEntry } from '#domain/models/model-registry';
import {
  BedrockLanguageModel,
  CHARACTERS_PER_TOKEN,
  PROMPT_TOKENS,
  maxAnswerTokens,
  maxInputTokens,
  transcriptWindows,
} from '#domain/split-jobs/language/bedrock';
import { CLIP_IDEAS_TOOL_NAME, clipIdeasSchema } from '#domain/split-jobs/language/clip-ideas';
import { createLanguageModel } from '#domain/split-jobs/language/factory';
import { NoLanguageModel } from '#domain/split-jobs/language/no-language-model';
import { WinkNlpLanguageModel } from '#domain/split-jobs/language/wink-nlp';
import {
  TITLE_MAX_CHARACTERS,
  type ClipIdeasAnswer,
  type ClipIdeasRequest,
  type TimedSentence,
} from '#domain/split-jobs/language/port';
import { CLIP_STYLE_GUIDANCE, transcriptText } from '#domain/split-jobs/language/prompt';

const FIXTURES = join(__dirname, '..', 'fixtures', 'bedrock');

/** A Converse answer recorded in its real shape (test/fixtures/bedrock). */
function recorded(name: string): ConverseCommandOutput {
  return JSON.parse(readFileSync(join(FIXTURES, `${name}.json`), 'utf8')) as ConverseCommandOutput;
}

/** Thirty sentences of a podcast episode about sleep, 159 s in all. */
const SENTENCES: TimedSentence[] = (
  JSON.parse(readFileSync(join(FIXTURES, 'transcript.json'), 'utf8')) as { sentences: TimedSentence[] }
).sentences;

const LENGTHS = { minSeconds: 15, maxSeconds: 45, preferredSeconds: 30 };

const bedrockMock = mockClient(BedrockRuntimeClient);

function request(overrides: Partial<ClipIdeasRequest> = {}): ClipIdeasRequest {
  return {
    jobId: 'split_job_01JXSLEEP',
    sentences: SENTENCES,
    language: 'en-US',
    clipStyle: 'podcast',
    lengths: LENGTHS,
    maxIdeas: 6,
    ...overrides,
  };
}

function adapter(options: { model?: TextModelEntry; timeoutMs?: number } = {}) {
  return new BedrockLanguageModel({
    bedrock: new BedrockRuntimeClient({ region: 'us-west-2' }),
    model: options.model ?? CLAUDE_HAIKU_5_5,
    timeoutMs: options.timeoutMs,
  });
}

/** The Converse requests sent, in order. */
const sent = (): ConverseCommandInput[] => bedrockMock.commandCalls(ConverseCommand).map((call) => call.args[0].input);

/** Asks for ideas and checks that nothing was thrown on the way. */
async function propose(model: BedrockLanguageModel, input = request()): Promise<ClipIdeasAnswer> {
  let answer: ClipIdeasAnswer | undefined;
  await expect(
    model.proposeClips(input).then((result) => {
      answer = result;
    }),
  ).resolves.toBeUndefined();
  return answer!;
}

beforeAll(() => {
  process.env.LOG_LEVEL = 'silent';
});

afterAll(() => {
  delete process.env.LOG_LEVEL;
});

beforeEach(() => {
  bedrockMock.reset();
});

describe('the Bedrock language model with recorded answers', () => {
  it('maps a valid answer to ideas on the sentences, best first, with its usage', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('valid'));
    const answer = await propose(adapter());
    expect(answer).toEqual({
      state: 'answered',
      ideas: [
        expect.objectContaining({ firstSentence: 8, lastSentence: 13, score: 91 }),
        expect.objectContaining({ firstSentence: 14, lastSentence: 19, score: 84 }),
        expect.objectContaining({ firstSentence: 20, lastSentence: 23, score: 72 }),
        expect.objectContaining({ firstSentence: 24, lastSentence: 27, score: 66 }),
      ],
      usage: { inputTokens: 1864, outputTokens: 412, seconds: expect.any(Number) },
    });
    if (answer.state !== 'answered') throw new Error('answered');
    expect(answer.ideas[0]).toEqual({
      firstSentence: 8,
      lastSentence: 13,
      hookLine: 'Here is the experiment that changed my mind completely.',
      title: 'Two hours later to bed cost a third of their memory',
      reason: 'A concrete experiment with a startling result that stands on its own.',
      score: 91,
    });
    expect(answer.usage!.seconds).toBeGreaterThanOrEqual(0);
  });

  it('answers invalid_answer to a tool input that is not JSON', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('invalid-json-input'));
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'invalid_answer',
      detail: 'the tool input is not JSON',
    });
  });

  it('answers invalid_answer to text instead of the tool call', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('text-instead-of-tool'));
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'invalid_answer',
      detail: `no call of ${CLIP_IDEAS_TOOL_NAME} (stop reason end_turn)`,
    });
  });

  it('drops the ideas outside the transcript or its lengths, and keeps the valid one', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('out-of-range'));
    const answer = await propose(adapter());
    expect(answer).toMatchObject({ state: 'answered', ideas: [{ firstSentence: 8, lastSentence: 13, score: 91 }] });
  });

  it('answers invalid_answer when every idea is out of range', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('all-out-of-range'));
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'invalid_answer',
      detail: 'none of its 2 clips is valid (the first: sentence 31 is not in the transcript given)',
    });
  });

  it('drops an idea whose first sentence is after its last', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('first-after-last'));
    expect(await propose(adapter())).toMatchObject({
      state: 'answered',
      ideas: [{ firstSentence: 14, lastSentence: 19 }],
    });
  });

  it(`drops an idea whose title is over ${TITLE_MAX_CHARACTERS} characters`, async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('long-title'));
    expect(await propose(adapter())).toMatchObject({
      state: 'answered',
      ideas: [{ firstSentence: 20, lastSentence: 23 }],
    });
  });

  it('answers refused when a content filter stops the answer', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('refusal-content-filtered'));
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'refused',
      detail: 'the model stopped: content_filtered',
    });
  });

  it('answers refused when the model declines in text', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('refusal-text'));
    expect(await propose(adapter())).toMatchObject({
      state: 'failed',
      cause: 'refused',
      detail: expect.stringMatching(/^the model declined: I'm sorry/),
    });
  });

  it('answers invalid_answer to an answer cut at its token limit, rather than salvaging it', async () => {
    bedrockMock.on(ConverseCommand).resolves(recorded('max-tokens'));
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'invalid_answer',
      detail: 'the answer was cut at its token limit',
    });
  });

  it('answers throttled once Bedrock throttles every attempt', async () => {
    bedrockMock
      .on(ConverseCommand)
      .rejects(
        new ThrottlingException({ message: 'Too many requests, please wait before trying again.', $metadata: {} }),
      );
    expect(await propose(adapter())).toEqual({
      state: 'failed',
      cause: 'throttled',
      detail: 'ThrottlingException: Too many requests, please wait before trying again.',
    });
  });

  it('answers timeout when Bedrock does not answer in time', async () => {
    bedrockMock.on(ConverseCommand).callsFake(() => new Promise(() => undefined));
    expect(await propose(adapter({ timeoutMs: 50 }))).toEqual({
      state: 'failed',
      cause: 'timeout',
      detail: 'no answer within 60 s (AbortError)',
    });
  });

  it('answers timeout when the job aborts the request', async () => {
    bedrockMock.on(ConverseCommand).callsFake(() => new Promise(() => undefined));
    const controller = new AbortController();
    const answer = propose(adapter(), request({ signal: controller.signal }));
    setTimeout(() => controller.abort(), 20);
    expect(await answer).toEqual({
      state: 'failed',
      cause: 'timeout',
      detail: 'the job could wait no longer for the language model',
    });
  });

  it('answers unavailable to a model the account may not call, and error to a request Bedrock refuses', async () => {
    bedrockMock
      .on(ConverseCommand)
      .rejectsOnce(new AccessDeniedException({ message: 'You do not have access to the model.', $metadata: {} }))
      .rejectsOnce(new ValidationException({ message: 'The model returned a bad request.', $metadata: {} }));
    expect(await propose(adapter())).toMatchObject({ state: 'failed', cause: 'unavailable' });
    expect(await propose(adapter())).toMatchObject({ state: 'failed', cause: 'error' });
  });

  it('answers unavailable, without a call, to a transcript with no sentence', async () => {
    expect(await propose(adapter(), request({ sentences: [] }))).toMatchObject({
      state: 'failed',
      cause: 'unavailable',
    });
    expect(sent()).toEqual([]);
  });
});

describe('the Converse request', () => {
  beforeEach(() => {
    bedrockMock.on(ConverseCommand).resolves(recorded('valid'));
  });

  it('calls the inference profile, forcing the one tool whose schema is the answer, with a bounded answer', async () => {
    await propose(adapter());
    const [input] = sent();
    expect(input!.modelId).toBe('us.anthropic.claude-haiku-5-5');
    expect(input!.toolConfig!.toolChoice).toEqual({ tool: { name: CLIP_IDEAS_TOOL_NAME } });
    expect(input!.toolConfig!.tools).toEqual([
      {
        toolSpec: {
          name: CLIP_IDEAS_TOOL_NAME,
          description: expect.any(String),
          inputSchema: { json: clipIdeasSchema(SENTENCES, 6) },
        },
      },
    ]);
    const schema = clipIdeasSchema(SENTENCES, 6) as {
      properties: { clips: { maxItems: number; items: Record<string, unknown> } };
    };
    expect(schema.properties.clips.maxItems).toBe(6);
    expect(schema.properties.clips.items).toMatchObject({
      additionalProperties: false,
      required: ['first_sentence', 'last_sentence', 'hook_line', 'title', 'reason', 'score'],
      properties: {
        first_sentence: { type: 'integer', minimum: 0, maximum: 29 },
        title: { type: 'string', maxLength: TITLE_MAX_CHARACTERS },
        score: { type: 'integer', minimum: 0, maximum: 100 },
      },
    });
    expect(input!.inferenceConfig).toEqual({ maxTokens: maxAnswerTokens(CLAUDE_HAIKU_5_5, 6) });
    expect(maxAnswerTokens(CLAUDE_HAIKU_5_5, 6)).toBe(1456);
    expect(input!.requestMetadata).toEqual({ jobId: 'split_job_01JXSLEEP' });
  });

  it('turns thinking off and sends no temperature to Claude Haiku 5.5, and temperature 0 to a model that takes it', async () => {
    await propose(adapter());
    expect(sent()[0]!.additionalModelRequestFields).toEqual({ thinking: { type: 'disabled' } });
    expect(sent()[0]!.inferenceConfig).not.toHaveProperty('temperature');

    const sampling: TextModelEntry = { ...CLAUDE_HAIKU_5_5, request: { temperature: true } };
    await propose(adapter({ model: sampling }));
    expect(sent()[1]!.inferenceConfig).toMatchObject({ temperature: 0 });
    expect(sent()[1]).not.toHaveProperty('additionalModelRequestFields');
  });

  it('sends the transcript as numbered, timed lines, and tells the lengths, the style and the language', async () => {
    await propose(adapter(), request({ clipStyle: 'educational', language: 'fr-FR', maxIdeas: 4 }));
    const [input] = sent();
    const transcript = input!.messages![0]!.content![0]!.text!;
    expect(transcript.split('\n').slice(0, 2)).toEqual([
      '0 [0.0] Welcome back to the show, today we are talking about sleep.',
      '1 [5.3] My guest has spent twenty years studying why we wake up tired.',
    ]);
    expect(transcript.split('\n').at(-1)).toBe('end [158.7]');
    expect(transcript).toBe(transcriptText(SENTENCES));
    const system = input!.system![0]!.text!;
    expect(system).toContain('between 15 and 45 seconds, ideally about 30');
    expect(system).toContain('Propose up to 4 clips');
    expect(system).toContain(CLIP_STYLE_GUIDANCE.educational);
    expect(system).not.toContain(CLIP_STYLE_GUIDANCE.podcast);
    expect(system).toContain('in the language of the transcript (BCP 47 tag fr-FR)');
  });

  it('without a known language, asks for the language the transcript is spoken in', async () => {
    await propose(adapter(), request({ language: null, clipStyle: 'viral_hooks' }));
    const system = sent()[0]!.system![0]!.text!;
    expect(system).toContain('in the language the transcript is spoken in');
    expect(system).toContain(CLIP_STYLE_GUIDANCE.viral_hooks);
  });
});

describe('long transcripts', () => {
  /** Ten hours of sentences of about 90 characters, 6 s each. */
  const long: TimedSentence[] = Array.from({ length: 6000 }, (_, index) => ({
    index,
    text: `Sentence ${index} of a very long recording, where the speakers go on talking about the subject.`,
    startSeconds: index * 6,
    endSeconds: index * 6 + 5.8,
  }));

  it('keeps each request under the model’s long-prompt price, and three hours of speech in one', () => {
    expect(maxInputTokens(CLAUDE_HAIKU_5_5)).toBe(90_000);
    const budget = (maxInputTokens(CLAUDE_HAIKU_5_5) - PROMPT_TOKENS) * CHARACTERS_PER_TOKEN;
    // Three hours at 150 words a minute, six words a sentence: 4,500 sentences of some 35 characters.
    const threeHours = long
      .slice(0, 4500)
      .map((sentence) => ({ ...sentence, text: 'Six words of speech, said quickly.' }));
    expect(transcriptWindows(threeHours, budget)).toHaveLength(1);
    const windows = transcriptWindows(long, budget);
    expect(windows.length).toBeGreaterThan(1);
    expect(windows.flat()).toEqual(long);
    for (const window of windows) expect(transcriptText(window).length).toBeLessThanOrEqual(budget);
  });

  it('reads a transcript over the budget in windows, one request each, and merges their ideas by score', async () => {
    bedrockMock.on(ConverseCommand).callsFake((input: ConverseCommandInput) => {
      const first = Number(input.messages![0]!.content![0]!.text!.split(' ')[0]);
      const answer = recorded('valid');
      const idea = {
        first_sentence: first + 1,
        last_sentence: first + 4,
        hook_line: 'Sentence one of the window.',
        title: `The window from sentence ${first}`,
        reason: 'It opens the window.',
        score: 50 + (first % 40),
      };
      answer.output!.message!.content = [
        { toolUse: { toolUseId: `tooluse_${first}`, name: CLIP_IDEAS_TOOL_NAME, input: { clips: [idea] } } },
      ];
      return Promise.resolve(answer);
    });
    const answer = await propose(adapter(), request({ sentences: long, maxIdeas: 2 }));
    const windows = sent();
    expect(windows.length).toBe(transcriptWindows(long, (90_000 - PROMPT_TOKENS) * CHARACTERS_PER_TOKEN).length);
    expect(answer).toMatchObject({
      state: 'answered',
      usage: { inputTokens: 1864 * windows.length, outputTokens: 412 * windows.length },
    });
    if (answer.state !== 'answered') throw new Error('answered');
    expect(answer.ideas).toHaveLength(2);
    expect(answer.ideas[0]!.score).toBeGreaterThanOrEqual(answer.ideas[1]!.score);
  });
});

describe('the language model factory', () => {
  it('makes the Bedrock adapter with the registry’s default text model, the local model, or none', () => {
    const bedrock = createLanguageModel({
      kind: 'bedrock',
      bedrock: new BedrockRuntimeClient({ region: 'us-west-2' }),
    });
    expect(bedrock).toBeInstanceOf(BedrockLanguageModel);
    expect(bedrock).toMatchObject({ kind: 'bedrock', modelId: 'anthropic.claude-haiku-5-5' });
    expect(createLanguageModel({ kind: 'none' })).toBeInstanceOf(NoLanguageModel);
    expect(createLanguageModel({ kind: 'wink-nlp' })).toBeInstanceOf(WinkNlpLanguageModel);
  });

  it('reads the kind and the text model from the settings, none when unset', () => {
    delete process.env.LANGUAGE_MODEL;
    expect(createLanguageModel().kind).toBe('none');
    process.env.LANGUAGE_MODEL = 'bedrock';
    process.env.TEXT_MODEL_ID = 'anthropic.claude-haiku-5-5';
    try {
      expect(createLanguageModel({ bedrock: new BedrockRuntimeClient({ region: 'us-west-2' }) }).modelId).toBe(
        'anthropic.claude-haiku-5-5',
      );
      process.env.TEXT_MODEL_ID = 'luma.ray-v2:0';
      expect(() => createLanguageModel()).toThrow(/not a text model of the registry/);
      process.env.LANGUAGE_MODEL = 'wink';
      expect(() => createLanguageModel()).toThrow(/LANGUAGE_MODEL must be one of bedrock, wink-nlp, none/);
    } finally {
      delete process.env.LANGUAGE_MODEL;
      delete process.env.TEXT_MODEL_ID;
    }
  });

  it('without a language model, answers that none is configured', async () => {
    const none = new NoLanguageModel();
    expect(none).toMatchObject({ kind: 'none', modelId: null });
    expect(await none.proposeClips()).toEqual({
      state: 'failed',
      cause: 'unavailable',
      detail: 'no language model is configured',
    });
  });
});
