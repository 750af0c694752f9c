/**
 * The house rules of /work/shared/design/architecture.md ("Layout", "Rules that keep it livable"),
 * checked on every `npm run lint`. Paths are relative to where depcruise runs: the repository root
 * for `src/`, the fixture root in test/boundaries (which runs this same file).
 */
import { join } from 'node:path';

// Specs may check a unit against the real things it meets (motion-transfer's domain spec checks
// its keys with storage's key check); only the cycle rule looks at them.
const notSpec = '\\.spec\\.ts$';

// Matches a package both when resolved into node_modules (at any relative depth, as seen from the
// fixture) and when unresolved, so a missing install cannot hide a violation.
const pkg = (name) => `(^|/)node_modules/${name}|^${name}`;
const frameworks = [pkg('@nestjs/'), pkg('typeorm(/|$)')];

export default {
  forbidden: [
    {
      name: 'no-context-internals',
      comment:
        "A context is reached only through its index.ts (facade and types): anything else couples to another context's repositories, entities and wire shapes, which its owners must stay free to change. A <context>.module.ts another context needs is exported from index.ts too.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/', pathNot: notSpec },
      to: { path: '^src/modules/', pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'] },
    },
    {
      name: 'domain-is-pure',
      comment:
        'Domain rules and the shared kernel are plain TypeScript, so they can be tested and reused without Nest, a database or any adapter, and never bend to a framework or a wire shape.',
      severity: 'error',
      from: { path: ['^src/modules/[^/]+/domain/', '^src/core/'], pathNot: notSpec },
      to: {
        path: [...frameworks, '^src/platform/', '^src/modules/[^/]+/(api|application|infrastructure)/'],
      },
    },
    {
      name: 'layers-point-inward',
      comment:
        "Wire bodies are built in api/ from what services return; a service or repository that imports its context's api/ ties the use case to one HTTP shape (and invites cycles). index.ts and the <context>.module.ts may wire api/.",
      severity: 'error',
      from: { path: '^src/modules/([^/]+)/(application|domain|infrastructure)/', pathNot: notSpec },
      to: { path: '^src/modules/$1/api/' },
    },
    {
      name: 'platform-knows-no-modules',
      comment:
        'Platform is technical adapters with no business rules; it is used by contexts and by the process entry points, never the other way round, or every adapter drags the whole app in.',
      severity: 'error',
      from: { path: '^src/platform/', pathNot: notSpec },
      to: { path: ['^src/modules/', '^src/(app\\.module|main|worker)\\.ts$'] },
    },
    {
      name: 'core-is-the-kernel',
      comment:
        'core/ is the shared kernel everything may import, so it may import none of it (not even config/: values come in as arguments).',
      severity: 'error',
      from: { path: '^src/core/', pathNot: notSpec },
      to: { path: '^src/(platform|modules|config)/' },
    },
    {
      name: 'core-is-the-kernel',
      // Same rule, second half: config/ sits just above the kernel.
      comment: 'config/ reads the environment for everyone else, so it must not reach into the adapters and contexts that read it; it depends on core/ at most.',
      severity: 'error',
      from: { path: '^src/config/', pathNot: notSpec },
      // A context's own settings file (type + parser, architecture rule 10) is what config composes.
      to: { path: '^src/(platform|modules)/', pathNot: '^src/modules/[^/]+/[^/]+\\.settings\\.ts$' },
    },
    {
      name: 'settings-are-leaves',
      comment: 'A context settings file is read by config/, so it imports nothing but core/: no adapter, context code or config of its own.',
      severity: 'error',
      from: { path: '^src/modules/[^/]+/[^/]+\\.settings\\.ts$' },
      to: { path: '^src/(platform|modules|config)/' },
    },
    {
      name: 'no-circular',
      comment:
        'No import cycles, type-only imports included: a cycle means neither side can be understood, tested or moved alone, and under ESM a value cycle can read a binding before it is initialised.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Without this, `import type` edges are erased before analysis and type-only cycles pass.
    tsPreCompilationDeps: true,
    // Absolute, so the fixture run (another working directory) resolves with the same compiler options.
    tsConfig: { fileName: join(import.meta.dirname, 'tsconfig.json') },
    doNotFollow: { path: 'node_modules' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
  },
};
