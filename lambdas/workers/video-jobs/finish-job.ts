import { finishRender, type LifecycleState } from '../../domain/video-job-lifecycle';

export const handler = (state: LifecycleState) => finishRender(state);
