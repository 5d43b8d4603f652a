import { createVideoProvider } from '../../domain/video-providers';
import { s3 } from '../../store/s3';
import { pollRender, type LifecycleState } from '../../domain/video-job-lifecycle';

const provider = createVideoProvider({ s3 });

export const handler = (state: LifecycleState) => pollRender(provider, state);
