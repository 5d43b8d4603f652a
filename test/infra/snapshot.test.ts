import { synthesizedStack } from './fixtures';

/**
 * What differs between machines and runs without the stack differing: the content hashes that
 * name assets (the S3 keys of the function bundles and the layer, which follow the files and the
 * toolchain). Every other value of the template is deterministic.
 */
const ASSET_HASH = /\b[0-9a-f]{64}\b/g;

function normalized(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(ASSET_HASH, '<asset hash>');
  if (Array.isArray(value)) return value.map(normalized);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, entry]) => [key, normalized(entry)]));
  }
  return value;
}

test('the template of the default configuration is unchanged (update with jest -u when a change is intended)', () => {
  expect(normalized(synthesizedStack().template.toJSON())).toMatchSnapshot();
});
