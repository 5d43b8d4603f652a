const path = require('node:path');
const Sequencer = require('@jest/test-sequencer').default;

/**
 * The files that take longest, longest first: each runs renders, encodes, polls and retries one
 * after another, for minutes. Jest starts the slowest files first when its cache holds their
 * times; on a fresh clone (CI) it has none and goes by file size, which started some of these
 * late, to run on alone after every other file had finished. The order is a heuristic from each
 * file's time in a whole run on a 2-core machine: a wrong guess costs time, never a result.
 */
const SLOWEST_FILES = [
  'test/integration/video-jobs.test.ts',
  'test/integration/split-jobs.test.ts',
  'test/integration/framing.test.ts',
  'test/integration/fuzz.test.ts',
  'test/unit/video-finishing.test.ts',
  'test/integration/webhooks.test.ts',
  'test/local/job-faults.test.ts',
  'test/integration/job-list.test.ts',
  'test/integration/quick-start.test.ts',
  'test/integration/admin-cli.test.ts',
];

/** Jest's order, except that the slowest files Jest has no time for go first. */
class SlowestFirstSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    const rank = (test) =>
      SLOWEST_FILES.indexOf(path.relative(test.context.config.rootDir, test.path).split(path.sep).join('/'));
    const slowestUntimed = sorted
      .filter((test) => test.duration == null && rank(test) >= 0)
      .sort((a, b) => rank(a) - rank(b));
    return [...slowestUntimed, ...sorted.filter((test) => !slowestUntimed.includes(test))];
  }
}

module.exports = SlowestFirstSequencer;
