import js from '@eslint/js'
import reactHooks from 'eslint-plugin-react-hooks'
import tseslint from 'typescript-eslint'

// Layer boundaries (docs: contract/README.md). A file gets one `no-restricted-imports` setting
// (the last block that matches it wins), so each block below lists every boundary of its area.
const backendFromConsole = {
  regex: '(^#server|(^|/)server)/backend(/|$)',
  message: 'The console reaches the backend over HTTP (app/lib/<domain>.server.ts); shared rules live in #contract/*.',
}
const routesFromComponents = {
  regex: '(^#app|(^|/)(app|\\.\\.?))/routes/',
  message: 'Components do not import routes: move the shared type or constant to app/lib.',
}

export default tseslint.config(
  { ignores: ['build/**', 'node_modules/**', 'data/**', 'test-results/**', 'bench/results/**', '.cache/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-console': ['error', { allow: ['warn', 'error'] }],
    },
  },
  {
    files: ['scripts/**', 'bench/**', 'tests/**'],
    rules: { 'no-console': 'off' },
  },
  {
    // useTestApp() (tests/support/use-test-app.ts) registers vitest hooks, not React ones.
    files: ['tests/**/*.test.ts'],
    rules: { 'react-hooks/rules-of-hooks': 'off' },
  },
  {
    files: ['**/*.{js,mjs}'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['app/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [backendFromConsole] }] },
  },
  {
    files: ['app/components/**/*.{ts,tsx}'],
    rules: { 'no-restricted-imports': ['error', { patterns: [backendFromConsole, routesFromComponents] }] },
  },
  {
    files: ['server/backend/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '(^#server|(^|/)(server|\\.\\.?))/gateway/',
          message: 'The backend does not know the gateway in front of it; what both need belongs in #contract/* or server/.',
        }],
      }],
    },
  },
  {
    files: ['server/gateway/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '(^#server|(^|/)(server|\\.\\.?))/backend/',
          message: 'The gateway routes to the backend over HTTP and does not import it; what both need belongs in #contract/* or server/.',
        }],
      }],
    },
  },
  {
    files: ['contract/**/*.{ts,js}'],
    rules: {
      'no-restricted-imports': ['error', {
        patterns: [{
          regex: '^(#server|#app|#tests|node:)|(^|/)(server|app|tests)/',
          message: 'contract/ is shared by the server and the browser bundle: pure modules and browser-safe packages only.',
        }],
      }],
    },
  },
  {
    // The console-error guard is a fixture; a spec importing Playwright's own `test` would skip it.
    files: ['tests/e2e/**/*.ts'],
    ignores: ['tests/e2e/support/test.ts'],
    rules: {
      'no-restricted-imports': ['error', {
        paths: [{ name: '@playwright/test', message: "Import test and expect from './support/test.ts', which fails a test on any console or page error." }],
      }],
    },
  },
)
