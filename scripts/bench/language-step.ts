import { DEFAULT_TEXT_MODEL_ID, textModelById } from '#domain/models/model-registry';
import { CHARACTERS_PER_TOKEN, maxAnswerTokens, PROMPT_TOKENS } from '#domain/split-jobs/language/bedrock';
import type { TimedSentence } from '#domain/split-jobs/language/port';
import { transcriptText } from '#domain/split-jobs/language/prompt';
import { WinkNlpLanguageModel } from '#domain/split-jobs/language/wink-nlp';
import { round } from './statistics';

/**
 * What the language step costs per source minute: the local model (wink-nlp) timed on the
 * transcript of a talk, and the Bedrock text model's request estimated from the same transcript
 * (input tokens from its characters, the answer at its cap, the registry's prices). A talk here is
 * 150 words a minute in sentences of 8 to 22 words, with a hook every few sentences.
 */

const OPENINGS = [
  'Why did our releases take two whole weeks?',
  'We cut our build time by seventy three percent.',
  'But the real problem was never the compiler.',
  'Here is how we fixed the review queue in one afternoon.',
];
const BODY = [
  'Every build ran on its own machine and started from nothing at all.',
  'So a small change to one screen waited for hours before anyone saw it.',
  'The cache now holds every artifact the team has built this week.',
  'Reviews waited three days on average for a second pair of eyes.',
  'We moved the slowest tests to a nightly run and kept the fast ones.',
  'That gave the team back most of an afternoon every single day.',
];

function talk(minutes: number): TimedSentence[] {
  const sentences: TimedSentence[] = [];
  let at = 0.5;
  for (let index = 0; at < minutes * 60; index += 1) {
    const text = index % 6 === 0 ? OPENINGS[(index / 6) % OPENINGS.length]! : BODY[index % BODY.length]!;
    const seconds = text.split(' ').length / 2.5;
    sentences.push({ index, text, startSeconds: at, endSeconds: at + seconds });
    at += seconds + 0.6;
  }
  return sentences;
}

export async function measureLanguageStep(minutes: readonly number[] = [10, 60]) {
  const model = textModelById(DEFAULT_TEXT_MODEL_ID);
  const local = new WinkNlpLanguageModel();
  const figures = [];
  for (const sourceMinutes of minutes) {
    const sentences = talk(sourceMinutes);
    const request = {
      jobId: 'bench',
      sentences,
      language: 'en',
      clipStyle: 'balanced' as const,
      lengths: { minSeconds: 45, maxSeconds: 90, preferredSeconds: 60 },
      maxIdeas: 15,
    };
    const started = performance.now();
    const answer = await local.proposeClips(request);
    const localSeconds = (performance.now() - started) / 1000;
    const inputTokens = PROMPT_TOKENS + Math.ceil(transcriptText(sentences).length / CHARACTERS_PER_TOKEN);
    const outputTokens = maxAnswerTokens(model, request.maxIdeas);
    const dollars =
      (inputTokens * model.prices.inputPerMillionUsd + outputTokens * model.prices.outputPerMillionUsd) / 1e6;
    figures.push({
      source_minutes: sourceMinutes,
      sentences: sentences.length,
      local_ideas: answer.state === 'answered' ? answer.ideas.length : 0,
      local_seconds: round(localSeconds, 3),
      local_seconds_per_source_minute: round(localSeconds / sourceMinutes, 4),
      bedrock_model: model.id,
      bedrock_input_tokens: inputTokens,
      bedrock_input_tokens_per_source_minute: Math.round(inputTokens / sourceMinutes),
      bedrock_output_tokens_at_most: outputTokens,
      bedrock_usd: round(dollars, 5),
      bedrock_usd_per_source_minute: round(dollars / sourceMinutes, 6),
    });
  }
  return figures;
}
