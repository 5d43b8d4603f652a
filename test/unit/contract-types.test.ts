import { operation as createVideoJob } from '#contract/operations/createVideoJob';
import { validateRequest } from '#http/validation';

describe('types from the contract', () => {
  it('type a request as validated: defaults applied, optional fields optional', () => {
    const { body, headers } = validateRequest(createVideoJob, {
      body: { prompt: 'A lighthouse', duration_seconds: 5 },
      headers: { 'idempotency-key': 'k-1' },
    });
    // Both defaulted fields are typed as always there; the assignments are the type test.
    const aspectRatio: '9:16' | '16:9' | '1:1' = body.aspect_ratio;
    const model: 'auto' = body.model;
    // @ts-expect-error source_asset_id is optional and has no default
    const source: string = body.source_asset_id;
    expect({ aspectRatio, model, source, key: headers['idempotency-key'] }).toEqual({
      aspectRatio: '9:16',
      model: 'auto',
      source: undefined,
      key: 'k-1',
    });
  });
});
