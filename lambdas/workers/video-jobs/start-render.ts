import { createVideoProvider } from '../../domain/video-providers';
import { lifecycleSettings, startRender, type LifecycleState } from '../../domain/video-job-lifecycle';

const provider = createVideoProvider();
const settings = lifecycleSettings();

export const handler = (state: LifecycleState) => startRender(provider, state, settings);
