import { stackDataDir } from '../../support/stack-data-dir';
import { startStackProcess } from './stack-process';

/** Integration tests share one real local stack, started exactly as `npm start` starts it. */
export default async function globalSetup() {
  const dataDir = await stackDataDir('video-api-it-');
  const stack = await startStackProcess(dataDir);
  process.env.IT_DATA_DIR = dataDir;
  process.env.IT_BASE_URL = `http://127.0.0.1:${stack.port}`;
  process.env.IT_API_URL = stack.apiUrl;
  process.env.IT_STACK_ENVIRONMENT = JSON.stringify(stack.environment);
  (globalThis as { __localStack?: unknown }).__localStack = stack.child;
}
