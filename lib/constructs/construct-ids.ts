/**
 * A construct id from a name of the tables in lambdas/ (`getMe` → `GetMe`, `video-job` →
 * `VideoJob`, `reconcile-jobs` → `ReconcileJobs`), so that no entry needs code of its own.
 */
export function constructIdOf(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');
}
