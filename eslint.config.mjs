import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import jest from 'eslint-plugin-jest';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'cdk.out/',
      '.local/',
      'lambdas/contract/',
      'coverage/',
      'client/dist/',
      'client/src/schema.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
      'no-warning-comments': ['error', { terms: ['todo', 'fixme', 'xxx'] }],
    },
  },
  {
    // Every TypeScript file but the generated ones (ignored above) meets its types where values
    // enter it (a parser or type guard, the library's own type, a declared item, a typed fake in a
    // test) rather than casting through unknown.
    files: ['**/*.ts', '**/*.mts', '**/*.cts', '**/*.tsx'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          // `x as unknown as T`, and the same written with angle brackets (`<T>(<unknown>x)`).
          selector:
            ':matches(TSAsExpression, TSTypeAssertion) > :matches(TSAsExpression, TSTypeAssertion).expression > TSUnknownKeyword.typeAnnotation',
          message:
            'A cast through unknown (`as unknown as`) claims a type nothing checks: type the value at the boundary where it enters instead.',
        },
      ],
    },
  },
  {
    files: ['test/**/*.ts'],
    ...jest.configs['flat/recommended'],
    rules: {
      ...jest.configs['flat/recommended'].rules,
      'jest/no-focused-tests': 'error',
      'jest/no-disabled-tests': 'error',
      // Helpers named expect… assert too.
      'jest/expect-expect': ['error', { assertFunctionNames: ['expect', 'expect*'] }],
    },
  },
  {
    // The examples run on plain Node.js 20+: its web globals are there without an import.
    files: ['examples/**/*.mjs'],
    languageOptions: {
      globals: { fetch: 'readonly', URLSearchParams: 'readonly', setTimeout: 'readonly' },
    },
  },
  {
    // The console's page: browser modules, with the browser globals they use.
    files: ['console/page/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      globals: Object.fromEntries(
        [
          'document',
          'window',
          'location',
          'crypto',
          'fetch',
          'EventSource',
          'XMLHttpRequest',
          'FormData',
          'URLSearchParams',
          'Node',
        ].map((name) => [name, 'readonly']),
      ),
    },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    ignores: ['console/page/**'],
    languageOptions: {
      globals: {
        module: 'writable',
        require: 'readonly',
        __dirname: 'readonly',
        console: 'readonly',
        process: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
