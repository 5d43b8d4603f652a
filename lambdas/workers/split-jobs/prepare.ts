import { prepareSplit, type SplitState } from '#domain/split-jobs/split-steps';
import { createTranscriptionProvider } from '#domain/split-jobs/transcription/factory';
import { s3 } from '#platform/clients/s3';
import { transcribe } from '#platform/clients/transcribe';

const transcription = createTranscriptionProvider({ transcribe, s3 });

export const handler = (state: SplitState) => prepareSplit(transcription, state);
