// Dependency rules for src/, sim/ and bin/ (`make lint` runs `depcruise src sim bin` with this file).
// The layer list and the in-family rank table below are the data; the forbidden rules are generated
// from them. dependency-cruiser matches rule paths as regular expressions against module paths
// relative to the directory it runs in (the repository root). Rules, all errors: no-circular (type-only
// imports count), upward-L<i>-L<j> (<member>) for layering, no-cross-family, family-rank-<r>-<s> for
// the ranks inside a family folder, not-to-test. test/lint/deps.test.ts shows each one at work.

// Layers, lowest first: a module may import from its own layer or lower ones, never from a higher
// one. Members are paths from the repository root: `dir/` is everything under dir, `*` is one path
// segment (`sim/*` = the files directly in sim/, `src/families/*/` = every family folder), anything
// else is one file. Every module of src/, sim/ and bin/ must be under one of these paths.
const LAYERS = [
  {
    name: 'leaf',
    members: ['src/util/', 'src/version.ts', 'src/device/', 'src/tools/', 'src/ir/'],
  },
  {
    name: 'core: DSL, Verilog back-end, synthesis, the simulator and co-simulation',
    members: ['src/dsl/', 'src/emit/', 'src/examples/', 'src/synth/', 'sim/'],
  },
  {
    name: 'kit: stages, design transforms, models, workloads, statistics',
    members: ['src/stages/', 'src/transforms/', 'src/analysis/', 'src/model/'],
  },
  {
    name: 'the family contract',
    members: [
      'src/families/types.ts',
      'src/families/schema.ts',
      'src/families/sampler.ts',
      'src/families/streamKit.ts',
    ],
  },
  {
    name: 'planner, the filter facades (one lane, N lanes) and IP packaging',
    members: ['src/plan/', 'src/families/filter.ts', 'src/lanes/', 'src/ip/'],
  },
  { name: 'verification', members: ['src/verify/'] },
  { name: 'family folders', members: ['src/families/*/'] },
  { name: 'family registry', members: ['src/families/index.ts'] },
  { name: 'config', members: ['src/config/'] },
  { name: 'bench/experiments/fuzz', members: ['src/bench/*', 'src/experiments/', 'src/fuzz/'] },
  { name: 'entry points', members: ['src/cli/', 'src/index.ts', 'src/bench/scripts/', 'bin/'] },
];

/**
 * Inside one family folder (src/families/<id>/, sub-folders included) a file's rank comes from its
 * base name; a file may import only files of the same or a lower rank. `files: null` is the rank of
 * every base name listed nowhere else.
 */
const FAMILY_RANKS = [
  { name: 'types', files: ['types.ts', 'schema.ts'] },
  {
    name: 'models and analytics',
    files: ['model.ts', 'analysis.ts', 'decision.ts', 'fast.ts', 'tables.ts', 'paperValues.ts', 'summary.ts'],
  },
  { name: 'size derivation', files: ['config.ts', 'params.ts'] },
  { name: 'planner', files: ['planner.ts'] },
  { name: 'other files: rtl, stream, experiments, engines, sampler, ...', files: null },
  { name: 'family index', files: ['index.ts'] },
];

const escapeRe = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const alternation = (names) => `(?:${names.map(escapeRe).join('|')})`;

/** A layer member (see LAYERS) as a regular expression. */
const memberRe = (member) => {
  const re = escapeRe(member).replaceAll('\\*', '[^/]+');
  return member.endsWith('/') ? `^${re}` : `^${re}$`;
};

const layerRules = LAYERS.flatMap((lower, i) =>
  lower.members.flatMap((member) =>
    LAYERS.slice(i + 1).map((higher, k) => {
      const j = i + 1 + k;
      return {
        name: `upward-L${i}-L${j} (${member})`,
        severity: 'error',
        comment: `upward import: L${i} ${member} may not import L${j} ${higher.name} (${higher.members.join(', ')})`,
        from: { path: memberRe(member) },
        to: { path: higher.members.map(memberRe) },
      };
    }),
  ),
);

// Every module under src/, sim/ and bin/ is a member of some layer: a new folder must be placed in
// LAYERS before it can hold code (rule in-no-layer; test/lint/deps.test.ts shows it at work).
const ALL_MEMBERS = LAYERS.flatMap((layer) => layer.members.map(memberRe));
const inNoLayer = { path: '^(?:src|sim|bin)/', pathNot: ALL_MEMBERS };
const unlistedRules = [
  {
    name: 'in-no-layer',
    severity: 'error',
    comment: 'a module in no layer: add its folder to LAYERS in .dependency-cruiser.cjs',
    from: inNoLayer,
    to: {},
  },
  {
    name: 'to-in-no-layer',
    severity: 'error',
    comment: 'an import of a module in no layer: add its folder to LAYERS in .dependency-cruiser.cjs',
    from: { path: '^(?:src|sim|bin)/' },
    to: inNoLayer,
  },
  {
    name: 'in-no-layer-orphan',
    severity: 'error',
    comment: 'a module in no layer (it imports nothing): add its folder to LAYERS in .dependency-cruiser.cjs',
    from: { ...inNoLayer, orphan: true },
    to: {},
  },
];

const NAMED_FILES = FAMILY_RANKS.flatMap((rank) => rank.files ?? []);

// The files of one rank inside family folder `family`, a regular expression: '([^/]+)' captures the
// family id as $1 in a rule's `from`, '$1' refers back to it in the rule's `to`. Sub-folders of a
// family folder rank their files by base name too (`(?:.*/|)`: dependency-cruiser refuses
// `(?:.*/)?` as a possibly catastrophic regular expression).
const familyFiles = (family, rank) =>
  rank.files === null
    ? { path: `^src/families/${family}/`, pathNot: `(?:^|/)${alternation(NAMED_FILES)}$` }
    : { path: `^src/families/${family}/(?:.*/|)${alternation(rank.files)}$` };

const rankLabel = (r) => `rank ${r} (${FAMILY_RANKS[r].name})`;

const rankRules = FAMILY_RANKS.flatMap((_, r) =>
  FAMILY_RANKS.slice(r + 1).map((__, k) => {
    const s = r + 1 + k;
    return {
      name: `family-rank-${r}-${s}`,
      severity: 'error',
      comment: `in-family rank inversion: a ${rankLabel(r)} file of a family folder may not import a ${rankLabel(s)} file of the same family`,
      from: familyFiles('([^/]+)', FAMILY_RANKS[r]),
      to: familyFiles('$1', FAMILY_RANKS[s]),
    };
  }),
);

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'import cycle (type-only imports count too)',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    ...unlistedRules,
    {
      name: 'no-cross-family',
      severity: 'error',
      comment: 'family folders are independent plug-ins: src/families/<a>/ may not import src/families/<b>/',
      from: { path: '^src/families/([^/]+)/' },
      to: { path: '^src/families/[^/]+/', pathNot: '^src/families/$1/' },
    },
    ...rankRules,
    {
      name: 'not-to-test',
      severity: 'error',
      comment: 'src/, sim/ and bin/ may not import from test/',
      from: { path: '^(?:src|sim|bin)/' },
      to: { path: '^test/' },
    },
  ],
  options: {
    doNotFollow: { path: ['node_modules'] },
    // Type-only imports are edges too (cycles and layering include them).
    tsPreCompilationDeps: true,
    // The compiler options (NodeNext). A `./x.js` specifier in a .ts file resolves to ./x.ts: the
    // lint run sees every import of src, sim and bin resolved (test/lint/deps.test.ts checks it).
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.mts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types', 'typings'],
    },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
