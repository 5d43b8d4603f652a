import type { ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { stopStackProcess } from './stack-process';

export default async function globalTeardown() {
  const child = (globalThis as { __localStack?: ChildProcess }).__localStack;
  if (child) await stopStackProcess({ child });
  if (process.env.IT_DATA_DIR) await rm(process.env.IT_DATA_DIR, { recursive: true, force: true });
}
