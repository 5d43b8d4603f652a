import { ArnFormat, Duration, RemovalPolicy, Stack, type IAspect } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct, type IConstruct } from 'constructs';
import { limitGrantsToAwsServices } from './key-policies';

export interface AlarmTopicProps {
  /** Subscribed by e-mail when given; the address must confirm the subscription before anything arrives. */
  readonly email?: string;
}

/**
 * Where every alarm of the stack goes, in ALARM and back to OK: an SNS topic encrypted with a key
 * of its own and refusing publishers without TLS. A customer managed key rather than SNS's
 * AWS-managed one because CloudWatch must be allowed to use the key, and the AWS-managed key's
 * policy cannot be changed (alarms would publish nothing). The key protects notifications in
 * transit only, nothing stored, so it goes with the stack in every stage.
 */
export class AlarmTopic extends Construct {
  public readonly topic: sns.Topic;
  public readonly key: kms.Key;

  constructor(scope: Construct, id: string, props: AlarmTopicProps = {}) {
    super(scope, id);
    const stack = Stack.of(this);
    this.key = new kms.Key(this, 'Key', {
      description: `Encrypts the alarm notifications of ${stack.stackName}.`,
      enableKeyRotation: true,
      removalPolicy: RemovalPolicy.DESTROY,
      pendingWindow: Duration.days(7),
    });
    limitGrantsToAwsServices(this.key);
    // CloudWatch encrypts each notification with a data key of this key. The topic policy below
    // limits who may publish, so the key needs no condition of its own (and the KMS calls made for
    // an alarm are not documented to carry the source conditions).
    this.key.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsEncryptNotifications',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
      }),
    );

    this.topic = new sns.Topic(this, 'Topic', {
      displayName: `${stack.stackName} alarms`,
      masterKey: this.key,
      enforceSSL: true,
    });
    // The topic policy enforceSSL writes replaces SNS's default one, which is what let the
    // account's alarms publish; this statement gives that back to this account's alarms only.
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        sid: 'CloudWatchAlarmsPublish',
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: {
          StringEquals: { 'aws:SourceAccount': stack.account },
          ArnLike: {
            'aws:SourceArn': stack.formatArn({
              service: 'cloudwatch',
              resource: 'alarm',
              resourceName: '*',
              arnFormat: ArnFormat.COLON_RESOURCE_NAME,
            }),
          },
        },
      }),
    );

    if (props.email) this.topic.addSubscription(new subscriptions.EmailSubscription(props.email));
  }

  /**
   * An aspect giving every alarm of the scope it is added to this topic as its alarm and OK
   * action, so an alarm added anywhere in the stack later cannot go nowhere.
   */
  notifyEveryAlarm(): IAspect {
    const action = new SnsAction(this.topic);
    return {
      visit(node: IConstruct) {
        if (node instanceof cloudwatch.Alarm) {
          node.addAlarmAction(action);
          node.addOkAction(action);
        }
      },
    };
  }
}
