import { createVideoProvider } from '../../domain/video-providers';
import { s3 } from '../../store/s3';
import { lifecycleSettings, startRender, type LifecycleState } from '../../domain/video-job-lifecycle';

const provider = createVideoProvider({ s3 });
const settings = lifecycleSettings();

export const handler = (state: LifecycleState) => startRender(provider, state, settings);
