import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', '.cache/', 'scratch/', 'generated/', 'out/', 'dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  // CommonJS files (.dependency-cruiser.cjs): typescript-eslint's base config sets sourceType 'module'.
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
);
