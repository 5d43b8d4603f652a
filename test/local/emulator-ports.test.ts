import { freeLoopbackPort, startOnFreePort } from '../../local/emulators/child-processes';

/**
 * An emulator's port is picked free, then bound by the emulator a moment later: another process
 * can take it in between. The failures are those the emulators print when that happens.
 */
const FAUXQS_PORT_TAKEN =
  'fauxqs exited while starting (code 1, signal null):\nError: listen EADDRINUSE: address already in use 127.0.0.1:37863';
const DYNAMODB_PORT_TAKEN =
  'DynamoDB Local exited while starting (code 1, signal null); it needs Java 17+:\nException in thread "main" java.io.IOException: Failed to bind to 0.0.0.0/0.0.0.0:32873';

/** A start that fails with each of `failures` in turn, then answers the port it was given. */
function startFailing(...failures: string[]) {
  const ports: number[] = [];
  const start = async (port: number) => {
    ports.push(port);
    const failure = failures[ports.length - 1];
    if (failure !== undefined) throw new Error(failure);
    return port;
  };
  return { start, ports };
}

describe('starting an emulator on a free port', () => {
  it.each([
    ['fauxqs', FAUXQS_PORT_TAKEN],
    ['DynamoDB Local', DYNAMODB_PORT_TAKEN],
  ])('starts %s again on another port when the one picked was taken before it bound it', async (_, failure) => {
    const { start, ports } = startFailing(failure);
    const port = await startOnFreePort(undefined, start);
    expect(ports).toHaveLength(2);
    expect(port).toBe(ports[1]);
    expect(ports[0]).toBeGreaterThan(0);
    expect(ports[1]).toBeGreaterThan(0);
  });

  it('gives up after three ports, with the last failure', async () => {
    const { start, ports } = startFailing(FAUXQS_PORT_TAKEN, DYNAMODB_PORT_TAKEN, FAUXQS_PORT_TAKEN);
    await expect(startOnFreePort(undefined, start)).rejects.toThrow(FAUXQS_PORT_TAKEN);
    expect(ports).toHaveLength(3);
  });

  it('does not retry any other failure', async () => {
    const { start, ports } = startFailing('Could not run java for DynamoDB Local (spawn java ENOENT)');
    await expect(startOnFreePort(undefined, start)).rejects.toThrow(/ENOENT/);
    expect(ports).toHaveLength(1);
  });

  it('tries a port the caller asked for once', async () => {
    const { start, ports } = startFailing(DYNAMODB_PORT_TAKEN);
    const wanted = await freeLoopbackPort();
    await expect(startOnFreePort(wanted, start)).rejects.toThrow(/Failed to bind/);
    expect(ports).toEqual([wanted]);
  });
});
