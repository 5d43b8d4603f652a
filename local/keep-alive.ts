/**
 * How long the local servers (the gateway, the S3 emulator) keep an idle keep-alive connection:
 * 60 s, an Application Load Balancer's default idle timeout. Node's default of 5 s let a client
 * whose event loop was busy for a few seconds (a test decoding frames, a loaded machine) send its
 * next request on a connection the server had just closed, and fail with "other side closed".
 * Clients pool a connection for less than the server announces (undici: 2 s less), so they
 * close it first; only a client idle for a whole minute meets the same race.
 */
export const KEEP_ALIVE_TIMEOUT_MS = 60_000;
