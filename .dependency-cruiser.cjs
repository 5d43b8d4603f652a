/**
 * The direction of every import, checked by dependency-cruiser in `npm test` (static checks). Each
 * rule's `comment` is the message a violation prints, so it says which rule and why.
 *
 * In lambdas/, layers import only downward:
 *
 *   handlers/ workers/ tasks/ http/   the functions' entry points, and the request pipeline
 *   routes workflows tasks queues grants (lambdas/*.ts)   the tables
 *   domain/                           the capabilities
 *   platform/ metrics.ts              what every capability uses; metrics.ts is the catalogue
 *                                     that platform/metrics.ts writes, and imports nothing
 *   contract/                         generated from docs/openapi.yaml
 *
 * What the domain needs of a table is handed down or lives below, where its owner is. The CDK app
 * (lib/, bin/), the local stack (local/), the console, the scripts and the tests sit above all of
 * lambdas/; the client (client/) stands apart from it.
 */

const TABLES = '^lambdas/(routes|workflows|tasks|queues|grants)[.]ts$';
const ENTRIES = '^lambdas/(handlers|workers|tasks|http)/';
const ABOVE_LAMBDAS = '^(lib|bin|local|console|client|scripts|test|examples)/';
const PLATFORM = '^lambdas/(platform/|metrics[.]ts$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'no-circular: this import closes a circle of imports. In a circle no module can be read, tested or bundled without all the others; break it by moving the shared fact down to its owner, or by handing it down as an argument.',
      from: { path: '^(lambdas|lib|bin|local|console|client)/' },
      to: { circular: true },
    },
    {
      name: 'lambdas-below-their-users',
      severity: 'error',
      comment:
        'lambdas-below-their-users: a module of lambdas/ imports the CDK app, the local stack, the console, the client, a script or a test. Functions are bundled from lambdas/ alone; what they need lives there.',
      from: { path: '^lambdas/' },
      to: { path: ABOVE_LAMBDAS },
    },
    {
      name: 'tables-below-entries',
      severity: 'error',
      comment:
        'tables-below-entries: a table (lambdas/routes, workflows, tasks, queues, grants) imports a handler, worker, task or the request pipeline. The tables name their modules by path; importing one would bundle it into every function that reads the table.',
      from: { path: TABLES },
      to: { path: ENTRIES },
    },
    {
      name: 'domain-below-tables',
      severity: 'error',
      comment:
        'domain-below-tables: a capability of lambdas/domain imports a table or an entry point. The tables are built from the domain, not the other way round: hand what the domain needs of a table down (an argument, a port implemented above), or move the fact down to its owner.',
      from: { path: '^lambdas/domain/' },
      to: { path: `${TABLES}|${ENTRIES}` },
    },
    {
      name: 'platform-below-domain',
      severity: 'error',
      comment:
        'platform-below-domain: lambdas/platform (or the metric catalogue) imports a capability, a table or an entry point. The platform is what every capability uses and none owns, so it knows none of them.',
      from: { path: PLATFORM },
      to: { path: `^lambdas/domain/|${TABLES}|${ENTRIES}` },
    },
    {
      name: 'contract-at-the-bottom',
      severity: 'error',
      comment:
        'contract-at-the-bottom: lambdas/contract, generated from docs/openapi.yaml, imports another part of lambdas/. The contract describes the API and depends on nothing of its implementation.',
      from: { path: '^lambdas/contract/' },
      to: { path: '^lambdas/', pathNot: '^lambdas/contract/' },
    },
    {
      name: 'job-core-knows-no-job-type',
      severity: 'error',
      comment:
        'job-core-knows-no-job-type: domain/jobs imports a job type (split-jobs/, video-jobs/). The job core is shared by the job types, which import it; what differs between them reaches it as its own traits, or through a port a job type implements and the entry points hand down (domain/jobs/job-clips.ts).',
      from: { path: '^lambdas/domain/jobs/' },
      to: { path: '^lambdas/domain/(split-jobs|video-jobs)/' },
    },
    {
      name: 'capabilities-below-job-types',
      severity: 'error',
      comment:
        'capabilities-below-job-types: a capability that serves every job type (access, assets, events, models, usage, webhooks) imports split-jobs/ or video-jobs/. They know jobs only through domain/jobs.',
      from: { path: '^lambdas/domain/(access|assets|events|models|usage|webhooks)/' },
      to: { path: '^lambdas/domain/(split-jobs|video-jobs)/' },
    },
    {
      name: 'client-apart-from-lambdas',
      severity: 'error',
      comment:
        'client-apart-from-lambdas: client/ imports from lambdas/. The client is published on its own and speaks only the contract, which it generates itself (client/src/schema.ts).',
      from: { path: '^client/' },
      to: { path: '^lambdas/' },
    },
    {
      name: 'resolvable',
      severity: 'error',
      comment:
        'resolvable: an import that does not resolve to a file. Every rule here reads resolved paths, so an import alias (package.json "imports") that stopped resolving would hide its edges from them.',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk[.]out|client/dist|coverage|[.]local)/' },
    // Type-only imports count: a type that crosses a layer upward ties the layers as much as a value does.
    tsPreCompilationDeps: true,
    // The "imports" aliases of package.json (#domain/*, #platform/*, #routes, …) resolve as Node
    // resolves them (enhanced-resolve reads the "imports" field); the rule `resolvable` keeps it so.
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
