import { synthesizedWithControls } from './fixtures';

// The stack as `npm run synth` builds it by default, with the controls bin/app.ts runs over it.
const { controls } = synthesizedWithControls();

/** How many resources fail each control. */
const failingCounts = Object.fromEntries(
  Object.entries(controls.failing).map(([control, resources]) => [control, resources.length]),
);

test('the default configuration fails exactly these Control Tower controls, on this many resources', () => {
  expect(failingCounts).toEqual({
    'CT.APIGATEWAY.PR.5': 26,
    'CT.CLOUDWATCH.PR.2': 45,
    'CT.CLOUDWATCH.PR.3': 45,
    'CT.LAMBDA.PR.3': 42,
    'CT.S3.PR.2': 1,
    'CT.S3.PR.9': 2,
    'CT.S3.PR.10': 1,
  });
});

test('no control is acknowledged', () => {
  expect(controls.acknowledged).toEqual({});
});
