import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';

export default async function globalTeardown() {
  const child = (globalThis as { __localStack?: ChildProcess }).__localStack;
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 15_000))]);
    if (child.exitCode === null) child.kill('SIGKILL');
    child.stdout?.destroy();
    child.stderr?.destroy();
  }
  if (process.env.IT_DATA_DIR) await rm(process.env.IT_DATA_DIR, { recursive: true, force: true });
}
