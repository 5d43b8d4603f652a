import { spawn } from 'node:child_process';

/**
 * The checks `npm test` makes before Jest. The contract and the client are built first, since the
 * others read what they write; the four that only read (formatting, the OpenAPI lint, types,
 * ESLint) then run side by side, which on 2 cores takes about a third less time than one after
 * another. Each check's output is printed whole when it ends, never interleaved with another's.
 */

/** package.json scripts, in this order. */
const BUILDS = ['build:contract', 'check:client', 'build:client'];
/** package.json scripts run at once after the builds. */
const CHECKS = ['format:check', 'lint:contract', 'typecheck', 'lint'];

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
  for (const script of BUILDS) {
    const outcome = await runScript(script);
    report(outcome);
    if (!outcome.passed) return 1;
  }
  const outcomes = await Promise.all(
    CHECKS.map((script) =>
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
