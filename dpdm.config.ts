// The import-cycle check (`npm run lint:cycles`, part of `npm run lint`): dpdm reads the imports of
// every file below and fails, printing each cycle's files in import order, when modules import one
// another in a loop. A cycle is broken by moving what both sides need to the layer below them (a
// types module, the configuration, a helper of its own), never by silencing the check.
//
// Covered: every package's src and tests, the root test/, scripts/ and bench/ (not bench/out/).
// An import of another package (`@ianode/x`) resolves to that package's built dist/, which is not
// followed (`exclude`): the graph is of modules within a package. Loops between packages are
// `tsc -b`'s to refuse: each package's tsconfig references the packages its src imports, and
// TypeScript rejects circular project references.
//
// Type-only imports (`import type`) count, deliberately (no `transform`): they make no cycle at run
// time, but two modules that name each other's types cannot be understood, tested or moved apart,
// and such a loop is how a lower layer comes to depend on a higher one (the write side on the HTTP
// routes, the configuration on what acts on it). Giving the shared types a home below both is cheap.
// Dynamic `import()` counts too: a lazy import is still a dependency.
//
// A .ts file because dpdm loads a .ts config itself (it transpiles it); its loader of .mjs/.js
// configs fails on ES modules.
export default {
  files: [
    'packages/*/src/**/*.{ts,mjs}',
    'packages/*/test/**/*.{ts,mjs}',
    'test/**/*.{ts,mjs}',
    'scripts/**/*.mjs',
    'bench/**/*.mjs',
  ],
  exclude: '/(node_modules|dist)/|/bench/out/',
  tree: false,
  warning: false,
  progress: false,
  exitCode: 'circular:1',
};
