import { CfnOutput, Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { DataTable } from './constructs/data-table';
import { VideoHttpApi, type ApiStateMachines } from './constructs/http-api';
import { MediaBucket } from './constructs/media-bucket';
import { Monitoring } from './constructs/monitoring';

export interface VideoApiStackProps extends StackProps {
  /** Workflows routes may start; absent until they are built (a route needing one fails synth). */
  readonly stateMachines?: ApiStateMachines;
}

/**
 * The whole v1 service in one env-agnostic stack: table, media bucket, HTTP API with one function
 * per route, and the dashboard and alarms over them.
 */
export class VideoApiStack extends Stack {
  public readonly table: DataTable;
  public readonly media: MediaBucket;
  public readonly httpApi: VideoHttpApi;
  public readonly monitoring: Monitoring;

  constructor(scope: Construct, id: string, props: VideoApiStackProps = {}) {
    super(scope, id, props);

    this.table = new DataTable(this, 'Data');
    this.media = new MediaBucket(this, 'Media');
    this.httpApi = new VideoHttpApi(this, 'HttpApi', {
      table: this.table,
      media: this.media,
      stateMachines: props.stateMachines,
    });
    this.monitoring = new Monitoring(this, 'Monitoring', { api: this.httpApi, table: this.table });

    new CfnOutput(this, 'ApiUrl', { value: this.httpApi.baseUrl, description: 'The spec\'s {base_url}' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
    new CfnOutput(this, 'MediaBucketName', { value: this.media.bucketName });
  }
}
