import { watchModelLifecycles } from '#domain/models/lifecycle-watch';
import { taskHandler } from '#platform/invocation';
import { log } from '#platform/log';

export const handler = taskHandler('watch-model-lifecycle', async () => {
  const readings = await watchModelLifecycles();
  log('info', 'Model lifecycles read', { models: readings.length });
  return { readings };
});
