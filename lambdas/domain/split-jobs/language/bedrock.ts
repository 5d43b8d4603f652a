/**
 * The Amazon Bedrock adapter of the language port: a text model of the registry, through the
 * Converse API and the model's cross-Region inference profile.
 * - The request is the instructions (prompt.ts) as the system prompt, the transcript as numbered,
 *   timed lines, and one tool whose input schema is the answer's (clip-ideas.ts), which the
 *   request forces the model to call. Its answer is read strictly (parseClipIdeas).
 * - Sampling: temperature 0 where the model takes one (Claude Haiku 5.5 refuses any); thinking
 *   off where the model thinks by default (a forced tool call needs it off).
 * - Output: at most ANSWER_BASE_TOKENS + TOKENS_PER_IDEA per idea asked for.
 * - Input: a transcript longer than the input budget (MAX_INPUT_TOKENS, estimated at
 *   CHARACTERS_PER_TOKEN) is read in consecutive windows of whole sentences, one request each, at
 *   once; their ideas are merged by score. Three hours of speech fit in one window.
 * - Time: each request, the SDK's own retries included (the client's maxAttempts, factory.ts), is
 *   given up after LANGUAGE_REQUEST_TIMEOUT_MS, or when the request's signal aborts.
 * - Failures are answers, never exceptions: throttling (once the SDK's retries are spent) is
 *   `throttled`; a time-out or an abort `timeout`; no tool call, a tool input that is not the JSON
 *   asked for, an answer cut at maxTokens, or one none of whose clips is valid `invalid_answer`;
 *   a content filter, a guardrail, a safety refusal or a text-only decline `refused`; a model the
 *   account may not call or that is not there `unavailable`; anything else `error`. One window
 *   failing fails the whole answer: clips are then chosen by the signals, all alike.
 */
import {
  ConverseCommand,
  type BedrockRuntimeClient,
  type ContentBlock,
  type ConverseCommandInput,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import type { TextModelEntry } from '#domain/models/model-registry';
import { log } from '#platform/log';
import { CLIP_IDEAS_TOOL_NAME, clipIdeasSchema, parseClipIdeas, type DroppedIdea } from './clip-ideas';
import type {
  ClipIdea,
  ClipIdeasAnswer,
  ClipIdeasRequest,
  LanguageFailureCause,
  LanguageModel,
  LanguageUsage,
  TimedSentence,
} from './port';
import { clipIdeasInstructions, transcriptLine, transcriptText } from './prompt';

/** How long one request may take, the SDK's retries included: within ChooseClips' 180 s (lambdas/workflows.ts). */
export const LANGUAGE_REQUEST_TIMEOUT_MS = 60_000;

/**
 * Characters of transcript a token stands for, on the safe side: about 4 for English with older
 * tokenizers, and Claude Haiku 5.5's newer one counts the same text as about 30% more tokens
 * (Anthropic's migration guide), so 3.
 */
export const CHARACTERS_PER_TOKEN = 3;

/** What the instructions and the tool's schema take of the input, in tokens, with room to spare. */
export const PROMPT_TOKENS = 2_000;

/**
 * The most input tokens one request carries: 90% of what is under the model's long-prompt price
 * (Claude Haiku 5.5: prompts over 100,000 tokens cost five times as much), else of its context.
 * At $0.11 per million input tokens, a full window costs about a cent.
 */
export function maxInputTokens(model: TextModelEntry): number {
  const ceiling = Math.min(model.prices.longPrompt?.overInputTokens ?? Infinity, model.contextWindowTokens);
  return Math.floor(ceiling * 0.9);
}

/** The answer's tokens: a little for the call itself, and about this much an idea (its texts are at most 500 characters). */
export const ANSWER_BASE_TOKENS = 256;
export const TOKENS_PER_IDEA = 200;

export function maxAnswerTokens(model: TextModelEntry, maxIdeas: number): number {
  return Math.min(model.maxOutputTokens, ANSWER_BASE_TOKENS + TOKENS_PER_IDEA * Math.max(1, maxIdeas));
}

/** Consecutive runs of whole sentences whose lines fit in `maxCharacters` each (a longer sentence alone). */
export function transcriptWindows(sentences: readonly TimedSentence[], maxCharacters: number): TimedSentence[][] {
  const windows: TimedSentence[][] = [];
  let current: TimedSentence[] = [];
  let size = 0;
  for (const sentence of sentences) {
    const length = transcriptLine(sentence).length + 1;
    if (current.length > 0 && size + length > maxCharacters) {
      windows.push(current);
      current = [];
      size = 0;
    }
    current.push(sentence);
    size += length;
  }
  if (current.length > 0) windows.push(current);
  return windows;
}

/** Bedrock's errors that mean "not now", once the SDK's own retries are spent. */
const THROTTLING_ERRORS = new Set([
  'ThrottlingException',
  'ServiceUnavailableException',
  'ServiceQuotaExceededException',
  'ModelNotReadyException',
]);
/** The model is not there for this account: not enabled, not subscribed, not in the Region, or past its end. */
const UNAVAILABLE_ERRORS = new Set(['AccessDeniedException', 'ResourceNotFoundException']);
const TIMEOUT_ERRORS = new Set(['AbortError', 'TimeoutError', 'ModelTimeoutException']);

/** Stop reasons that mean the model would not answer: a filter, a guardrail or a safety refusal. */
const REFUSING_STOPS = new Set(['content_filtered', 'guardrail_intervened', 'refusal']);

/** A text answer that declines, instead of the tool call. */
const DECLINE =
  /\b(?:I\s*['’]?\s*(?:can['’]?t|cannot|can not|won['’]?t|will not|am unable|m unable|am not able|must decline)|unable to (?:help|assist|comply)|(?:I['’]m|I am) sorry)\b/i;

/** Why a window gave no ideas, as the port names it. */
class Failure extends Error {
  constructor(
    readonly failure: LanguageFailureCause,
    detail: string,
  ) {
    super(detail);
  }
}

function failureOf(error: unknown, signal: AbortSignal, external?: AbortSignal): Failure {
  if (error instanceof Failure) return error;
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  if (signal.aborted || TIMEOUT_ERRORS.has(name)) {
    return new Failure(
      'timeout',
      external?.aborted
        ? 'the job could wait no longer for the language model'
        : `no answer within ${LANGUAGE_REQUEST_TIMEOUT_MS / 1000} s (${name})`,
    );
  }
  if (THROTTLING_ERRORS.has(name)) return new Failure('throttled', `${name}: ${message}`);
  if (UNAVAILABLE_ERRORS.has(name)) return new Failure('unavailable', `${name}: ${message}`);
  return new Failure('error', `${name}: ${message}`);
}

/** `work`, or a rejection as soon as `signal` aborts (a mocked or hung client included). */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new Failure('timeout', 'aborted before the request'));
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(Object.assign(new Error('The request was aborted'), { name: 'AbortError' }));
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}

/** The tool input of the answer, parsed; or why the answer is not one. */
function toolInputOf(response: ConverseCommandOutput): unknown {
  const stop = response.stopReason ?? 'unknown';
  if (REFUSING_STOPS.has(stop)) throw new Failure('refused', `the model stopped: ${stop}`);
  if (stop === 'max_tokens') throw new Failure('invalid_answer', 'the answer was cut at its token limit');
  if (stop === 'model_context_window_exceeded')
    throw new Failure('error', 'the transcript exceeded the context window');
  const content: ContentBlock[] = response.output?.message?.content ?? [];
  const call = content.find((block) => block.toolUse)?.toolUse;
  if (!call) {
    const text = content
      .map((block) => block.text ?? '')
      .join(' ')
      .trim();
    if (DECLINE.test(text)) throw new Failure('refused', `the model declined: ${text.slice(0, 200)}`);
    throw new Failure('invalid_answer', `no call of ${CLIP_IDEAS_TOOL_NAME} (stop reason ${stop})`);
  }
  if (call.name !== CLIP_IDEAS_TOOL_NAME) throw new Failure('invalid_answer', `a call of another tool: ${call.name}`);
  // Bedrock gives the input as a JSON document; a model that wrote it as a string of JSON is read alike.
  if (typeof call.input !== 'string') return call.input;
  try {
    return JSON.parse(call.input) as unknown;
  } catch {
    throw new Failure('invalid_answer', 'the tool input is not JSON');
  }
}

export interface BedrockLanguageModelOptions {
  /** The container's client (factory.ts): made once, with its retries configured. */
  bedrock: BedrockRuntimeClient;
  model: TextModelEntry;
  /** LANGUAGE_REQUEST_TIMEOUT_MS unless told (tests). */
  timeoutMs?: number;
}

interface WindowAnswer {
  ideas: ClipIdea[];
  dropped: DroppedIdea[];
  inputTokens: number;
  outputTokens: number;
}

export class BedrockLanguageModel implements LanguageModel {
  readonly kind = 'bedrock';
  readonly modelId: string;
  private readonly bedrock: BedrockRuntimeClient;
  private readonly model: TextModelEntry;
  private readonly timeoutMs: number;

  constructor(options: BedrockLanguageModelOptions) {
    this.bedrock = options.bedrock;
    this.model = options.model;
    this.modelId = options.model.id;
    this.timeoutMs = options.timeoutMs ?? LANGUAGE_REQUEST_TIMEOUT_MS;
  }

  /** The Converse request for one window of the transcript. */
  converseInput(request: ClipIdeasRequest, sentences: readonly TimedSentence[]): ConverseCommandInput {
    const { model } = this;
    return {
      modelId: model.inferenceProfile.id,
      system: [{ text: clipIdeasInstructions(request) }],
      messages: [{ role: 'user', content: [{ text: transcriptText(sentences) }] }],
      inferenceConfig: {
        maxTokens: maxAnswerTokens(model, request.maxIdeas),
        ...(model.request.temperature ? { temperature: 0 } : {}),
      },
      toolConfig: {
        tools: [
          {
            toolSpec: {
              name: CLIP_IDEAS_TOOL_NAME,
              description: 'Proposes the clips: sentence ranges with a hook line, a title, a reason and a score each.',
              inputSchema: { json: clipIdeasSchema(sentences, request.maxIdeas) as never },
            },
          },
        ],
        toolChoice: { tool: { name: CLIP_IDEAS_TOOL_NAME } },
      },
      ...(model.request.thinkingOff ? { additionalModelRequestFields: model.request.thinkingOff as never } : {}),
      requestMetadata: { jobId: request.jobId },
    };
  }

  async proposeClips(request: ClipIdeasRequest): Promise<ClipIdeasAnswer> {
    const started = Date.now();
    const { sentences } = request;
    const fields = { jobId: request.jobId, modelId: this.modelId, sentences: sentences.length };
    if (sentences.length === 0) {
      return { state: 'failed', cause: 'unavailable', detail: 'the transcript has no sentence to read' };
    }
    const signal = AbortSignal.any([AbortSignal.timeout(this.timeoutMs), ...(request.signal ? [request.signal] : [])]);
    const windows = transcriptWindows(sentences, (maxInputTokens(this.model) - PROMPT_TOKENS) * CHARACTERS_PER_TOKEN);
    const settled = await Promise.allSettled(windows.map((window) => this.proposeForWindow(request, window, signal)));
    const seconds = (Date.now() - started) / 1000;
    const rejected = settled.find((result) => result.status === 'rejected');
    if (rejected) {
      const failure = failureOf(rejected.reason, signal, request.signal);
      log('warn', 'The language model gave no clip ideas: clips are chosen by the signals alone', {
        ...fields,
        windows: windows.length,
        cause: failure.failure,
        detail: failure.message,
        seconds,
      });
      return { state: 'failed', cause: failure.failure, detail: failure.message };
    }
    const answers = settled.map((result) => (result as PromiseFulfilledResult<WindowAnswer>).value);
    const usage: LanguageUsage = {
      inputTokens: answers.reduce((sum, answer) => sum + answer.inputTokens, 0),
      outputTokens: answers.reduce((sum, answer) => sum + answer.outputTokens, 0),
      seconds,
    };
    const ideas = answers
      .flatMap((answer) => answer.ideas)
      .sort((a, b) => b.score - a.score || a.firstSentence - b.firstSentence)
      .slice(0, request.maxIdeas);
    log('info', 'Clip ideas proposed by the language model', {
      ...fields,
      windows: windows.length,
      ideas: ideas.length,
      dropped: answers.flatMap((answer) => answer.dropped),
      ...usage,
    });
    return { state: 'answered', ideas, usage };
  }

  private async proposeForWindow(
    request: ClipIdeasRequest,
    sentences: readonly TimedSentence[],
    signal: AbortSignal,
  ): Promise<WindowAnswer> {
    const response = await untilAborted(
      this.bedrock.send(new ConverseCommand(this.converseInput(request, sentences)), { abortSignal: signal }),
      signal,
    );
    const reading = parseClipIdeas(toolInputOf(response), sentences, request.lengths, request.maxIdeas);
    if (!reading.valid) throw new Failure('invalid_answer', reading.reason);
    return {
      ideas: reading.ideas,
      dropped: reading.dropped,
      inputTokens: response.usage?.inputTokens ?? 0,
      outputTokens: response.usage?.outputTokens ?? 0,
    };
  }
}
