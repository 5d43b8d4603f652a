import { CLIP_IDEAS_TOOL_NAME } from './clip-ideas';
import {
  HOOK_LINE_MAX_CHARACTERS,
  REASON_MAX_CHARACTERS,
  TITLE_MAX_CHARACTERS,
  type ClipIdeasRequest,
  type ClipStyle,
  type TimedSentence,
} from './port';

/**
 * What a text model is told when it proposes clips: the instructions (the system prompt), steered
 * by the clip style and the language, and the transcript as compact numbered, timed lines, one
 * sentence a line: `<index> [<start seconds>] <text>`, then `end [<seconds>]`, where the last
 * sentence ends. Each line costs a few tokens more than its words; the times let the model keep
 * clips within the lengths asked for. Pure, so that what is sent is tested as written.
 */

/** What each clip style values, in the model's instructions. */
export const CLIP_STYLE_GUIDANCE: Readonly<Record<ClipStyle, string>> = {
  viral_hooks:
    'Viral hooks: favour clips whose first seconds grab attention (a bold claim, a surprise, a question, strong emotion) and that pay it off before they end. Score the hook above all.',
  educational:
    'Educational: favour clips that teach one thing completely on their own (an explanation, a how-to, a lesson with its example). Clarity and completeness over drama.',
  podcast:
    'Podcast: favour self-contained exchanges and stories between the speakers, with their setup and their punchline, that make sense without the rest of the conversation.',
  highlights:
    'Highlights: favour the most important and memorable moments of the whole source (announcements, conclusions, turning points, peaks), spread across it.',
  balanced: 'Balanced: weigh an engaging opening, sense on its own and substance evenly.',
};

/** A time as the lines give it: seconds with one decimal. */
const seconds = (value: number) => value.toFixed(1);

/** One sentence as a line: its index, its start, its words on one line. */
export function transcriptLine(sentence: TimedSentence): string {
  return `${sentence.index} [${seconds(sentence.startSeconds)}] ${sentence.text.replace(/\s+/g, ' ').trim()}`;
}

/** The transcript (or one window of it) as the user message. */
export function transcriptText(sentences: readonly TimedSentence[]): string {
  const last = sentences[sentences.length - 1];
  return [...sentences.map(transcriptLine), ...(last ? [`end [${seconds(last.endSeconds)}]`] : [])].join('\n');
}

/** The language to answer in: the request's BCP 47 tag when known, else the transcript's own. */
function languageInstruction(language: string | null): string {
  return language
    ? `Write hook_line, title and reason in the language of the transcript (BCP 47 tag ${language}); quote the hook line as it is spoken.`
    : 'Write hook_line, title and reason in the language the transcript is spoken in; quote the hook line as it is spoken.';
}

export type PromptRequest = Pick<ClipIdeasRequest, 'clipStyle' | 'language' | 'lengths' | 'maxIdeas'>;

/** The system prompt. */
export function clipIdeasInstructions(request: PromptRequest): string {
  const { lengths } = request;
  return [
    'You choose short clips to publish from a long video, by what is said in it.',
    'The user message is its transcript, one sentence a line: "<index> [<start seconds>] <text>"; the last line, "end [<seconds>]", is where the last sentence ends. A sentence ends where the next one starts.',
    `Propose up to ${request.maxIdeas} clips by calling the tool ${CLIP_IDEAS_TOOL_NAME} once. A clip is a run of consecutive sentences, from first_sentence to last_sentence (indices of the lines, inclusive).`,
    `Each clip lasts from its first sentence's start to its last sentence's end: between ${lengths.minSeconds} and ${lengths.maxSeconds} seconds, ideally about ${lengths.preferredSeconds}.`,
    'A clip must make sense on its own: it starts where a thought starts and ends where it ends. Prefer clips that do not overlap.',
    `hook_line: the words of the clip's opening that make a viewer stay, quoted from it, at most ${HOOK_LINE_MAX_CHARACTERS} characters.`,
    `title: a headline of at most ${TITLE_MAX_CHARACTERS} characters that ends on a whole word, never cut short.`,
    `reason: one sentence, at most ${REASON_MAX_CHARACTERS} characters, naming what in the clip is worth watching.`,
    'score: from 0 to 100, how likely the clip is to hold a viewer by what is said.',
    CLIP_STYLE_GUIDANCE[request.clipStyle],
    languageInstruction(request.language),
  ].join('\n');
}
