import { ROUTES } from '#routes';
import { synthesizedWithControls } from './fixtures';

// The stack as `npm run synth` builds and checks it by default.
const { template, controls, nag } = synthesizedWithControls();
const functionCount = Object.keys(template.findResources('AWS::Lambda::Function')).length;
const logGroupCount = Object.keys(template.findResources('AWS::Logs::LogGroup')).length;

/** How many resources fail each control. */
const failingCounts = Object.fromEntries(
  Object.entries(controls.failing).map(([control, resources]) => [control, resources.length]),
);

test('the default configuration fails exactly these Control Tower controls, on this many resources', () => {
  expect(failingCounts).toEqual({
    'CT.APIGATEWAY.PR.5': ROUTES.length + 1,
    'CT.S3.PR.2': 1,
    'CT.S3.PR.9': 2,
    'CT.S3.PR.10': 1,
  });
});

test('the controls only the governed profile meets are acknowledged by the stack, for every function and log group', () => {
  expect(controls.acknowledged).toEqual({
    'CT.LAMBDA.PR.3': { VideoApiStack: functionCount },
    'CT.CLOUDWATCH.PR.2': { VideoApiStack: logGroupCount },
    'CT.CLOUDWATCH.PR.3': { VideoApiStack: logGroupCount },
  });
});

test('cdk-nag finds nothing unsuppressed in the same synthesis', () => {
  expect(nag).toEqual({ errors: [], warnings: [] });
});
