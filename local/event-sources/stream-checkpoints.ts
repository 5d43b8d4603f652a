import { readFile, rename, writeFile } from 'node:fs/promises';

/**
 * Where the local stream poller got to, per consumer (task) and shard, kept in the data dir so
 * that a restart resumes after the last record handled (what Lambda's event source mapping keeps
 * for itself in AWS). Records written while the stack was stopped are still in DynamoDB Local's
 * stream and are read after the restart.
 */
export interface ShardCheckpoint {
  /** The sequence number of the last record handled (delivered, or passed over by the filter). */
  after?: string;
  /** The shard is closed and every record of it was handled: its children come next. */
  ended?: true;
}

export interface ConsumerCheckpoint {
  /** The stream the shards belong to: a table whose stream was disabled and enabled again has a new one. */
  streamArn: string;
  shards: Record<string, ShardCheckpoint>;
}

interface CheckpointDocument {
  consumers: Record<string, ConsumerCheckpoint>;
}

export class CheckpointStore {
  private writing: Promise<void> = Promise.resolve();
  private queued = false;

  private constructor(
    private readonly file: string,
    private readonly document: CheckpointDocument,
  ) {}

  /** Reads the file; a missing or unreadable one starts empty (an unreadable one is reported). */
  static async open(file: string): Promise<CheckpointStore> {
    let document: CheckpointDocument = { consumers: {} };
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<CheckpointDocument>;
      if (parsed && typeof parsed.consumers === 'object' && parsed.consumers !== null) {
        document = { consumers: parsed.consumers };
      } else {
        console.error(`Stream checkpoints in ${file} are not in the expected shape: starting from the streams' start`);
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        console.error(
          `Could not read the stream checkpoints in ${file} (${String(error)}): starting from the streams' start`,
        );
      }
    }
    return new CheckpointStore(file, document);
  }

  get(consumer: string): ConsumerCheckpoint | undefined {
    return this.document.consumers[consumer];
  }

  /** Records the consumer's position and resolves once it is on disk (writes are serialised and coalesced). */
  save(consumer: string, checkpoint: ConsumerCheckpoint): Promise<void> {
    this.document.consumers[consumer] = checkpoint;
    // A write not yet started will take the document as it is when it starts.
    if (this.queued) return this.writing;
    this.queued = true;
    this.writing = this.writing.then(async () => {
      this.queued = false;
      try {
        const temporary = `${this.file}.tmp`;
        await writeFile(temporary, `${JSON.stringify(this.document, null, 2)}\n`);
        await rename(temporary, this.file);
      } catch (error) {
        console.error(`Could not save the stream checkpoints to ${this.file}:`, error);
      }
    });
    return this.writing;
  }

  /** Resolves once every save so far is on disk. */
  flush(): Promise<void> {
    return this.writing;
  }
}
