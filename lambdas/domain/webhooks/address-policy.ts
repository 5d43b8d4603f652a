import { BlockList, isIP } from 'node:net';

/**
 * Which addresses a webhook may reach. An endpoint URL is the customer's, so without this a
 * delivery could be aimed at the instance metadata service, a VPC neighbour or the function's own
 * loopback (SSRF). The URL is checked when an endpoint is saved, and every address a delivery
 * actually connects to is checked again (delivery-request.ts), so a name that later resolves
 * somewhere private is refused too.
 */

type Subnet = readonly [network: string, prefix: number];

const blockListOf = (family: 'ipv4' | 'ipv6', subnets: readonly Subnet[]) => {
  const list = new BlockList();
  for (const [network, prefix] of subnets) list.addSubnet(network, prefix, family);
  return list;
};

/**
 * IPv4 and IPv6 are kept in separate lists on purpose: a BlockList's IPv4 rule also matches the
 * IPv4-mapped IPv6 form, and a mapped address must be named `ipv4-mapped` whatever it embeds.
 * The first class that matches names the address, so the narrow classes come before the wide ones.
 */
const IPV4_CLASSES: readonly (readonly [string, BlockList])[] = [
  ['this-network', blockListOf('ipv4', [['0.0.0.0', 8]])],
  [
    'private',
    blockListOf('ipv4', [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ]),
  ],
  ['cgnat', blockListOf('ipv4', [['100.64.0.0', 10]])],
  ['loopback', blockListOf('ipv4', [['127.0.0.0', 8]])],
  // Holds 169.254.169.254, the instance metadata service.
  ['link-local', blockListOf('ipv4', [['169.254.0.0', 16]])],
  [
    'documentation',
    blockListOf('ipv4', [
      ['192.0.2.0', 24],
      ['198.51.100.0', 24],
      ['203.0.113.0', 24],
    ]),
  ],
  ['benchmarking', blockListOf('ipv4', [['198.18.0.0', 15]])],
  ['multicast', blockListOf('ipv4', [['224.0.0.0', 4]])],
  ['broadcast', blockListOf('ipv4', [['255.255.255.255', 32]])],
  [
    'reserved',
    blockListOf('ipv4', [
      ['192.0.0.0', 24],
      ['240.0.0.0', 4],
    ]),
  ],
];

const IPV6_CLASSES: readonly (readonly [string, BlockList])[] = [
  ['unspecified', blockListOf('ipv6', [['::', 128]])],
  ['loopback', blockListOf('ipv6', [['::1', 128]])],
  // Forms that embed an IPv4 address or translate to one: refused whatever they embed, since
  // the host or a gateway on the way may deliver them to that IPv4 address.
  ['ipv4-mapped', blockListOf('ipv6', [['::ffff:0:0', 96]])],
  ['ipv4-compatible', blockListOf('ipv6', [['::', 96]])],
  [
    'nat64',
    blockListOf('ipv6', [
      ['64:ff9b::', 96],
      ['64:ff9b:1::', 48],
    ]),
  ],
  ['6to4', blockListOf('ipv6', [['2002::', 16]])],
  ['teredo', blockListOf('ipv6', [['2001::', 32]])],
  ['ipv6-unique-local', blockListOf('ipv6', [['fc00::', 7]])],
  ['ipv6-link-local', blockListOf('ipv6', [['fe80::', 10]])],
  ['multicast', blockListOf('ipv6', [['ff00::', 8]])],
  [
    'documentation',
    blockListOf('ipv6', [
      ['2001:db8::', 32],
      ['3fff::', 20],
    ]),
  ],
  ['benchmarking', blockListOf('ipv6', [['2001:2::', 48]])],
];

/** Public IPv6 unicast is all allocated from 2000::/3; anything outside it is refused. */
const IPV6_GLOBAL_UNICAST = blockListOf('ipv6', [['2000::', 3]]);

/** Brackets come from a URL's host, a zone id (`%eth0`) from link-local addresses. */
const bareAddress = (address: string) => address.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');

/**
 * The name of the forbidden class an IP address falls in, or undefined for a public unicast
 * address. Anything that is not an IP address at all is refused as `not-an-ip-address`.
 */
export function forbiddenAddressClass(address: string): string | undefined {
  const bare = bareAddress(address);
  switch (isIP(bare)) {
    case 4:
      return IPV4_CLASSES.find(([, list]) => list.check(bare, 'ipv4'))?.[0];
    case 6:
      return (
        IPV6_CLASSES.find(([, list]) => list.check(bare, 'ipv6'))?.[0] ??
        (IPV6_GLOBAL_UNICAST.check(bare, 'ipv6') ? undefined : 'reserved')
      );
    default:
      return 'not-an-ip-address';
  }
}

export const isLoopbackAddress = (address: string) => forbiddenAddressClass(address) === 'loopback';

/** Whether a delivery may connect to this address: only the local stack may reach loopback. */
export function addressAllowed(address: string, options: { loopbackAllowed: boolean }): boolean {
  const forbidden = forbiddenAddressClass(address);
  return forbidden === undefined || (options.loopbackAllowed && forbidden === 'loopback');
}

/** The hosts the local stack may reach over plain http: a receiver running next to it. */
const LOCAL_HTTP_HOSTS = new Set(['127.0.0.1', 'localhost']);

const isLocalhostName = (host: string) => host === 'localhost' || host.endsWith('.localhost');

/**
 * What is wrong with a webhook endpoint URL, as a sentence for a VALIDATION_FAILED error, or
 * undefined when it may be saved. A hostname is not resolved here: where it points may change, so
 * deliveries check the address they connect to instead.
 */
export function webhookUrlProblem(url: string, options: { loopbackAllowed: boolean }): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'url must be an absolute URL.';
  }
  if (parsed.username || parsed.password) return 'url must not contain a username or password.';
  // A trailing dot (`localhost.`, also written `localhost%2e`) names the same host, fully qualified.
  const host = bareAddress(parsed.hostname).replace(/\.+$/, '');
  const localHttp = options.loopbackAllowed && LOCAL_HTTP_HOSTS.has(host);
  if (parsed.protocol !== 'https:' && !(parsed.protocol === 'http:' && localHttp)) return 'url must use https.';
  if (isLocalhostName(host) && !(options.loopbackAllowed && host === 'localhost')) {
    return 'url must not point at localhost.';
  }
  if (isIP(host) && !addressAllowed(host, options)) {
    return `url must not point at a forbidden address (${forbiddenAddressClass(host)}).`;
  }
  return undefined;
}
