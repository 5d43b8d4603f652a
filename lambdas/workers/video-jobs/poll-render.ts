import { createVideoProvider } from '../../domain/video-providers';
import { pollRender, type LifecycleState } from '../../domain/video-job-lifecycle';

const provider = createVideoProvider();

export const handler = (state: LifecycleState) => pollRender(provider, state);
