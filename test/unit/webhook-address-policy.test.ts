import fc from 'fast-check';
import { forbiddenAddressClass, isLoopbackAddress, webhookUrlProblem } from '#domain/webhooks/address-policy';

const AWS = { loopbackAllowed: false };
const LOCAL = { loopbackAllowed: true };

describe('forbidden address classes', () => {
  it.each([
    ['0.0.0.0', 'this-network'],
    ['0.1.2.3', 'this-network'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.254', 'cgnat'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['169.254.0.1', 'link-local'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.10', 'documentation'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.200', 'documentation'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.254', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::ffff:10.0.0.1', 'ipv4-mapped'],
    ['::ffff:127.0.0.1', 'ipv4-mapped'],
    ['::FFFF:7f00:1', 'ipv4-mapped'],
    ['::ffff:8.8.8.8', 'ipv4-mapped'],
    ['::127.0.0.1', 'ipv4-compatible'],
    ['::a00:1', 'ipv4-compatible'],
    ['64:ff9b::a9fe:a9fe', 'nat64'],
    ['2002:a00:1::1', '6to4'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['fd00::1', 'ipv6-unique-local'],
    ['FC00::abcd', 'ipv6-unique-local'],
    ['fe80::1', 'ipv6-link-local'],
    ['FE80::1', 'ipv6-link-local'],
    ['fe80::1%eth0', 'ipv6-link-local'],
    ['febf:ffff::1', 'ipv6-link-local'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'documentation'],
    ['2001:2::5', 'benchmarking'],
    ['100::1', 'reserved'],
    ['[::1]', 'loopback'],
  ])('refuses %s as %s', (address, forbiddenClass) => {
    expect(forbiddenAddressClass(address)).toBe(forbiddenClass);
  });

  it.each(['8.8.8.8', '1.1.1.1', '52.94.236.248', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '2a00:1450::1'])(
    'allows the public unicast address %s',
    (address) => {
      expect(forbiddenAddressClass(address)).toBeUndefined();
    },
  );

  it.each(['example.com', '127.1', '0x7f.0.0.1', '', '1.2.3.4.5'])('refuses %j, which is not an IP address', (text) => {
    expect(forbiddenAddressClass(text)).toBe('not-an-ip-address');
  });

  const forbiddenIpv4Ranges: [network: string, prefix: number][] = [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ];
  const dotted = (value: number) => [24, 16, 8, 0].map((shift) => (value >>> shift) & 0xff).join('.');
  const numeric = (address: string) => address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);

  it.each(forbiddenIpv4Ranges)('refuses every address in %s/%i', (network, prefix) => {
    const inRange = fc
      .integer({ min: 0, max: 2 ** (32 - prefix) - 1 })
      .map((offset) => dotted(numeric(network) + offset));
    fc.assert(
      fc.property(inRange, (address) => {
        expect(forbiddenAddressClass(address)).toBeDefined();
      }),
    );
  });

  it('refuses every IPv4-mapped address, in dotted and in hex form', () => {
    fc.assert(
      fc.property(fc.ipV4(), (ipv4) => {
        const value = numeric(ipv4);
        const hex = `::ffff:${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
        expect(forbiddenAddressClass(`::ffff:${ipv4}`)).toBe('ipv4-mapped');
        expect(forbiddenAddressClass(hex)).toBe('ipv4-mapped');
      }),
    );
  });

  it('names loopback addresses, and only those', () => {
    expect(['127.0.0.1', '127.8.9.10', '::1'].every(isLoopbackAddress)).toBe(true);
    expect(['::ffff:127.0.0.1', '10.0.0.1', '8.8.8.8', 'localhost'].some(isLoopbackAddress)).toBe(false);
  });
});

describe('webhook endpoint URLs', () => {
  it.each(['https://hooks.example.com/video', 'https://8.8.8.8/x', 'https://[2606:4700:4700::1111]:8443/'])(
    'accepts the public https URL %s in both modes',
    (url) => {
      expect(webhookUrlProblem(url, AWS)).toBeUndefined();
      expect(webhookUrlProblem(url, LOCAL)).toBeUndefined();
    },
  );

  it.each(['http://127.0.0.1:8080/x', 'http://localhost:3000', 'https://[::1]/', 'https://127.0.0.2/'])(
    'accepts the loopback URL %s on the local stack only',
    (url) => {
      expect(webhookUrlProblem(url, LOCAL)).toBeUndefined();
      expect(webhookUrlProblem(url, AWS)).toMatch(/https|localhost|loopback/);
    },
  );

  it.each([
    ['http://hooks.example.com/video', 'url must use https.'],
    ['http://[::1]:8080/', 'url must use https.'],
    ['ftp://hooks.example.com/', 'url must use https.'],
    ['http://10.0.0.1/', 'url must use https.'],
    ['https://10.0.0.1/', 'url must not point at a forbidden address (private).'],
    ['https://169.254.169.254/latest/meta-data/', 'url must not point at a forbidden address (link-local).'],
    ['https://[fd00::1]/', 'url must not point at a forbidden address (ipv6-unique-local).'],
    ['https://[::ffff:127.0.0.1]/', 'url must not point at a forbidden address (ipv4-mapped).'],
    ['https://0x0a000001/', 'url must not point at a forbidden address (private).'],
    ['https://hooks.localhost/', 'url must not point at localhost.'],
    ['https://user:secret@hooks.example.com/', 'url must not contain a username or password.'],
    ['not a url', 'url must be an absolute URL.'],
    ['/relative/path', 'url must be an absolute URL.'],
  ])('refuses %s in both modes: %s', (url, problem) => {
    expect(webhookUrlProblem(url, LOCAL)).toBe(problem);
    expect(webhookUrlProblem(url, AWS)).toMatch(/^url must /);
  });

  it.each([
    'https://localhost./',
    'https://LOCALHOST./',
    'https://foo.localhost./',
    'https://localhost%2e/',
    'https://localhost%2E%2E/',
    'https://localhost../',
    'https://Hooks.LocalHost.:8443/video',
  ])('refuses %s, a localhost name written with a trailing dot, when loopback is not allowed', (url) => {
    expect(webhookUrlProblem(url, AWS)).toBe('url must not point at localhost.');
  });

  it('refuses every spelling of a localhost name, whatever its case, labels, trailing dots, port and path', () => {
    const label = fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,10}[a-z0-9])?$/);
    const spelling = fc.record({
      labels: fc.array(label, { maxLength: 3 }),
      upper: fc.array(fc.boolean(), { minLength: 9, maxLength: 9 }),
      dots: fc.array(fc.constantFrom('.', '%2e', '%2E'), { maxLength: 3 }),
      port: fc.option(fc.integer({ min: 1, max: 65_535 }), { nil: undefined }),
      path: fc.constantFrom('', '/', '/hooks?x=1'),
    });
    fc.assert(
      fc.property(spelling, ({ labels, upper, dots, port, path }) => {
        const localhost = [...'localhost'].map((letter, index) => (upper[index] ? letter.toUpperCase() : letter));
        const host = [...labels, localhost.join('')].join('.') + dots.join('');
        const url = `https://${host}${port === undefined ? '' : `:${port}`}${path}`;
        expect(webhookUrlProblem(url, AWS)).toBe('url must not point at localhost.');
      }),
    );
  });

  it('reads a trailing dot on the local stack too: https://localhost./ is localhost, foo.localhost. is not', () => {
    expect(webhookUrlProblem('https://localhost./', LOCAL)).toBeUndefined();
    expect(webhookUrlProblem('https://foo.localhost./', LOCAL)).toBe('url must not point at localhost.');
  });

  it('names the reason an AWS endpoint is refused', () => {
    expect(webhookUrlProblem('http://127.0.0.1:8080/x', AWS)).toBe('url must use https.');
    expect(webhookUrlProblem('https://localhost/', AWS)).toBe('url must not point at localhost.');
    expect(webhookUrlProblem('https://[::1]/', AWS)).toBe('url must not point at a forbidden address (loopback).');
    expect(webhookUrlProblem('https://2130706433/', AWS)).toBe('url must not point at a forbidden address (loopback).');
  });
});
