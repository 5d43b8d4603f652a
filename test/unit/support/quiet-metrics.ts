import { setMetricWriter } from '#platform/metrics';

// Metrics are not logs, so LOG_LEVEL does not silence them; unit tests that assert them install a writer of their own.
setMetricWriter(() => undefined);
