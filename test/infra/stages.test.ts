import type { Template } from 'aws-cdk-lib/assertions';
import { synthesizedStack } from './fixtures';

function stageStack(context: Record<string, unknown>) {
  const { stack, template, logicalIdOf } = synthesizedStack(context);
  const resourceOf = (construct: { node: { defaultChild?: unknown } }) =>
    template.toJSON().Resources[logicalIdOf(construct)] as {
      Properties: Record<string, unknown>;
      DeletionPolicy?: string;
      UpdateReplacePolicy?: string;
    };
  return { stack, template, logicalIdOf, resourceOf };
}

/** The bucket each S3 auto-delete custom resource empties, by logical id. */
const autoDeletedBuckets = (template: Template) =>
  Object.values(template.findResources('Custom::S3AutoDeleteObjects'))
    .map((resource) => (resource.Properties.BucketName as { Ref: string }).Ref)
    .sort();

describe('a production stage (the default)', () => {
  const { stack, template, resourceOf } = stageStack({});

  test('retains the table, with deletion protection and point-in-time recovery', () => {
    expect(resourceOf(stack.table.table)).toMatchObject({
      DeletionPolicy: 'Retain',
      UpdateReplacePolicy: 'Retain',
      Properties: {
        DeletionProtectionEnabled: true,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  test('retains the media bucket and its access-log bucket, objects and all', () => {
    for (const bucket of [stack.media.bucket, stack.media.accessLogBucket]) {
      expect(resourceOf(bucket)).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    }
    expect(autoDeletedBuckets(template)).toEqual([]);
  });

  test('retains the key that opens the webhook secrets in the table, and the access logs', () => {
    expect(resourceOf(stack.webhookSecretsKey.key).DeletionPolicy).toBe('Retain');
    expect(resourceOf(stack.httpApi.accessLogGroup).DeletionPolicy).toBe('Retain');
  });

  test('is protected from termination', () => {
    expect(stack.terminationProtection).toBe(true);
  });
});

describe('a non-production stage', () => {
  const { stack, template, logicalIdOf, resourceOf } = stageStack({ stage: 'dev', production: 'false' });

  test('deletes the table with the stack and leaves it unprotected, keeping point-in-time recovery', () => {
    expect(resourceOf(stack.table.table)).toMatchObject({
      DeletionPolicy: 'Delete',
      UpdateReplacePolicy: 'Delete',
      Properties: {
        DeletionProtectionEnabled: false,
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      },
    });
  });

  test('empties and deletes both buckets with the stack', () => {
    for (const bucket of [stack.media.bucket, stack.media.accessLogBucket]) {
      expect(resourceOf(bucket)).toMatchObject({ DeletionPolicy: 'Delete', UpdateReplacePolicy: 'Delete' });
    }
    expect(autoDeletedBuckets(template)).toEqual(
      [logicalIdOf(stack.media.bucket), logicalIdOf(stack.media.accessLogBucket)].sort(),
    );
  });

  test('deletes the webhook secrets key and the access logs with the stack', () => {
    expect(resourceOf(stack.webhookSecretsKey.key).DeletionPolicy).toBe('Delete');
    expect(resourceOf(stack.httpApi.accessLogGroup).DeletionPolicy).toBe('Delete');
  });

  test('leaves nothing retained', () => {
    const retained = Object.entries(template.toJSON().Resources as Record<string, { DeletionPolicy?: string }>)
      .filter(([, resource]) => resource.DeletionPolicy === 'Retain')
      .map(([logicalId]) => logicalId);
    expect(retained).toEqual([]);
  });

  test('is not protected from termination', () => {
    expect(stack.terminationProtection).toBe(false);
  });
});

test('a stage other than prod may be production, and then keeps its data', () => {
  const { stack, resourceOf } = stageStack({ stage: 'eu-prod' });
  expect(resourceOf(stack.table.table).DeletionPolicy).toBe('Retain');
  expect(stack.terminationProtection).toBe(true);
});
