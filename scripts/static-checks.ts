import { spawn } from 'node:child_process';

/**
 * What `npm test` runs before Jest. The contract's types are built first, since types, lint and the
 * import rules read them; the rest (the client's check and build, formatting, the OpenAPI lint,
 * types, ESLint, the import rules of .dependency-cruiser.cjs) then run side by side, which on 2
 * cores takes about a third less time than one after another. None of them reads what another
 * writes: the client's build goes to client/dist/, which the others skip. Each one's output is
 * printed whole when it ends, never interleaved with another's.
 */

/** package.json scripts. */
const FIRST = 'build:contract';
const SIDE_BY_SIDE = [
  'check:client',
  'build:client',
  'format:check',
  'lint:contract',
  'typecheck',
  'lint',
  'lint:dependencies',
];

interface Outcome {
  script: string;
  passed: boolean;
  output: string;
  seconds: number;
}

function runScript(script: string): Promise<Outcome> {
  const startedAt = performance.now();
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => chunks.push(chunk));
    const finish = (passed: boolean, extra = '') =>
      resolve({
        script,
        passed,
        output: Buffer.concat(chunks).toString('utf8') + extra,
        seconds: (performance.now() - startedAt) / 1000,
      });
    child.on('error', (error) => finish(false, `${error.message}\n`));
    child.on('close', (code) => finish(code === 0));
  });
}

function report(outcome: Outcome): void {
  if (outcome.output.trim())
    process.stderr.write(outcome.output.endsWith('\n') ? outcome.output : `${outcome.output}\n`);
  const verdict = outcome.passed ? 'passed' : 'FAILED';
  process.stderr.write(`${outcome.script}: ${verdict} in ${outcome.seconds.toFixed(1)} s\n`);
}

async function main(): Promise<number> {
  const first = await runScript(FIRST);
  report(first);
  if (!first.passed) return 1;
  const outcomes = await Promise.all(
    SIDE_BY_SIDE.map((script) =>
      runScript(script).then((outcome) => {
        report(outcome);
        return outcome;
      }),
    ),
  );
  return outcomes.every((outcome) => outcome.passed) ? 0 : 1;
}

void main().then((code) => {
  process.exitCode = code;
});
